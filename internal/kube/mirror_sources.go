package kube

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// store is one resource's objects in the order they came.
type store struct {
	keys []string
	vals map[string]any
}

func newStore() *store { return &store{vals: map[string]any{}} }

func (s *store) put(k string, v any) {
	if _, ok := s.vals[k]; !ok {
		s.keys = append(s.keys, k)
	}
	s.vals[k] = v
}

func (s *store) remove(k string) { delete(s.vals, k) }

// merge puts o's values after s's.
func (s *store) merge(o *store) {
	for _, k := range o.keys {
		if v, ok := o.vals[k]; ok {
			s.put(k, v)
		}
	}
}

// each visits the values in order, compacting deleted keys away.
func (s *store) each(f func(any)) {
	kept := s.keys[:0]
	for _, k := range s.keys {
		if v, ok := s.vals[k]; ok {
			kept = append(kept, k)
			f(v)
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
		m.SetManagedFields(nil)
		if a := m.GetAnnotations(); a != nil {
			delete(a, corev1.LastAppliedConfigAnnotation)
		}
	}
	switch v := o.(type) {
	case *appsv1.ControllerRevision:
		// Data (the revision's template) is kept for the change report.
	case *corev1.Node:
		v.Status.Images = nil
	case *corev1.Event:
		if !relevantKinds[v.InvolvedObject.Kind] {
			return nil, false
		}
		return chain.EventFromCore(v), true
	}
	return o, true
}

func keyOf(o runtime.Object) string {
	m, err := meta.Accessor(o)
	if err != nil {
		return ""
	}
	return m.GetNamespace() + "/" + m.GetName()
}

// sources are the resources of a scope: the workloads (and the traffic
// objects, trafficSources) first, then what they own (ReplicaSets only
// with Deployments, revisions, claims and nodes only with the StatefulSets
// or DaemonSets that need them, Services and EndpointSlices with any
// workload that serves or traffic object).
func (r *Reader) workloadSources(ns, selector string) []source {
	apps, batch := r.Client.AppsV1(), r.Client.BatchV1()
	bySel := metav1.ListOptions{LabelSelector: selector}
	return []source{
		{chain.ResourceDeployments, "deployments", typed(apps.Deployments(ns).List, func(l *appsv1.DeploymentList) []appsv1.Deployment { return l.Items }), apps.Deployments(ns).Watch, bySel, slim},
		{chain.ResourceStatefulSets, "statefulsets", typed(apps.StatefulSets(ns).List, func(l *appsv1.StatefulSetList) []appsv1.StatefulSet { return l.Items }), apps.StatefulSets(ns).Watch, bySel, slim},
		{chain.ResourceDaemonSets, "daemonsets", typed(apps.DaemonSets(ns).List, func(l *appsv1.DaemonSetList) []appsv1.DaemonSet { return l.Items }), apps.DaemonSets(ns).Watch, bySel, slim},
		{chain.ResourceCronJobs, "cronjobs", typed(batch.CronJobs(ns).List, func(l *batchv1.CronJobList) []batchv1.CronJob { return l.Items }), batch.CronJobs(ns).Watch, bySel, slim},
		// Jobs all, since a CronJob's Jobs need not carry its labels.
		{chain.ResourceJobs, "jobs", typed(batch.Jobs(ns).List, func(l *batchv1.JobList) []batchv1.Job { return l.Items }), batch.Jobs(ns).Watch, metav1.ListOptions{}, slim},
	}
}

func (r *Reader) ownedSources(ns string, deployments, sets, statefulSets, daemonSets, traffic bool) []source {
	apps, core, disc, net := r.Client.AppsV1(), r.Client.CoreV1(), r.Client.DiscoveryV1(), r.Client.NetworkingV1()
	all := metav1.ListOptions{}
	out := []source{
		{chain.ResourcePods, "pods", typed(core.Pods(ns).List, func(l *corev1.PodList) []corev1.Pod { return l.Items }), core.Pods(ns).Watch, all, slim},
	}
	if deployments {
		out = append(out, source{chain.ResourceReplicaSets, "replicasets", typed(apps.ReplicaSets(ns).List, func(l *appsv1.ReplicaSetList) []appsv1.ReplicaSet { return l.Items }), apps.ReplicaSets(ns).Watch, all, slim})
	}
	if sets {
		out = append(out, source{chain.ResourceControllerRevisions, "controllerrevisions", typed(apps.ControllerRevisions(ns).List, func(l *appsv1.ControllerRevisionList) []appsv1.ControllerRevision { return l.Items }), apps.ControllerRevisions(ns).Watch, all, slim})
	}
	if statefulSets {
		out = append(out, source{chain.ResourceClaims, "persistentvolumeclaims", typed(core.PersistentVolumeClaims(ns).List, func(l *corev1.PersistentVolumeClaimList) []corev1.PersistentVolumeClaim { return l.Items }), core.PersistentVolumeClaims(ns).Watch, all, slim})
	}
	if deployments || statefulSets || daemonSets || traffic {
		// The serving link's evidence: the Services, and the slices the
		// EndpointSlice controller writes for them; the traffic objects'
		// backends.
		out = append(out,
			source{chain.ResourceServices, "services", typed(core.Services(ns).List, func(l *corev1.ServiceList) []corev1.Service { return l.Items }), core.Services(ns).Watch, all, slim},
			source{chain.ResourceEndpointSlices, "endpointslices", typed(disc.EndpointSlices(ns).List, func(l *discoveryv1.EndpointSliceList) []discoveryv1.EndpointSlice { return l.Items }), disc.EndpointSlices(ns).Watch, all, slim},
			source{chain.ResourceNetworkPolicies, "networkpolicies", typed(net.NetworkPolicies(ns).List, func(l *networkingv1.NetworkPolicyList) []networkingv1.NetworkPolicy { return l.Items }), net.NetworkPolicies(ns).Watch, all, slim})
	}
	if daemonSets {
		out = append(out, source{chain.ResourceNodes, "nodes", typed(core.Nodes().List, func(l *corev1.NodeList) []corev1.Node { return l.Items }), core.Nodes().Watch, all, slim})
	}
	return out
}

func (r *Reader) eventSource(ns string) source {
	core := r.Client.CoreV1()
	return source{chain.ResourceEvents, "events", typed(core.Events(ns).List, func(l *corev1.EventList) []corev1.Event { return l.Items }), core.Events(ns).Watch, metav1.ListOptions{}, slim}
}
