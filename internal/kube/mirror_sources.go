package kube

import (
	"context"
	"slices"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/internal/capture"
)

// store is one resource's objects in the order they came.
type store struct {
	keys []string
	vals map[string]any
	// ver counts the changes; memo is the values as a slice (values,
	// objects), made at memoVer: a bundle made anew after a change
	// elsewhere shares this store's slice instead of copying it again.
	ver, memoVer int
	memo         any
}

func newStore() *store { return &store{vals: map[string]any{}} }

func (s *store) put(k string, v any) {
	if _, ok := s.vals[k]; !ok {
		s.keys = append(s.keys, k)
	}
	s.vals[k] = v
	s.ver++
}

func (s *store) remove(k string) {
	delete(s.vals, k)
	s.ver++
}

// memoized is the store's slice of type S made since the last change.
func memoized[S any](s *store) (S, bool) {
	v, ok := s.memo.(S)
	return v, ok && s.memoVer == s.ver
}

func (s *store) remember(v any) { s.memo, s.memoVer = v, s.ver }

// merge puts o's values after s's.
func (s *store) merge(o *store) {
	for _, k := range o.keys {
		if v, ok := o.vals[k]; ok {
			s.put(k, v)
		}
	}
}

// each visits the values in order, compacting deleted keys away.
func (s *store) each(f func(k string, v any)) {
	kept := s.keys[:0]
	for _, k := range s.keys {
		if v, ok := s.vals[k]; ok {
			kept = append(kept, k)
			f(k, v)
		}
	}
	s.keys = kept
}

// source is one resource a mirror reads.
type source struct {
	res      chain.Resource
	resource string // the API's name, for the watch
	list     func(context.Context, metav1.ListOptions) ([]runtime.Object, string, string, error)
	watch    func(context.Context, metav1.ListOptions) (watch.Interface, error)
	opts     metav1.ListOptions
	// keep turns an object into what the mirror holds, or says to drop it.
	keep func(runtime.Object) (any, bool)
}

// typed adapts a typed list call to a source.
func typed[L interface {
	GetContinue() string
	GetResourceVersion() string
}, T any, P interface {
	*T
	runtime.Object
}](list func(context.Context, metav1.ListOptions) (L, error), items func(L) []T) func(context.Context, metav1.ListOptions) ([]runtime.Object, string, string, error) {
	return func(ctx context.Context, o metav1.ListOptions) ([]runtime.Object, string, string, error) {
		l, err := list(ctx, o)
		if err != nil {
			return nil, "", "", err
		}
		all := items(l)
		out := make([]runtime.Object, len(all))
		for i := range all {
			out[i] = P(&all[i])
		}
		return out, l.GetContinue(), l.GetResourceVersion(), nil
	}
}

// slim drops what no walk reads before the object is kept.
func slim(o runtime.Object) (any, bool) {
	if m, err := meta.Accessor(o); err == nil {
		chain.KeepTemplateManagers(m) // who applied a template: the change report's
		if a := m.GetAnnotations(); a != nil {
			delete(a, corev1.LastAppliedConfigAnnotation)
		}
	}
	switch v := o.(type) {
	case *appsv1.ControllerRevision:
		// Data (the revision's template) is kept for the change report.
	case *corev1.Node:
		v.Status.Images = nil
	case *corev1.Pod:
		slimPod(v)
	case *corev1.Event:
		if !relevantKinds[v.InvolvedObject.Kind] {
			return nil, false
		}
		return chain.EventFromCore(v), true
	}
	return o, true
}

// slimPod drops what a pod holds that no walk reads, a fifth of what
// 20,000 pods keep: the service account's projected token volume the
// API server adds to every pod, and the status's per-container runtime
// fields (IDs, users, resources, mounts) and its IP lists (PodIP and
// HostIP stay).
func slimPod(p *corev1.Pod) {
	var gone []string
	p.Spec.Volumes = slices.DeleteFunc(p.Spec.Volumes, func(v corev1.Volume) bool {
		if v.Projected != nil && strings.HasPrefix(v.Name, "kube-api-access-") {
			gone = append(gone, v.Name)
			return true
		}
		return false
	})
	unmount := func(cs []corev1.Container) {
		for i := range cs {
			cs[i].VolumeMounts = slices.DeleteFunc(cs[i].VolumeMounts, func(m corev1.VolumeMount) bool { return slices.Contains(gone, m.Name) })
		}
	}
	unmount(p.Spec.InitContainers)
	unmount(p.Spec.Containers)
	p.Status.PodIPs, p.Status.HostIPs = nil, nil
	for _, ss := range [][]corev1.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses, p.Status.EphemeralContainerStatuses} {
		for i := range ss {
			c := &ss[i]
			c.ImageID, c.ContainerID = "", ""
			c.VolumeMounts, c.User, c.AllocatedResources, c.Resources, c.AllocatedResourcesStatus = nil, nil, nil, nil, nil
		}
	}
}

// packing keeps each pod slimmed and packed (capture.PackedPod): of the
// 20,000 pods of a big cluster, what the mirror holds is their encoding,
// not their Go types.
func packing() func(runtime.Object) (any, bool) {
	var (
		mu     sync.Mutex
		shared capture.Labels
	)
	return func(o runtime.Object) (any, bool) {
		v, ok := slim(o)
		p, isPod := v.(*corev1.Pod)
		if !ok || !isPod {
			return v, ok
		}
		mu.Lock()
		defer mu.Unlock()
		packed, err := capture.Pack(p, &shared)
		if err != nil {
			return nil, false // a pod decoded from the API always encodes
		}
		return &packed, true
	}
}

func keyOf(o runtime.Object) string {
	m, err := meta.Accessor(o)
	if err != nil {
		return ""
	}
	return m.GetNamespace() + "/" + m.GetName()
}

// workloadSources are the workloads of a scope, one source per workload
// kind of the kinds table: a built-in kind through the typed client, a
// kind a CRD serves (Argo Rollouts, OpenKruise CloneSets) through the
// dynamic client, where the cluster serves it (none, silently, where it
// does not). They match the selector, but a kind listed whole.
func (r *Reader) workloadSources(ns, selector string) []source {
	bySel := metav1.ListOptions{LabelSelector: selector}
	var out []source
	for _, row := range chain.KindTable() {
		if row.Class != chain.ClassWorkload {
			continue
		}
		opts := bySel
		if rec, _ := recipeOf(row.Kind); rec.listedWhole {
			opts = metav1.ListOptions{}
		}
		if !row.CRD {
			out = append(out, r.sourceOf(chain.Resource(row.Kind.Plural()), ns, opts))
			continue
		}
		dc, err := r.dynamicOf()
		if err != nil {
			continue
		}
		keep := func(o runtime.Object) (any, bool) {
			u, ok := o.(*unstructured.Unstructured)
			if !ok {
				return nil, false
			}
			obj, err := row.Decode(u)
			if err != nil {
				return nil, false
			}
			chain.KeepTemplateManagers(obj)
			return obj, true
		}
		out = append(out, dynamicSource(dc, chain.Resource(row.Kind.Plural()), gvrOf(row.API()), ns, opts, keep))
	}
	return out
}

// ownedSources are what the workloads own: the pods; each kind's own
// evidence (its recipe's mirror: ReplicaSets only with Deployments or
// Rollouts, revisions, claims and nodes only with the StatefulSets or
// DaemonSets that need them); the Services, EndpointSlices and
// NetworkPolicies with any workload that serves, or a traffic object.
// held says the mirror holds objects of a kind.
func (r *Reader) ownedSources(ns string, held func(chain.Kind) bool, traffic bool) []source {
	all := metav1.ListOptions{}
	pods := r.sourceOf(chain.ResourcePods, ns, all)
	pods.keep = packing()
	out := []source{pods}
	var want []chain.Resource
	serves := traffic
	for _, row := range chain.KindTable() {
		if row.Class != chain.ClassWorkload || !held(row.Kind) {
			continue
		}
		rec, _ := recipeOf(row.Kind)
		for _, res := range rec.mirror {
			if !slices.Contains(want, res) {
				want = append(want, res)
			}
		}
		serves = serves || row.Serves()
	}
	if serves {
		// The serving link's evidence: the Services, and the slices the
		// EndpointSlice controller writes for them; the traffic objects'
		// backends.
		want = append(want, chain.ResourceServices, chain.ResourceEndpointSlices, chain.ResourceNetworkPolicies)
	}
	for _, res := range want {
		out = append(out, r.sourceOf(res, ns, all))
	}
	return out
}

func (r *Reader) eventSource(ns string) source {
	return r.sourceOf(chain.ResourceEvents, ns, metav1.ListOptions{})
}
