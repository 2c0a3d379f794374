package kube

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Permission is one API permission the reader uses: the verbs on one
// resource, and why.
type Permission struct {
	Group    string
	Resource string
	Verbs    []string
	// Cluster says the resource is cluster-scoped (nodes): a Role cannot
	// grant it.
	Cluster bool
	Why     string
}

// lister lists a resource through a typed client: its objects, the
// continue token and the list's resource version.
type lister func(context.Context, metav1.ListOptions) ([]runtime.Object, string, string, error)

// watcher watches a resource through a typed client.
type watcher func(context.Context, metav1.ListOptions) (watch.Interface, error)

// resourceRow is one API resource kubectl chain reads: its permission,
// and how to list and watch it. The watches (streamOf), the -A mirror's
// sources, Permissions and so `kubectl chain rbac` are all this one table;
// TestPermissionsCoverReads checks every request the reader makes is in it.
type resourceRow struct {
	Permission
	// typed are the resource's list and watch through the typed client,
	// in namespace ns (ignored for a cluster-scoped one); nil for a
	// resource read through the dynamic client (a CRD's).
	typed func(r *Reader, ns string) (lister, watcher)
}

// resourceTable is every resource kubectl chain reads, and no more: get,
// list and watch only; Secrets never.
var resourceTable = []resourceRow{
	{Permission{Group: "apps", Resource: "deployments", Verbs: []string{"get", "list", "watch"}, Why: "the Deployments walked, listed with -l, --all, -A, followed with --wait"},
		func(r *Reader, ns string) (lister, watcher) {
			c := r.Client.AppsV1().Deployments(ns)
			return typed(c.List, func(l *appsv1.DeploymentList) []appsv1.Deployment { return l.Items }), c.Watch
		}},
	{Permission{Group: "apps", Resource: "replicasets", Verbs: []string{"get", "list", "watch"}, Why: "a Deployment's ReplicaSets; rs/NAME"},
		func(r *Reader, ns string) (lister, watcher) {
			c := r.Client.AppsV1().ReplicaSets(ns)
			return typed(c.List, func(l *appsv1.ReplicaSetList) []appsv1.ReplicaSet { return l.Items }), c.Watch
		}},
	{Permission{Group: "apps", Resource: "statefulsets", Verbs: []string{"get", "list", "watch"}, Why: "the StatefulSets walked"},
		func(r *Reader, ns string) (lister, watcher) {
			c := r.Client.AppsV1().StatefulSets(ns)
			return typed(c.List, func(l *appsv1.StatefulSetList) []appsv1.StatefulSet { return l.Items }), c.Watch
		}},
	{Permission{Group: "apps", Resource: "daemonsets", Verbs: []string{"get", "list", "watch"}, Why: "the DaemonSets walked"},
		func(r *Reader, ns string) (lister, watcher) {
			c := r.Client.AppsV1().DaemonSets(ns)
			return typed(c.List, func(l *appsv1.DaemonSetList) []appsv1.DaemonSet { return l.Items }), c.Watch
		}},
	{Permission{Group: "apps", Resource: "controllerrevisions", Verbs: []string{"list", "watch"}, Why: "a StatefulSet's or DaemonSet's revisions; -A and -l read them as a watch-list"},
		func(r *Reader, ns string) (lister, watcher) {
			c := r.Client.AppsV1().ControllerRevisions(ns)
			return typed(c.List, func(l *appsv1.ControllerRevisionList) []appsv1.ControllerRevision { return l.Items }), c.Watch
		}},
	{Permission{Group: "batch", Resource: "jobs", Verbs: []string{"get", "list", "watch"}, Why: "the Jobs walked, and a CronJob's runs"},
		func(r *Reader, ns string) (lister, watcher) {
			c := r.Client.BatchV1().Jobs(ns)
			return typed(c.List, func(l *batchv1.JobList) []batchv1.Job { return l.Items }), c.Watch
		}},
	{Permission{Group: "batch", Resource: "cronjobs", Verbs: []string{"get", "list", "watch"}, Why: "the CronJobs walked"},
		func(r *Reader, ns string) (lister, watcher) {
			c := r.Client.BatchV1().CronJobs(ns)
			return typed(c.List, func(l *batchv1.CronJobList) []batchv1.CronJob { return l.Items }), c.Watch
		}},
	{Permission{Group: "", Resource: "pods", Verbs: []string{"get", "list", "watch"}, Why: "every workload's pods; pod/NAME"},
		func(r *Reader, ns string) (lister, watcher) {
			c := r.Client.CoreV1().Pods(ns)
			return typed(c.List, func(l *corev1.PodList) []corev1.Pod { return l.Items }), watchOf[corev1.Pod](r.Client.CoreV1(), "pods", ns, c.Watch)
		}},
	{Permission{Group: "", Resource: "events", Verbs: []string{"list", "watch"}, Why: "the scheduler's, kubelet's and controllers' events"},
		func(r *Reader, ns string) (lister, watcher) {
			c := r.Client.CoreV1().Events(ns)
			return typed(c.List, func(l *corev1.EventList) []corev1.Event { return l.Items }), watchOf[corev1.Event](r.Client.CoreV1(), "events", ns, c.Watch)
		}},
	{Permission{Group: "", Resource: "persistentvolumeclaims", Verbs: []string{"get", "list", "watch"}, Why: "a StatefulSet's claims; the claims of pods waiting to be scheduled (why they wait); pvc/NAME; the claims a capture adds"},
		func(r *Reader, ns string) (lister, watcher) {
			c := r.Client.CoreV1().PersistentVolumeClaims(ns)
			return typed(c.List, func(l *corev1.PersistentVolumeClaimList) []corev1.PersistentVolumeClaim { return l.Items }), c.Watch
		}},
	{Permission{Group: "", Resource: "resourcequotas", Verbs: []string{"list"}, Why: "the quotas a capture adds"},
		func(r *Reader, ns string) (lister, watcher) {
			c := r.Client.CoreV1().ResourceQuotas(ns)
			return typed(c.List, func(l *corev1.ResourceQuotaList) []corev1.ResourceQuota { return l.Items }), c.Watch
		}},
	{Permission{Group: "", Resource: "services", Verbs: []string{"get", "list", "watch"}, Why: "the Services that select a workload's pods (the serving link); svc/NAME"},
		func(r *Reader, ns string) (lister, watcher) {
			c := r.Client.CoreV1().Services(ns)
			return typed(c.List, func(l *corev1.ServiceList) []corev1.Service { return l.Items }), c.Watch
		}},
	{Permission{Group: "networking.k8s.io", Resource: "networkpolicies", Verbs: []string{"list", "watch"}, Why: "the NetworkPolicies that select a served workload's pods (a note on the serving link); -A and -l read them as a watch-list"},
		func(r *Reader, ns string) (lister, watcher) {
			c := r.Client.NetworkingV1().NetworkPolicies(ns)
			return typed(c.List, func(l *networkingv1.NetworkPolicyList) []networkingv1.NetworkPolicy { return l.Items }), c.Watch
		}},
	{Permission{Group: "autoscaling", Resource: "horizontalpodautoscalers", Verbs: []string{"list"}, Why: "the HorizontalPodAutoscalers of a Deployment, StatefulSet or Rollout (notes on stored when one cannot compute or scale)"},
		func(r *Reader, ns string) (lister, watcher) {
			c := r.Client.AutoscalingV2().HorizontalPodAutoscalers(ns)
			return typed(c.List, func(l *autoscalingv2.HorizontalPodAutoscalerList) []autoscalingv2.HorizontalPodAutoscaler {
				return l.Items
			}), c.Watch
		}},
	{Permission{Group: "networking.k8s.io", Resource: "ingresses", Verbs: []string{"get", "list", "watch"}, Why: "ing/NAME; its names for completion; -A, --all and -l judge them"},
		func(r *Reader, ns string) (lister, watcher) {
			c := r.Client.NetworkingV1().Ingresses(ns)
			return typed(c.List, func(l *networkingv1.IngressList) []networkingv1.Ingress { return l.Items }), c.Watch
		}},
	{Permission{Group: "networking.k8s.io", Resource: "ingressclasses", Verbs: []string{"list", "watch"}, Cluster: true, Why: "an Ingress's class and its controller (without it the class link says what it could not read); -A and -l read them as a watch-list"},
		func(r *Reader, _ string) (lister, watcher) {
			c := r.Client.NetworkingV1().IngressClasses()
			return typed(c.List, func(l *networkingv1.IngressClassList) []networkingv1.IngressClass { return l.Items }), c.Watch
		}},
	{Permission{Group: "gateway.networking.k8s.io", Resource: "gateways", Verbs: []string{"get", "list", "watch"}, Why: "gateway/NAME; a route's parent Gateways; followed with --wait"}, nil},
	{Permission{Group: "gateway.networking.k8s.io", Resource: "httproutes", Verbs: []string{"get", "list", "watch"}, Why: "httproute/NAME; its names for completion"}, nil},
	{Permission{Group: "gateway.networking.k8s.io", Resource: "grpcroutes", Verbs: []string{"get", "list", "watch"}, Why: "grpcroute/NAME; its names for completion"}, nil},
	{Permission{Group: "gateway.networking.k8s.io", Resource: "tlsroutes", Verbs: []string{"get", "list", "watch"}, Why: "tlsroute/NAME; its names for completion"}, nil},
	{Permission{Group: "argoproj.io", Resource: "rollouts", Verbs: []string{"get", "list", "watch"}, Why: "rollout/NAME; -A, --all and a release's namespaces list them beside the Deployments; followed with --wait"}, nil},
	{Permission{Group: "apps.kruise.io", Resource: "clonesets", Verbs: []string{"get", "list", "watch"}, Why: "clone/NAME (an OpenKruise CloneSet); its names for completion; -A, --all and -l list them, and a Service's or an operator's read when it may select or own one; followed with --wait"}, nil},
	{Permission{Group: "argoproj.io", Resource: "applications", Verbs: []string{"get", "list"}, Why: "the Argo CD Application that applied a revision that broke: its repository and the revision synced (a GET for one workload, one list for many); read only when a revision broke"}, nil},
	{Permission{Group: "kustomize.toolkit.fluxcd.io", Resource: "kustomizations", Verbs: []string{"get", "list"}, Why: "the Flux Kustomization that applied a revision that broke: its last applied revision and source (a GET for one workload, one list for many)"}, nil},
	{Permission{Group: "helm.toolkit.fluxcd.io", Resource: "helmreleases", Verbs: []string{"get", "list"}, Why: "the Flux HelmRelease that applied a revision that broke: its chart, revision and source (a GET for one workload, one list for many)"}, nil},
	{Permission{Group: "cert-manager.io", Resource: "issuers", Verbs: []string{"get"}, Why: "whether the Issuer a Certificate names exists (the Certificate, and the pods waiting for its Secret)"}, nil},
	{Permission{Group: "cert-manager.io", Resource: "clusterissuers", Verbs: []string{"get"}, Cluster: true, Why: "whether the ClusterIssuer a Certificate names exists"}, nil},
	{Permission{Group: "gateway.networking.k8s.io", Resource: "gatewayclasses", Verbs: []string{"list", "watch"}, Cluster: true, Why: "a Gateway's class and whether a controller accepted it (without it the class link says what it could not read)"}, nil},
	{Permission{Group: "discovery.k8s.io", Resource: "endpointslices", Verbs: []string{"list", "watch"}, Why: "the EndpointSlices of those Services: are the ready pods ready endpoints"},
		func(r *Reader, ns string) (lister, watcher) {
			c := r.Client.DiscoveryV1().EndpointSlices(ns)
			return typed(c.List, func(l *discoveryv1.EndpointSliceList) []discoveryv1.EndpointSlice { return l.Items }), c.Watch
		}},
	{Permission{Group: "", Resource: "nodes", Verbs: []string{"get", "list", "watch"}, Cluster: true, Why: "which nodes should run a DaemonSet's pod; the Ready condition of a node that went away under a pod; the nodes a capture adds (without it those links say what they could not read)"},
		func(r *Reader, _ string) (lister, watcher) {
			c := r.Client.CoreV1().Nodes()
			return typed(c.List, func(l *corev1.NodeList) []corev1.Node { return l.Items }), c.Watch
		}},
}

// Permissions are every verb on every resource kubectl-chain uses: the
// resource table's.
var Permissions = func() []Permission {
	out := make([]Permission, len(resourceTable))
	for i, r := range resourceTable {
		out[i] = r.Permission
	}
	return out
}()

// resourceRowOf is the table's row of a resource ("pods"), false for one
// kubectl chain does not read.
func resourceRowOf(res string) (resourceRow, bool) {
	for _, r := range resourceTable {
		if r.Resource == res {
			return r, true
		}
	}
	return resourceRow{}, false
}

// sourceOf is the mirror's source of a resource of the table read through
// the typed client, listed and watched with opts.
func (r *Reader) sourceOf(res chain.Resource, ns string, opts metav1.ListOptions) source {
	row, _ := resourceRowOf(string(res))
	list, watch := row.typed(r, ns)
	return source{res: res, resource: string(res), list: list, watch: watch, opts: opts, keep: slim}
}
