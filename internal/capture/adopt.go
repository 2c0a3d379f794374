package capture

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Adopt puts every namespaced object of the bundle that names no namespace
// in ns, as `kubectl apply -f FILE -n ns` would create it: manifests as
// users keep them (and as kubectl get -o yaml of one object is often
// trimmed) leave the namespace to the command line. Objects of kinds the
// bundle cannot tell the scope of (Objects) keep theirs.
func (b *Bundle) Adopt(ns string) {
	if ns == "" {
		return
	}
	adopt(b.Deployments, ns)
	adopt(b.StatefulSets, ns)
	adopt(b.DaemonSets, ns)
	adopt(b.Jobs, ns)
	adopt(b.CronJobs, ns)
	adopt(b.ReplicaSets, ns)
	adopt(b.Revisions, ns)
	adopt(b.Claims, ns)
	adopt(b.Pods, ns)
	adopt(b.Services, ns)
	adopt(b.EndpointSlices, ns)
	adopt(b.Policies, ns)
	adopt(b.Autoscalers, ns)
	adopt(b.Ingresses, ns)
	adopt(b.Gateways, ns)
	adopt(b.Rollouts, ns)
	for _, r := range b.Routes {
		if r.Namespace == "" {
			r.Namespace = ns
		}
	}
}

// adopt sets ns on the objects of list that have none.
func adopt[T any, P interface {
	*T
	metav1.Object
}](list []T, ns string) {
	for i := range list {
		if m := P(&list[i]); m.GetNamespace() == "" {
			m.SetNamespace(ns)
		}
	}
}
