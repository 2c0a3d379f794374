package capture

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
		chain.KindDeployment: {
			read: func(b *Bundle, namespace string, ref chain.Ref) (*chain.Snapshot, error) {
				return b.Snapshot(namespace, ref.Name)
			},
			find: func(b *Bundle, ns, name string) metav1.Object { return object(find(b.Deployments, ns, name)) },
		},
		chain.KindRollout: {
			read: func(b *Bundle, namespace string, ref chain.Ref) (*chain.Snapshot, error) {
				return b.rollout(namespace, ref.Name)
			},
			find: func(b *Bundle, ns, name string) metav1.Object { return object(find(b.Rollouts, ns, name)) },
		},
		chain.KindStatefulSet: {
			ownClaims: true,
			find:      func(b *Bundle, ns, name string) metav1.Object { return object(find(b.StatefulSets, ns, name)) },
			owned: func(b *Bundle, s *chain.Snapshot) {
				if sel := s.StatefulSet.Spec.Selector; sel != nil {
					s.Claims = matching(b.Claims, s.StatefulSet.Namespace, &metav1.LabelSelector{MatchLabels: sel.MatchLabels})
				}
			},
		},
		chain.KindDaemonSet: {
			find:  func(b *Bundle, ns, name string) metav1.Object { return object(find(b.DaemonSets, ns, name)) },
			owned: func(b *Bundle, s *chain.Snapshot) { s.Nodes = b.Nodes },
		},
		chain.KindCloneSet: {
			find: func(b *Bundle, ns, name string) metav1.Object {
				for _, cs := range b.CloneSets {
					if cs.GetName() == name && (ns == "" || cs.GetNamespace() == ns) {
						return cs
					}
				}
				return nil
			},
		},
		chain.KindJob: {
			find: func(b *Bundle, ns, name string) metav1.Object { return object(find(b.Jobs, ns, name)) },
		},
		chain.KindCronJob: {
			find: func(b *Bundle, ns, name string) metav1.Object { return object(find(b.CronJobs, ns, name)) },
			owned: func(b *Bundle, s *chain.Snapshot) {
				for i := range b.Jobs {
					if metav1.IsControlledBy(&b.Jobs[i], s.CronJob) {
						s.Jobs = append(s.Jobs, b.Jobs[i])
					}
				}
				s.Pods = chain.CronJobRunPods(s.Jobs, b.podsIn(s.CronJob.Namespace))
			},
		},
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
