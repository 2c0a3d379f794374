package capture

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// selection is how a bundle selects the snapshot of one kind of the kinds
// table (chain.KindTable) with what the live reader reads for it: Read
// dispatches on the kind here and nowhere else, and
// TestEveryKindIsSelected fails on a row without one.
type selection struct {
	// read selects a kind with a selection of its own (a Deployment, a
	// Rollout, a traffic kind); nil selects it the common way (own).
	read func(b *Bundle, namespace string, ref chain.Ref) (*chain.Snapshot, error)
	// find is the bundle's object of the kind, nil when it has none.
	find func(b *Bundle, namespace, name string) metav1.Object
	// objects are, for a workload kind, the bundle's objects of the kind,
	// and set replaces them (the -A mirror fills a bundle that way).
	objects func(b *Bundle) []metav1.Object
	set     func(b *Bundle, objs []metav1.Object)
	// owned adds, the common way, the kind's own evidence beside its pods
	// (a StatefulSet's claims, a DaemonSet's nodes, a CronJob's Jobs and
	// their pods).
	owned func(b *Bundle, s *chain.Snapshot)
	// ownClaims says owned selects the kind's claims: no claims of
	// pending pods are added after.
	ownClaims bool
}

// selections are the bundle's selections, one per row of the kinds table.
// (A function, not a variable: the traffic selections read workloads
// through Read, which looks selections up.)
func selections() map[chain.Kind]selection {
	traffic := func(find func(b *Bundle, namespace, name string) metav1.Object) selection {
		return selection{read: (*Bundle).traffic, find: find}
	}
	route := func(k chain.Kind) func(b *Bundle, namespace, name string) metav1.Object {
		return func(b *Bundle, namespace, name string) metav1.Object {
			var obj metav1.Object
			for _, r := range b.Routes {
				if r.Kind == k && r.Name == name && (namespace == "" || r.Namespace == namespace) {
					obj = r
				}
			}
			return obj
		}
	}
	return map[chain.Kind]selection{
		chain.KindDeployment: workload(func(b *Bundle) *[]appsv1.Deployment { return &b.Deployments }, selection{
			read: func(b *Bundle, namespace string, ref chain.Ref) (*chain.Snapshot, error) {
				return b.Snapshot(namespace, ref.Name)
			},
		}),
		chain.KindRollout: workload(func(b *Bundle) *[]chain.Rollout { return &b.Rollouts }, selection{
			read: func(b *Bundle, namespace string, ref chain.Ref) (*chain.Snapshot, error) {
				return b.rollout(namespace, ref.Name)
			},
		}),
		chain.KindStatefulSet: workload(func(b *Bundle) *[]appsv1.StatefulSet { return &b.StatefulSets }, selection{
			ownClaims: true,
			owned: func(b *Bundle, s *chain.Snapshot) {
				if sel := s.StatefulSet.Spec.Selector; sel != nil {
					s.Claims = matching(b.Claims, s.StatefulSet.Namespace, &metav1.LabelSelector{MatchLabels: sel.MatchLabels})
				}
			},
		}),
		chain.KindDaemonSet: workload(func(b *Bundle) *[]appsv1.DaemonSet { return &b.DaemonSets }, selection{
			owned: func(b *Bundle, s *chain.Snapshot) { s.Nodes = b.Nodes },
		}),
		chain.KindCloneSet: withFind(selection{
			objects: func(b *Bundle) []metav1.Object {
				out := make([]metav1.Object, len(b.CloneSets))
				for i, cs := range b.CloneSets {
					out[i] = cs
				}
				return out
			},
			set: func(b *Bundle, objs []metav1.Object) {
				b.CloneSets = nil
				for _, o := range objs {
					if u, ok := o.(*unstructured.Unstructured); ok {
						b.CloneSets = append(b.CloneSets, u)
					}
				}
			},
		}),
		chain.KindJob: workload(func(b *Bundle) *[]batchv1.Job { return &b.Jobs }, selection{}),
		chain.KindCronJob: workload(func(b *Bundle) *[]batchv1.CronJob { return &b.CronJobs }, selection{
			owned: func(b *Bundle, s *chain.Snapshot) {
				for i := range b.Jobs {
					if metav1.IsControlledBy(&b.Jobs[i], s.CronJob) {
						s.Jobs = append(s.Jobs, b.Jobs[i])
					}
				}
				s.Pods = chain.CronJobRunPods(s.Jobs, b.podsIn(s.CronJob.Namespace))
			},
		}),
		chain.KindPod: {
			find: func(b *Bundle, ns, name string) metav1.Object {
				if p, ok := b.Pod(ns, name); ok {
					return p
				}
				return nil
			},
		},
		chain.KindService:   traffic(func(b *Bundle, ns, name string) metav1.Object { return object(find(b.Services, ns, name)) }),
		chain.KindIngress:   traffic(func(b *Bundle, ns, name string) metav1.Object { return object(find(b.Ingresses, ns, name)) }),
		chain.KindGateway:   traffic(func(b *Bundle, ns, name string) metav1.Object { return object(find(b.Gateways, ns, name)) }),
		chain.KindHTTPRoute: traffic(route(chain.KindHTTPRoute)),
		chain.KindGRPCRoute: traffic(route(chain.KindGRPCRoute)),
		chain.KindTLSRoute:  traffic(route(chain.KindTLSRoute)),
	}
}

// workload completes sel, a workload kind's selection, with the bundle's
// list of the kind's objects (at).
func workload[T any, P interface {
	*T
	metav1.Object
}](at func(*Bundle) *[]T, sel selection) selection {
	sel.objects = func(b *Bundle) []metav1.Object {
		list := *at(b)
		out := make([]metav1.Object, len(list))
		for i := range list {
			out[i] = P(&list[i])
		}
		return out
	}
	sel.set = func(b *Bundle, objs []metav1.Object) {
		list := make([]T, 0, len(objs))
		for _, o := range objs {
			if p, ok := o.(P); ok {
				list = append(list, *p)
			}
		}
		*at(b) = list
	}
	sel.find = func(b *Bundle, namespace, name string) metav1.Object {
		return object[T, P](find[T, P](*at(b), namespace, name))
	}
	return sel
}

// withFind gives a selection with objects its find: the object of that
// name, in namespace ("" for any).
func withFind(sel selection) selection {
	sel.find = func(b *Bundle, namespace, name string) metav1.Object {
		for _, o := range sel.objects(b) {
			if o.GetName() == name && (namespace == "" || o.GetNamespace() == namespace) {
				return o
			}
		}
		return nil
	}
	return sel
}

// ObjectsOf are the bundle's objects of a workload kind of the kinds table,
// in the order they were read; none for another kind.
func (b *Bundle) ObjectsOf(k chain.Kind) []metav1.Object {
	if sel, ok := selections()[k]; ok && sel.objects != nil {
		return sel.objects(b)
	}
	return nil
}

// SetObjects replaces the bundle's objects of a workload kind of the kinds
// table with objs (of the row's type); false for another kind.
func (b *Bundle) SetObjects(k chain.Kind, objs []metav1.Object) bool {
	sel, ok := selections()[k]
	if !ok || sel.set == nil {
		return false
	}
	sel.set(b, objs)
	return true
}

// object is a found object as a metav1.Object, nil (not a typed nil) when
// none was found.
func object[T any, P interface {
	*T
	metav1.Object
}](p *T) metav1.Object {
	if p == nil {
		return nil
	}
	return P(p)
}

// selectionOf is the kind's selection; a kind of the kinds table without
// one is a programming error, never a silent fall into another walk.
func selectionOf(k chain.Kind) (selection, error) {
	if k == "" {
		k = chain.KindDeployment
	}
	sel, ok := selections()[k]
	if !ok {
		return selection{}, fmt.Errorf("kubectl chain has no selection from a capture for %s", k)
	}
	return sel, nil
}

// own selects, the common way, the snapshot of a kind kubectl chain walks
// by its own chain: the object, its revisions, the pods its selector
// matches, and what every walk reads beside them.
func (b *Bundle) own(namespace string, ref chain.Ref) (*chain.Snapshot, error) {
	sel, err := selectionOf(ref.Kind)
	if err != nil {
		return nil, err
	}
	if sel.read != nil {
		return sel.read(b, namespace, ref)
	}
	row, _ := chain.RowOf(ref.Kind)
	s := &chain.Snapshot{Kind: ref.Kind, Name: ref.Name, Namespace: namespace}
	obj := sel.find(b, namespace, ref.Name)
	if obj == nil {
		return nil, fmt.Errorf("no %s %q in the input (it has %s)", ref.Kind, ref.Name, refNames(b.Workloads("")))
	}
	row.Store(s, obj)
	if sel.owned != nil {
		sel.owned(b, s)
	}
	s.Namespace = obj.GetNamespace()
	for i := range b.Revisions {
		if metav1.IsControlledBy(&b.Revisions[i], obj) {
			s.Revisions = append(s.Revisions, b.Revisions[i])
		}
	}
	if ps := row.Selector(obj); ps != nil {
		s.Pods = b.podsMatching(s.Namespace, ps)
	}
	b.serving(s)
	b.autoscalers(s)
	if !sel.ownClaims {
		b.pendingClaims(s)
	}
	s.Assemble(nil, s.Pods, b.eventsAbout(s))
	b.goneNodes(s) // a DaemonSet holds every node already: none named
	b.clock(s)
	return s, nil
}
