package chain

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Applied says who applied the revision that broke, and from where, from
// what the workload carries (its managedFields, the labels and annotations
// Helm, Argo CD and Flux put on what they apply) and, when it was read,
// the status of the GitOps object that applied it. Never from Secrets.
type Applied struct {
	// Manager is the field manager that last changed the pod template
	// (argocd-controller, kustomize-controller, helm, kubectl-edit, ...),
	// Operation how (Apply or Update), Time when.
	Manager   string     `json:"manager,omitempty"`
	Operation string     `json:"operation,omitempty"`
	Time      *time.Time `json:"time,omitempty"`
	// By names the tool that applied it: "Argo CD", "Flux" or "Helm";
	// empty when only the field manager says.
	By string `json:"by,omitempty"`
	// Owner is what applied it: an Argo CD Application, a Flux
	// Kustomization or HelmRelease, a Helm release (Kind "Release");
	// its namespace is empty when the labels do not say it (an Argo CD
	// Application in the control plane's namespace).
	Owner *Owner `json:"owner,omitempty"`
	// Chart is a Helm chart's name and version.
	Chart string `json:"chart,omitempty"`
	// Repo and Revision are where the owner took it from: a Git
	// repository and commit (Argo CD's history entry of the change, Flux's
	// last applied revision), or a Flux source.
	Repo     string `json:"repo,omitempty"`
	Revision string `json:"revision,omitempty"`
	// Note says why the owner's status is not in it (its kind not
	// served, not found, forbidden).
	Note string `json:"note,omitempty"`
}

// Owner names the object that applied a revision.
type Owner struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// GitOps owners whose status names the revision they applied: read only
// when a revision broke, one GET each.
var (
	ArgoApplication   = APIResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "applications", Kind: "Application", Namespaced: true}
	FluxKustomization = APIResource{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Resource: "kustomizations", Kind: "Kustomization", Namespaced: true}
	FluxHelmRelease   = APIResource{Group: "helm.toolkit.fluxcd.io", Version: "v2", Resource: "helmreleases", Kind: "HelmRelease", Namespaced: true}
	// Appliers are those kinds.
	Appliers = []APIResource{ArgoApplication, FluxKustomization, FluxHelmRelease}
)

// The labels and annotations the tools put on what they apply: Argo CD's
// tracking (argo-cd common/common.go: LabelKeyAppInstance,
// AnnotationKeyAppInstance, "<app>:<group>/<kind>:<namespace>/<name>",
// "<namespace>_<app>" for an Application outside the control plane's
// namespace), Flux's kustomize-controller and helm-controller owner
// labels, Helm's release annotations and chart label.
const (
	argoTracking       = "argocd.argoproj.io/tracking-id"
	argoInstance       = "app.kubernetes.io/instance"
	fluxKustomizeName  = "kustomize.toolkit.fluxcd.io/name"
	fluxKustomizeNS    = "kustomize.toolkit.fluxcd.io/namespace"
	fluxHelmName       = "helm.toolkit.fluxcd.io/name"
	fluxHelmNS         = "helm.toolkit.fluxcd.io/namespace"
	helmReleaseName    = "meta.helm.sh/release-name"
	helmReleaseNS      = "meta.helm.sh/release-namespace"
	helmChart          = "helm.sh/chart"
	templateFieldsPath = `"f:template"`
)

// AppliedOf is who applied obj's pod template, as obj says it; nil when
// it says nothing (no manager of its template, no tool's labels).
func AppliedOf(obj metav1.Object) *Applied {
	if obj == nil {
		return nil
	}
	a := &Applied{}
	if m := TemplateManager(obj); m != nil {
		a.Manager, a.Operation = m.Manager, string(m.Operation)
		if m.Time != nil {
			t := m.Time.Time
			a.Time = &t
		}
	}
	labels, ann := obj.GetLabels(), obj.GetAnnotations()
	switch {
	case ann[argoTracking] != "":
		app := strings.SplitN(ann[argoTracking], ":", 2)[0]
		a.By, a.Owner = "Argo CD", argoOwner(app)
	case labels[fluxHelmName] != "":
		a.By, a.Owner = "Flux", &Owner{Kind: FluxHelmRelease.Kind, Namespace: labels[fluxHelmNS], Name: labels[fluxHelmName]}
	case labels[fluxKustomizeName] != "":
		a.By, a.Owner = "Flux", &Owner{Kind: FluxKustomization.Kind, Namespace: labels[fluxKustomizeNS], Name: labels[fluxKustomizeName]}
	case strings.HasPrefix(a.Manager, "argocd") && labels[argoInstance] != "":
		// Argo CD's label tracking: the instance label is its
		// Application's name (Helm charts set it too, so only with Argo
		// CD's field manager).
		a.By, a.Owner = "Argo CD", argoOwner(labels[argoInstance])
	case ann[helmReleaseName] != "":
		a.By, a.Owner = "Helm", &Owner{Kind: "Release", Namespace: ann[helmReleaseNS], Name: ann[helmReleaseName]}
	}
	if a.By == "Flux" && ann[helmReleaseName] != "" || a.By == "Helm" {
		a.Chart = labels[helmChart]
	}
	if a.Manager == "" && a.By == "" {
		return nil
	}
	return a
}

// argoOwner is the Application an instance name names: "<namespace>_<app>"
// outside the control plane's namespace, else the app alone.
func argoOwner(instance string) *Owner {
	if ns, name, ok := strings.Cut(instance, "_"); ok {
		return &Owner{Kind: ArgoApplication.Kind, Namespace: ns, Name: name}
	}
	return &Owner{Kind: ArgoApplication.Kind, Name: instance}
}

// TemplateManager is the managedFields entry that last changed obj's pod
// template (spec.template, or a CronJob's spec.jobTemplate), nil when none
// did (managedFields not kept, or no entry touches it).
func TemplateManager(obj metav1.Object) *metav1.ManagedFieldsEntry {
	var last *metav1.ManagedFieldsEntry
	for i, m := range obj.GetManagedFields() {
		if m.Subresource != "" || m.FieldsV1 == nil || !bytes.Contains(m.FieldsV1.Raw, []byte(templateFieldsPath)) && !bytes.Contains(m.FieldsV1.Raw, []byte(`"f:jobTemplate"`)) {
			continue
		}
		if last == nil || m.Time != nil && (last.Time == nil || m.Time.After(last.Time.Time)) {
			last = &obj.GetManagedFields()[i]
		}
	}
	return last
}

// KeepTemplateManagers drops obj's managedFields but the entries that
// manage a pod template (what TemplateManager reads): a reader keeps them
// at a few hundred bytes a workload, and none of a pod's.
func KeepTemplateManagers(obj metav1.Object) {
	var keep []metav1.ManagedFieldsEntry
	for _, m := range obj.GetManagedFields() {
		if m.Subresource == "" && m.FieldsV1 != nil && (bytes.Contains(m.FieldsV1.Raw, []byte(templateFieldsPath)) || bytes.Contains(m.FieldsV1.Raw, []byte(`"f:jobTemplate"`))) {
			m.FieldsV1 = &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:template":{}}}`)}
			keep = append(keep, m)
		}
	}
	obj.SetManagedFields(keep)
}

// FromOwner completes a with the owner's status as its controller wrote
// it: an Argo CD Application's history entry deployed when the template
// changed (else its last sync), a Flux Kustomization's or HelmRelease's
// last applied revision and source.
func (a *Applied) FromOwner(owner *unstructured.Unstructured) {
	if a == nil || owner == nil {
		return
	}
	if a.Owner != nil && a.Owner.Namespace == "" {
		a.Owner.Namespace = owner.GetNamespace()
	}
	str := func(path ...string) string {
		s, _, _ := unstructured.NestedString(owner.Object, path...)
		return s
	}
	switch owner.GetKind() {
	case ArgoApplication.Kind:
		a.Repo, a.Revision = str("spec", "source", "repoURL"), str("status", "sync", "revision")
		if a.Repo == "" {
			if srcs, _, _ := unstructured.NestedSlice(owner.Object, "spec", "sources"); len(srcs) > 0 {
				if m, ok := srcs[0].(map[string]any); ok {
					a.Repo, _ = m["repoURL"].(string)
				}
			}
		}
		if h := a.historyEntry(owner); h != nil {
			if r, _ := h["revision"].(string); r != "" {
				a.Revision = r
			}
			if src, ok := h["source"].(map[string]any); ok {
				if r, _ := src["repoURL"].(string); r != "" {
					a.Repo = r
				}
			}
		}
	case FluxKustomization.Kind, FluxHelmRelease.Kind:
		a.Revision = str("status", "lastAppliedRevision")
		ref := []string{"spec", "sourceRef"}
		if owner.GetKind() == FluxHelmRelease.Kind {
			ref = []string{"spec", "chart", "spec", "sourceRef"}
			if hist, _, _ := unstructured.NestedSlice(owner.Object, "status", "history"); len(hist) > 0 {
				// helm-controller v2: history, newest first.
				if m, ok := hist[0].(map[string]any); ok {
					name, _ := m["chartName"].(string)
					version, _ := m["chartVersion"].(string)
					if name != "" && version != "" {
						a.Chart = name + "-" + version
					}
					if a.Revision == "" {
						a.Revision = version
					}
				}
			}
		}
		kind, _, _ := unstructured.NestedString(owner.Object, append(ref, "kind")...)
		name, _, _ := unstructured.NestedString(owner.Object, append(ref, "name")...)
		ns, _, _ := unstructured.NestedString(owner.Object, append(ref, "namespace")...)
		if kind != "" && name != "" {
			if ns == "" {
				ns = owner.GetNamespace()
			}
			a.Repo = kind + " " + ns + "/" + name
		}
	}
}

// historyEntry is the Application's history entry of the template's
// change: the newest deployed at most a minute after it (a sync writes
// the workload, then completes), else none.
func (a *Applied) historyEntry(app *unstructured.Unstructured) map[string]any {
	hist, _, _ := unstructured.NestedSlice(app.Object, "status", "history")
	var best map[string]any
	var bestAt time.Time
	for _, h := range hist {
		m, ok := h.(map[string]any)
		if !ok {
			continue
		}
		s, _ := m["deployedAt"].(string)
		at, err := time.Parse(time.RFC3339, s)
		if err != nil {
			continue
		}
		if a.Time != nil && at.After(a.Time.Add(time.Minute)) {
			continue
		}
		if best == nil || at.After(bestAt) {
			best, bestAt = m, at
		}
	}
	return best
}

var gitSHA = regexp.MustCompile(`^([0-9a-f]{7})[0-9a-f]{33}$|(sha1:[0-9a-f]{7})[0-9a-f]{33}$`)

// ShortRevision is a revision as a person reads it: a Git commit's first
// 7 hex digits ("3f2a9c1", "main@sha1:3f2a9c1").
func ShortRevision(r string) string {
	if m := gitSHA.FindStringSubmatchIndex(r); m != nil {
		if m[2] >= 0 {
			return r[m[2]:m[3]]
		}
		return r[:m[4]] + r[m[4]:m[5]]
	}
	return r
}

// Line is a in one line, its time told against now: "applied by Argo CD
// Application argocd/web at 3f2a9c1 of https://github.com/acme/deploy, 14
// min before the verdict (field manager argocd-controller, Update)".
func (a *Applied) Line(now time.Time) string {
	var b strings.Builder
	b.WriteString("applied by ")
	switch {
	case a.Owner != nil:
		by := a.By
		if a.Owner.Kind == "Release" {
			by += " release"
		} else {
			by += " " + a.Owner.Kind
		}
		name := a.Owner.Name
		if a.Owner.Namespace != "" {
			name = a.Owner.Namespace + "/" + name
		}
		fmt.Fprintf(&b, "%s %s", by, name)
	default:
		b.WriteString(a.Manager)
	}
	if a.Revision != "" {
		fmt.Fprintf(&b, " at %s", ShortRevision(a.Revision))
	}
	if a.Chart != "" {
		fmt.Fprintf(&b, " (chart %s)", a.Chart)
	}
	if a.Repo != "" {
		fmt.Fprintf(&b, " of %s", a.Repo)
	}
	if a.Time != nil && !now.IsZero() {
		fmt.Fprintf(&b, ", %s before the verdict", humanAgo(now.Sub(*a.Time)))
	}
	if a.Owner != nil && a.Manager != "" {
		fmt.Fprintf(&b, " (field manager %s", a.Manager)
		if a.Operation != "" {
			fmt.Fprintf(&b, ", %s", a.Operation)
		}
		b.WriteString(")")
	} else if a.Operation != "" {
		fmt.Fprintf(&b, " (%s)", a.Operation)
	}
	if a.Note != "" {
		fmt.Fprintf(&b, "; %s", a.Note)
	}
	return b.String()
}

// humanAgo is a duration as "40 s", "14 min", "3 h", "2 d".
func humanAgo(d time.Duration) string {
	switch {
	case d < 0:
		return "0 s"
	case d < time.Minute:
		return fmt.Sprintf("%d s", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h", int(d.Hours()))
	}
	return fmt.Sprintf("%d d", int(d.Hours()/24))
}
