package chain

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// Any other kind the cluster serves, custom or built in, is walked as a
// resource: its own status as kstatus judges it, then the workloads it
// owns, each by its own chain. Its Kind is the API kind ("Certificate"),
// its API the resource discovery resolved it to.
const (
	// LinkStatus is the object's own status, judged as kstatus judges it
	// (Current, InProgress, Failed) from its conditions.
	LinkStatus LinkID = "status"
	// LinkOwned is what the object owns (ownerReferences): each workload
	// walked by its own chain, the first not healthy quoted.
	LinkOwned LinkID = "owned"
)

var resourceChain = []LinkID{LinkStored, LinkStatus, LinkOwned}

var resourceTitles = map[LinkID]string{
	LinkStatus: "status (the object's controller: its conditions, as kstatus reads them)",
	LinkOwned:  "owned (the workloads it owns, each by its own chain)",
}

// APIResource is where a resource kind is served, as discovery says.
type APIResource struct {
	Group      string `json:"group,omitempty"`
	Version    string `json:"version"`
	Resource   string `json:"resource"`
	Kind       string `json:"kind"`
	Namespaced bool   `json:"namespaced"`
}

// APIVersion is "group/version", or "version" for the core group.
func (a APIResource) APIVersion() string {
	if a.Group == "" {
		return a.Version
	}
	return a.Group + "/" + a.Version
}

// Type is the resource as kubectl names it unambiguously: "resource.group"
// ("certificates.cert-manager.io"), or the resource of the core group.
func (a APIResource) Type() string {
	if a.Group == "" {
		return a.Resource
	}
	return a.Resource + "." + a.Group
}

// IsResource says the kind is walked as any resource: neither a workload
// kind, a pod, nor a traffic kind.
func IsResource(k Kind) bool {
	_, ok := RowOf(k)
	return k != "" && !ok
}

// Foreign says a kind named as one kubectl chain walks but served in
// another group (OpenKruise's DaemonSet, Knative's Service, Gloo's
// Gateway) is another project's kind: walked as any resource, never by
// the chain of the kind it shares a name with. The kind's own group is
// its row's.
func Foreign(k Kind, group string) bool {
	r, ok := RowOf(k)
	return k != "" && ok && group != "" && group != r.Group
}

// GroupOf is the API group of an apiVersion ("apps.kruise.io/v1alpha1"
// is apps.kruise.io, "v1" the core group's "").
func GroupOf(apiVersion string) string {
	gv, _ := schema.ParseGroupVersion(apiVersion)
	return gv.Group
}

// IsResource says the object the ref names is walked as any resource: a
// kind kubectl chain does not walk itself, or one of another group.
func (r Ref) IsResource() bool { return IsResource(r.Kind) || Foreign(r.Kind, r.Group) }

// IsResource says the snapshot is of an object walked as any resource.
func (s *Snapshot) IsResource() bool {
	return IsResource(s.KindOf()) || s.API != nil && Foreign(s.KindOf(), s.API.Group) || s.Alone && IsTraffic(s.KindOf())
}

// IsResource says the report is of an object walked as any resource.
func (r *Report) IsResource() bool {
	return IsResource(r.Kind) || r.API != nil && Foreign(r.Kind, r.API.Group)
}

// ResourceRef is the Ref of a resource of api: its kind lower-cased, with
// the group, as kubectl prints it ("certificate.cert-manager.io/web").
func ResourceRef(api APIResource, name string) Ref {
	return Ref{Kind: Kind(api.Kind), Group: api.Group, Name: name}
}

// typeName is the ref's TYPE as kubectl writes it: the kind lower-cased,
// with its group when it has one.
func (r Ref) typeName() string {
	if r.Group == "" {
		return r.Kind.Resource()
	}
	return r.Kind.Resource() + "." + r.Group
}

// resourceTitle is the title of a resource chain's own link.
// Its status and owned links are a resource chain's alone, whatever the
// kind is named.
func resourceTitle(l LinkID, k Kind) (string, bool) {
	if t, ok := resourceTitles[l]; ok {
		return t, true
	}
	if l == LinkStored && IsResource(k) {
		return "stored (API server)", true
	}
	return "", false
}

// PodsControlledBy are the pods whose controller is the object of uid
// (an operator's own pods, as OpenKruise's CloneSet makes them), those
// not ready first, then by name: the owned link walks each as a pod's
// chain.
func PodsControlledBy(pods []corev1.Pod, uid types.UID) []Ref {
	var mine []*corev1.Pod
	for i := range pods {
		if c := metav1.GetControllerOfNoCopy(&pods[i]); c != nil && c.UID == uid {
			mine = append(mine, &pods[i])
		}
	}
	ready := func(p *corev1.Pod) bool {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady {
				return c.Status == corev1.ConditionTrue
			}
		}
		return false
	}
	sort.SliceStable(mine, func(i, j int) bool {
		if ready(mine[i]) != ready(mine[j]) {
			return !ready(mine[i])
		}
		return mine[i].Name < mine[j].Name
	})
	var out []Ref
	for _, p := range mine {
		out = append(out, Ref{Kind: KindPod, Name: p.Name})
	}
	return out
}
