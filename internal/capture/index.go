package capture

import (
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// index finds a bundle's pods, ReplicaSets and events without scanning
// every list for every workload, which on a cluster of 2,000 Deployments,
// 20,000 pods and 100,000 events would cost billions of comparisons. It is
// built on the first read; the bundle's lists must not change after.
type index struct {
	once   sync.Once
	pods   labelIndex
	rss    labelIndex
	events map[chain.ObjectRef][]int // by kind and name, UID left empty
	// services are each namespace's Services (those of none, a capture's,
	// in every namespace's), and slices the EndpointSlices by namespace
	// and Service name ("ns\x00name").
	services map[string][]corev1.Service
	slices   map[string][]int
	// servicesBy are the positions in services[ns] by namespace and
	// selector pair ("ns\x00key=value") and by namespace and name
	// ("ns\x00\x00name").
	servicesBy map[string][]int
	// nsPods are the packed pods of the namespace podsIn decoded last.
	nsPods struct {
		sync.Mutex
		namespace string
		pods      []corev1.Pod
	}
}

// labelIndex holds a list's positions by namespace ("ns") and by
// namespace and label ("ns\x00key=value").
type labelIndex map[string][]int

func newLabelIndex[T any, P interface {
	*T
	metav1.Object
}](list []T) labelIndex {
	ix := labelIndex{}
	for i := range list {
		m := P(&list[i])
		ix.add(i, m.GetNamespace(), m.GetLabels())
	}
	return ix
}

// add puts position i of an object of namespace ns with labels set.
func (ix labelIndex) add(i int, ns string, set map[string]string) {
	ix[ns] = append(ix[ns], i)
	for k, v := range set {
		key := ns + "\x00" + k + "=" + v
		ix[key] = append(ix[key], i)
	}
}

// candidates are the positions of the objects of namespace the selector
// can match: those with its first matchLabels pair (in key order), or all
// of the namespace when it has none.
func (ix labelIndex) candidates(namespace string, ls *metav1.LabelSelector) []int {
	if ls == nil || len(ls.MatchLabels) == 0 {
		return ix[namespace]
	}
	keys := make([]string, 0, len(ls.MatchLabels))
	for k := range ls.MatchLabels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return ix[namespace+"\x00"+keys[0]+"="+ls.MatchLabels[keys[0]]]
}

func (b *Bundle) indexed() *index {
	if b.ix == nil {
		b.ix = &index{}
	}
	b.ix.once.Do(func() {
		b.ix.pods = labelIndex{}
		for i := range b.podCount() {
			ns, _, set := b.podAt(i)
			b.ix.pods.add(i, ns, set)
		}
		b.ix.rss = newLabelIndex(b.ReplicaSets)
		b.ix.events = map[chain.ObjectRef][]int{}
		for i, e := range b.Events {
			k := chain.ObjectRef{Kind: e.Object.Kind, Name: e.Object.Name}
			b.ix.events[k] = append(b.ix.events[k], i)
		}
		b.ix.services, b.ix.slices = map[string][]corev1.Service{}, map[string][]int{}
		b.ix.servicesBy = map[string][]int{}
		for i := range b.Services {
			svc := &b.Services[i]
			ns := svc.Namespace
			at := len(b.ix.services[ns])
			b.ix.services[ns] = append(b.ix.services[ns], *svc)
			for k, v := range svc.Spec.Selector {
				key := ns + "\x00" + k + "=" + v
				b.ix.servicesBy[key] = append(b.ix.servicesBy[key], at)
			}
			key := ns + "\x00\x00" + svc.Name
			b.ix.servicesBy[key] = append(b.ix.servicesBy[key], at)
		}
		for i := range b.EndpointSlices {
			sl := &b.EndpointSlices[i]
			k := sl.Namespace + "\x00" + sl.Labels[discoveryv1.LabelServiceName]
			b.ix.slices[k] = append(b.ix.slices[k], i)
		}
	})
	return b.ix
}

// matchingIn are the objects at positions cand of list in namespace that
// the selector matches; none for a nil or empty selector, which the API
// would not accept.
func matchingIn[T any, P interface {
	*T
	metav1.Object
}](list []T, cand []int, namespace string, ls *metav1.LabelSelector) []T {
	at := selected(cand, namespace, ls, func(i int) (string, map[string]string) {
		m := P(&list[i])
		return m.GetNamespace(), m.GetLabels()
	})
	if len(at) == 0 {
		return nil
	}
	out := make([]T, len(at))
	for j, i := range at {
		out[j] = list[i]
	}
	return out
}

// selected are the positions of cand whose object (where and how it is
// labelled, by of) is in namespace and matches the selector; none for a
// nil or empty selector. The positions come first, then one slice of the
// size: appending whole pods would copy each several times as it grows.
func selected(cand []int, namespace string, ls *metav1.LabelSelector, of func(int) (string, map[string]string)) []int {
	sel, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil || ls == nil || sel.Empty() {
		return nil
	}
	var at []int
	for _, i := range cand {
		if ns, set := of(i); ns == namespace && sel.Matches(labels.Set(set)) {
			at = append(at, i)
		}
	}
	return at
}

func (b *Bundle) podsMatching(namespace string, ls *metav1.LabelSelector) []corev1.Pod {
	return b.podsAt(selected(b.indexed().pods.candidates(namespace, ls), namespace, ls, func(i int) (string, map[string]string) {
		ns, _, set := b.podAt(i)
		return ns, set
	}))
}

// podsIn are the pods of a namespace. Packed pods are decoded once for
// the namespace last asked for: the targets are walked namespace by
// namespace, and each CronJob, Ingress or Service of it asks for them all.
func (b *Bundle) podsIn(namespace string) []corev1.Pod {
	if b.Packed == nil {
		return b.podsAt(b.indexed().pods[namespace])
	}
	ix := b.indexed()
	ix.nsPods.Lock()
	defer ix.nsPods.Unlock()
	if ix.nsPods.pods == nil || ix.nsPods.namespace != namespace {
		ix.nsPods.namespace, ix.nsPods.pods = namespace, b.podsAt(ix.pods[namespace])
	}
	return slices.Clone(ix.nsPods.pods)
}

// podsAt are the pods at positions at, in one slice of the size.
func (b *Bundle) podsAt(at []int) []corev1.Pod {
	if len(at) == 0 {
		return nil
	}
	out := make([]corev1.Pod, len(at))
	for j, i := range at {
		out[j] = b.pod(i)
	}
	return out
}

// eventsAbout are the bundle's events about any object s holds or its pods
// name as their controller, in the bundle's order: the only events
// chain.Concerning can keep, found without reading the others.
func (b *Bundle) eventsAbout(s *chain.Snapshot) []chain.Event {
	ix := b.indexed()
	keys := map[chain.ObjectRef]bool{}
	if w := s.Workload(); w != nil {
		keys[chain.ObjectRef{Kind: string(s.KindOf()), Name: w.GetName()}] = true
	}
	for _, rs := range s.ReplicaSets {
		keys[chain.ObjectRef{Kind: "ReplicaSet", Name: rs.Name}] = true
	}
	for _, j := range s.Jobs {
		keys[chain.ObjectRef{Kind: "Job", Name: j.Name}] = true
	}
	for _, c := range s.Claims {
		keys[chain.ObjectRef{Kind: "PersistentVolumeClaim", Name: c.Name}] = true
	}
	for _, svc := range s.Services {
		keys[chain.ObjectRef{Kind: "Service", Name: svc.Name}] = true
	}
	for i := range s.Pods {
		keys[chain.ObjectRef{Kind: "Pod", Name: s.Pods[i].Name}] = true
		if ref := metav1.GetControllerOf(&s.Pods[i]); ref != nil {
			keys[chain.ObjectRef{Kind: ref.Kind, Name: ref.Name}] = true
		}
	}
	var at []int
	for k := range keys {
		at = append(at, ix.events[k]...)
	}
	slices.Sort(at)
	out := make([]chain.Event, 0, len(at))
	for _, i := range at {
		out = append(out, b.Events[i])
	}
	return out
}

// servicesIn are the Services of namespace, with those that name none (a
// capture's objects may not), in the bundle's order.
// servicesFor are the Services of namespace that may be related to pods
// labelled podLabels (chain.RelationOf) or are named one of names, in
// servicesIn's order: those whose selector holds one of the labels, and
// the named. Any other is Unrelated to them: its selector is empty or
// holds none of the labels, so it neither selects the pods nor misses
// them by one label. Namespace-less Services (a capture's) are all kept.
func (b *Bundle) servicesFor(namespace string, podLabels map[string]string, names ...string) []corev1.Service {
	ix := b.indexed()
	if namespace == "" {
		return ix.services[""]
	}
	var at []int
	for k, v := range podLabels {
		at = append(at, ix.servicesBy[namespace+"\x00"+k+"="+v]...)
	}
	for _, n := range names {
		at = append(at, ix.servicesBy[namespace+"\x00\x00"+n]...)
	}
	slices.Sort(at)
	var out []corev1.Service
	for _, i := range slices.Compact(at) {
		out = append(out, ix.services[namespace][i])
	}
	return append(out, ix.services[""]...)
}

func (b *Bundle) servicesIn(namespace string) []corev1.Service {
	ix := b.indexed()
	if namespace == "" || len(ix.services[""]) == 0 {
		return ix.services[namespace]
	}
	return append(slices.Clone(ix.services[namespace]), ix.services[""]...)
}

// slicesOf are the EndpointSlices of the Service namespace/name (or of no
// namespace), in the bundle's order.
func (b *Bundle) slicesOf(namespace, name string) []int {
	ix := b.indexed()
	at := ix.slices[namespace+"\x00"+name]
	if namespace != "" {
		if more := ix.slices["\x00"+name]; len(more) > 0 {
			at = append(slices.Clone(at), more...)
			slices.Sort(at)
		}
	}
	return at
}
