package chain

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// managed is a managedFields entry as the API server writes it (the
// shape of the Server-Side Apply documentation's examples): fields of the
// pod template when template, else of the status subresource.
func managed(manager string, op metav1.ManagedFieldsOperationType, at time.Time, template bool) metav1.ManagedFieldsEntry {
	e := metav1.ManagedFieldsEntry{Manager: manager, Operation: op, APIVersion: "apps/v1", Time: &metav1.Time{Time: at}, FieldsType: "FieldsV1"}
	if template {
		e.FieldsV1 = &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{"f:image":{}}}}}}}`)}
	} else {
		e.Subresource = "status"
		e.FieldsV1 = &metav1.FieldsV1{Raw: []byte(`{"f:status":{"f:replicas":{}}}`)}
	}
	return e
}

// TestAppliedOf: who applied a pod template, as the workload says it and
// the GitOps object that applied it completes it; one line each.
func TestAppliedOf(t *testing.T) {
	now := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	changed := now.Add(-14 * time.Minute)
	sha := "3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39"
	deploy := func(labels, ann map[string]string, fields ...metav1.ManagedFieldsEntry) *appsv1.Deployment {
		return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", Labels: labels, Annotations: ann, ManagedFields: fields}}
	}
	status := managed("kube-controller-manager", metav1.ManagedFieldsOperationUpdate, now.Add(-time.Minute), false)
	app := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "Application", "metadata": map[string]any{"name": "web", "namespace": "argocd"},
		"spec": map[string]any{"source": map[string]any{"repoURL": "https://git.example.com/acme/deploy.git", "path": "web"}},
		"status": map[string]any{"sync": map[string]any{"revision": strings.Repeat("e", 40)}, "history": []any{
			map[string]any{"id": int64(6), "revision": strings.Repeat("a", 40), "deployedAt": changed.Add(-24 * time.Hour).Format(time.RFC3339),
				"source": map[string]any{"repoURL": "https://git.example.com/acme/deploy.git"}},
			map[string]any{"id": int64(7), "revision": sha, "deployedAt": changed.Add(20 * time.Second).Format(time.RFC3339),
				"source": map[string]any{"repoURL": "https://git.example.com/acme/deploy.git"}},
		}},
	}}
	ks := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization", "metadata": map[string]any{"name": "apps", "namespace": "flux-system"},
		"spec":   map[string]any{"sourceRef": map[string]any{"kind": "GitRepository", "name": "flux-system"}},
		"status": map[string]any{"lastAppliedRevision": "main@sha1:" + sha},
	}}
	for _, c := range []struct {
		name  string
		obj   *appsv1.Deployment
		owner *unstructured.Unstructured
		want  string
	}{
		{"kubectl edit", deploy(nil, nil, managed("kubectl-edit", metav1.ManagedFieldsOperationUpdate, changed, true), status), nil,
			"applied by kubectl-edit, 14 min before the verdict (Update)"},
		{"Argo CD, annotation tracking", deploy(map[string]string{argoInstance: "web"}, map[string]string{argoTracking: "web:apps/Deployment:shop/web"},
			managed("argocd-controller", metav1.ManagedFieldsOperationApply, changed, true), status), app,
			"applied by Argo CD Application argocd/web at 3f2a9c1 of https://git.example.com/acme/deploy.git, 14 min before the verdict (field manager argocd-controller, Apply)"},
		{"Argo CD, an Application of another namespace", deploy(nil, map[string]string{argoTracking: "team-a_web:apps/Deployment:shop/web"},
			managed("argocd-controller", metav1.ManagedFieldsOperationApply, changed, true)), nil,
			"applied by Argo CD Application team-a/web, 14 min before the verdict (field manager argocd-controller, Apply)"},
		{"Argo CD, label tracking", deploy(map[string]string{argoInstance: "web"}, nil,
			managed("argocd-controller", metav1.ManagedFieldsOperationApply, changed, true)), app,
			"applied by Argo CD Application argocd/web at 3f2a9c1 of https://git.example.com/acme/deploy.git, 14 min before the verdict (field manager argocd-controller, Apply)"},
		{"a chart's instance label, applied by hand", deploy(map[string]string{argoInstance: "web"}, nil,
			managed("kubectl-client-side-apply", metav1.ManagedFieldsOperationUpdate, changed, true)), nil,
			"applied by kubectl-client-side-apply, 14 min before the verdict (Update)"},
		{"Flux Kustomization", deploy(map[string]string{fluxKustomizeName: "apps", fluxKustomizeNS: "flux-system"}, nil,
			managed("kustomize-controller", metav1.ManagedFieldsOperationApply, changed, true)), ks,
			"applied by Flux Kustomization flux-system/apps at main@sha1:3f2a9c1 of GitRepository flux-system/flux-system, 14 min before the verdict (field manager kustomize-controller, Apply)"},
		{"Helm", deploy(map[string]string{helmChart: "web-1.2.3", "app.kubernetes.io/managed-by": "Helm"}, map[string]string{helmReleaseName: "web", helmReleaseNS: "shop"},
			managed("helm", metav1.ManagedFieldsOperationUpdate, changed, true)), nil,
			"applied by Helm release shop/web (chart web-1.2.3), 14 min before the verdict (field manager helm, Update)"},
		{"status only", deploy(nil, nil, status), nil, ""},
	} {
		a := AppliedOf(c.obj)
		if a != nil && c.owner != nil {
			a.FromOwner(c.owner)
		}
		got := ""
		if a != nil {
			got = a.Line(now)
		}
		if got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// TestKeepTemplateManagers: a reader keeps only the entries that manage a
// pod template, and TemplateManager still reads them.
func TestKeepTemplateManagers(t *testing.T) {
	at := time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC)
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{ManagedFields: []metav1.ManagedFieldsEntry{
		managed("kubectl-edit", metav1.ManagedFieldsOperationUpdate, at, true),
		managed("kube-controller-manager", metav1.ManagedFieldsOperationUpdate, at.Add(time.Hour), false),
	}}}
	KeepTemplateManagers(d)
	if len(d.ManagedFields) != 1 || TemplateManager(d) == nil || TemplateManager(d).Manager != "kubectl-edit" {
		t.Errorf("kept %+v", d.ManagedFields)
	}
}

func TestShortRevision(t *testing.T) {
	sha := "3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39"
	for in, want := range map[string]string{sha: "3f2a9c1", "main@sha1:" + sha: "main@sha1:3f2a9c1", "v1.2.3": "v1.2.3", "1.4.0": "1.4.0"} {
		if got := ShortRevision(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}
