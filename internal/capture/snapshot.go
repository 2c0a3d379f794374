package capture

import (
	"fmt"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Snapshot selects one Deployment from the bundle with what its selector
// matches, as the live reader would have listed it. An empty namespace
// matches any; an empty name picks the only Deployment.
func (b *Bundle) Snapshot(namespace, name string) (*chain.Snapshot, error) {
	d, err := b.pick(namespace, name)
	if err != nil {
		return nil, err
	}
	return b.replicaSetOwner(&chain.Snapshot{Namespace: d.Namespace, Name: d.Name, Deployment: d}, d.Spec.Selector)
}

// replicaSetOwner fills the snapshot of a Deployment or Rollout (set in
// s) with what its selector matches: its ReplicaSets, pods, Services,
// autoscalers and their events.
func (b *Bundle) replicaSetOwner(s *chain.Snapshot, ls *metav1.LabelSelector) (*chain.Snapshot, error) {
	sel, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil || ls == nil || sel.Empty() {
		return nil, fmt.Errorf("%s %s/%s has no usable spec.selector", s.KindOf().Resource(), s.Namespace, s.Name)
	}
	ix := b.indexed()
	rss := matchingIn(b.ReplicaSets, ix.rss.candidates(s.Namespace, ls), s.Namespace, ls)
	pods := b.podsMatching(s.Namespace, ls)
	s.ReplicaSets, s.Pods = rss, pods
	b.serving(s)
	b.autoscalers(s)
	b.pendingClaims(s)
	s.Assemble(rss, pods, b.eventsAbout(s))
	b.goneNodes(s)
	b.clock(s)
	return s, nil
}

// pendingClaims gives the snapshot the claims of the input that its pods
// waiting to be scheduled use, as the live read GETs them.
func (b *Bundle) pendingClaims(s *chain.Snapshot) {
	for _, name := range chain.PendingClaims(s.Pods) {
		if c := find(b.Claims, s.Namespace, name); c != nil {
			s.Claims = append(s.Claims, *c)
		}
	}
}

// goneNodes adds the nodes the live reader GETs (chain.NodesGone: those
// that went away under the pods), when the input holds them.
func (b *Bundle) goneNodes(s *chain.Snapshot) {
	for _, name := range chain.NodesGone(s) {
		for i := range b.Nodes {
			if b.Nodes[i].Name == name {
				s.Nodes = append(s.Nodes, b.Nodes[i])
			}
		}
	}
}

// Read selects one workload of any kind from the bundle with what the live
// reader would have read for it. An empty ref picks the only workload of
// the input (a CronJob's Jobs are its own, not workloads of their own).
func (b *Bundle) Read(namespace string, ref chain.Ref) (*chain.Snapshot, error) {
	s, err := b.read(namespace, ref)
	if err == nil {
		b.produced(s)
		b.pasteGaps(s)
	}
	return s, err
}

func (b *Bundle) read(namespace string, ref chain.Ref) (*chain.Snapshot, error) {
	if ref.Name == "" && b.Target.Name != "" {
		ref = b.Target
	}
	if ref.Name == "" {
		all := b.Workloads(namespace)
		switch {
		case len(all) == 0:
			return nil, fmt.Errorf("no Deployment, StatefulSet, DaemonSet, Job, CronJob, Argo Rollout or OpenKruise CloneSet in the input")
		case len(all) > 1:
			return nil, fmt.Errorf("the input has several workloads (%s): name one", refNames(all))
		}
		namespace, ref = all[0].Namespace, all[0].Ref
	}
	if ref.IsResource() || chain.IsTraffic(ref.Kind) && b.Lone != nil && b.object(namespace, ref) == b.Lone {
		// Any other kind; or a Service, Ingress or Gateway API object
		// that is the input's only object: its own status.
		return b.resource(namespace, ref)
	}
	s, err := b.own(namespace, ref)
	if err == nil && ref.Kind != chain.KindPod && b.Lone != nil && b.object(s.Namespace, ref) == b.Lone {
		// The input's only object (kubectl get deploy web -o yaml):
		// walked as far as it tells, then by its own status, not
		// down to links that would read what was left out as missing.
		// (A pod's chain is all in the pod.)
		s.Alone, s.Object = true, b.Lone
	}
	return s, err
}

// Workloads are the bundle's walkable objects in namespace ("" for any),
// kind by kind in the kinds table's order: an object controlled by a
// workload of another kind of the table (a CronJob's Jobs) is its owner's,
// not a workload of its own.
func (b *Bundle) Workloads(namespace string) []Workload {
	var out []Workload
	for _, row := range chain.KindTable() {
		if row.Class != chain.ClassWorkload {
			continue
		}
		for _, m := range b.ObjectsOf(row.Kind) {
			if namespace != "" && m.GetNamespace() != namespace || ownedByWorkload(m) {
				continue
			}
			out = append(out, Workload{Namespace: m.GetNamespace(), Ref: chain.Ref{Kind: row.Kind, Name: m.GetName()}, Object: m})
		}
	}
	return out
}

// ownedByWorkload says obj's controller is of a workload kind of the
// kinds table whose pods it makes (a Job of a CronJob).
func ownedByWorkload(obj metav1.Object) bool {
	ref := metav1.GetControllerOf(obj)
	if ref == nil {
		return false
	}
	row, ok := chain.RowOf(chain.Kind(ref.Kind))
	return ok && row.Class == chain.ClassWorkload && !chain.Foreign(row.Kind, chain.GroupOf(ref.APIVersion))
}

// Workload is one walkable object of a bundle.
type Workload struct {
	Namespace string
	chain.Ref
	// Object is the workload as the bundle holds it.
	Object metav1.Object
}

func refNames(all []Workload) string {
	if len(all) == 0 {
		return "none"
	}
	var n []string
	for _, w := range all {
		n = append(n, w.Namespace+"/"+w.Ref.String())
	}
	return strings.Join(n, ", ")
}

// find is the object of a list with that name, in namespace ("" for any).
func find[T any, P interface {
	*T
	metav1.Object
}](list []T, namespace, name string) *T {
	for i := range list {
		if m := P(&list[i]); m.GetName() == name && (namespace == "" || m.GetNamespace() == namespace) {
			return &list[i]
		}
	}
	return nil
}

// matching are the objects of a namespace a selector matches; none for a
// nil or empty selector, which the API would not accept.
func matching[T any, P interface {
	*T
	metav1.Object
}](list []T, namespace string, ls *metav1.LabelSelector) []T {
	sel, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil || ls == nil || sel.Empty() {
		return nil
	}
	var out []T
	for i := range list {
		if m := P(&list[i]); m.GetNamespace() == namespace && sel.Matches(labels.Set(m.GetLabels())) {
			out = append(out, list[i])
		}
	}
	return out
}

func (b *Bundle) pick(namespace, name string) (*appsv1.Deployment, error) {
	var found []*appsv1.Deployment
	for i := range b.Deployments {
		d := &b.Deployments[i]
		if (namespace == "" || d.Namespace == namespace) && (name == "" || d.Name == name) {
			found = append(found, d)
		}
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) == 0 && name == "":
		return nil, fmt.Errorf("no Deployment in the input")
	case len(found) == 0:
		return nil, fmt.Errorf("no Deployment %q in the input (it has %s)", name, b.names())
	}
	return nil, fmt.Errorf("the input has several Deployments (%s): name one", b.names())
}

func (b *Bundle) names() string {
	var n []string
	for _, d := range b.Deployments {
		n = append(n, d.Namespace+"/"+d.Name)
	}
	if len(n) == 0 {
		return "none"
	}
	return strings.Join(n, ", ")
}

// newest is the latest time the objects mention: a capture is judged at the
// moment it was taken, never against the clock of whoever reads it.
func newest(s *chain.Snapshot) time.Time {
	var t time.Time
	see := func(x time.Time) {
		if x.After(t) {
			t = x
		}
	}
	see(s.Workload().GetCreationTimestamp().Time)
	if d := s.Deployment; d != nil {
		for _, c := range d.Status.Conditions {
			see(c.LastUpdateTime.Time)
			see(c.LastTransitionTime.Time)
		}
	}
	if j := s.Job; j != nil {
		for _, c := range j.Status.Conditions {
			see(c.LastTransitionTime.Time)
		}
	}
	if cj := s.CronJob; cj != nil && cj.Status.LastScheduleTime != nil {
		see(cj.Status.LastScheduleTime.Time)
	}
	for _, rs := range s.ReplicaSets {
		see(rs.CreationTimestamp.Time)
	}
	for _, p := range s.Pods {
		see(p.CreationTimestamp.Time)
		for _, c := range p.Status.Conditions {
			see(c.LastTransitionTime.Time)
		}
		for _, sts := range [][]corev1.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses} {
			for _, st := range sts {
				if r := st.State.Running; r != nil {
					see(r.StartedAt.Time)
				}
				if tm := st.State.Terminated; tm != nil {
					see(tm.FinishedAt.Time)
				}
				if tm := st.LastTerminationState.Terminated; tm != nil {
					see(tm.FinishedAt.Time)
				}
			}
		}
	}
	for _, e := range s.Events {
		see(e.Last)
	}
	return t
}

// Pod finds a pod by name, in namespace (any namespace when empty).
func (b *Bundle) Pod(namespace, name string) (*corev1.Pod, bool) {
	for i := range b.podCount() {
		if ns, n, _ := b.podAt(i); n == name && (namespace == "" || ns == namespace) {
			if b.Packed != nil {
				p := b.pod(i)
				return &p, true
			}
			return &b.Pods[i], true
		}
	}
	return nil, false
}

// ReplicaSet finds a ReplicaSet by name, in namespace (any when empty).
func (b *Bundle) ReplicaSet(namespace, name string) (*appsv1.ReplicaSet, bool) {
	for i := range b.ReplicaSets {
		if rs := &b.ReplicaSets[i]; rs.Name == name && (namespace == "" || rs.Namespace == namespace) {
			return rs, true
		}
	}
	return nil, false
}

// serving gives the snapshot the Services and EndpointSlices the serving
// link reads, as the live reader would have kept them; the workload must
// be set.
func (b *Bundle) serving(s *chain.Snapshot) {
	if !chain.Serves(s.KindOf()) {
		return
	}
	s.ServicesRead = b.ServicesRead
	if tmpl := s.PodTemplate(); tmpl != nil {
		s.Services = s.ServingServices(b.servicesFor(s.Namespace, tmpl.Labels, s.Name, s.GoverningService()))
	}
	var at []int
	for _, n := range s.EndpointSliceOwners() {
		at = append(at, b.slicesOf(s.Namespace, n)...)
	}
	slices.Sort(at)
	for _, i := range slices.Compact(at) {
		s.EndpointSlices = append(s.EndpointSlices, b.EndpointSlices[i])
	}
	s.OtherPods = b.otherPods(s)
	if s.Served() {
		var pols []networkingv1.NetworkPolicy
		for i := range b.Policies {
			if b.Policies[i].Namespace == s.Namespace || b.Policies[i].Namespace == "" {
				pols = append(pols, b.Policies[i])
			}
		}
		s.NetworkPolicies = chain.PoliciesSelecting(pols, s.PodTemplate().Labels)
	}
}

// AddMeant takes the named Services of the bundle as meant for the
// workload of s (by --manifests membership): they, and their
// EndpointSlices, join the snapshot's, which may not have kept them.
func (b *Bundle) AddMeant(s *chain.Snapshot, names []string) {
	s.Meant = names
	for _, svc := range b.servicesIn(s.Namespace) {
		if !slices.Contains(names, svc.Name) || s.ServiceNamed(svc.Name) != nil {
			continue
		}
		s.Services = append(s.Services, svc)
		for _, i := range b.slicesOf(s.Namespace, svc.Name) {
			s.EndpointSlices = append(s.EndpointSlices, b.EndpointSlices[i])
		}
	}
}
