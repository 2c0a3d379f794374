package kube

import (
	"context"
	"fmt"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// recipe is how the reader reads and follows one kind of the kinds table
// (chain.KindTable): Read and Watch dispatch on the kind here and nowhere
// else, and TestEveryKindHasARecipe fails on a row without one.
type recipe struct {
	// read reads a kind with a reader of its own (a Deployment, a Rollout,
	// a traffic kind); nil reads it the common way (readWorkload).
	read func(r *Reader, ctx context.Context, ns string, ref chain.Ref) (*chain.Snapshot, error)
	// get is the common way's GET of the object.
	get func(r *Reader, ctx context.Context, ns, name string) (metav1.Object, error)
	// owned starts, in the second round trip, the lists of the kind's own
	// evidence beside its pods and events (a StatefulSet's revisions and
	// claims, a DaemonSet's revisions and the nodes, a CronJob's Jobs).
	owned func(r *Reader, ctx context.Context, o *ownedLists)
	// follow are the kind's watches beside its object, its pods and its
	// events (a Deployment's ReplicaSets, a StatefulSet's claims, a
	// CronJob's Jobs); for a traffic kind, every watch.
	follow func(r *Reader, snap *chain.Snapshot, sel *metav1.LabelSelector, keep func(watch.Event) bool) []stream
	// traffic is what a traffic kind's read lists beside its object.
	traffic *trafficRecipe
	// mirror are the resources the -A mirror reads for the kind's own
	// evidence when it holds objects of the kind (a Deployment's
	// ReplicaSets, a DaemonSet's revisions and the nodes); its pods, and
	// a serving kind's Services, it reads anyway.
	mirror []chain.Resource
	// listedWhole says the mirror lists the kind whatever the label
	// selector: a CronJob's Jobs need not carry its labels.
	listedWhole bool
}

// trafficRecipe is the part of readTraffic that differs by traffic kind.
// Whether it reads what Services select (EndpointSlices, pods, workloads)
// is its chain's: only one with a selector link does.
type trafficRecipe struct {
	// get is the object's GET; dc is the dynamic client, for a Gateway
	// API kind.
	get func(r *Reader, ctx context.Context, dc dynamic.Interface, snap *chain.Snapshot, ns string, ref chain.Ref) (metav1.Object, error)
	// self: the object is itself the one Service it sends to.
	self bool
	// ingressClasses: the cluster's IngressClasses are listed.
	ingressClasses bool
	// gatewayAPI: read through the dynamic client, with the Gateways and
	// GatewayClasses.
	gatewayAPI bool
	// follows are what the verdict may change with beside the object.
	follows []string
}

// servingStreams are what a verdict that reaches the pods through Services
// may change with: the namespace's Services, slices, workloads, pods and
// events.
var servingStreams = []string{"services", "endpointslices", "deployments", "replicasets", "statefulsets", "daemonsets", "pods", "events"}

func trafficOf(get func(r *Reader, ctx context.Context, dc dynamic.Interface, snap *chain.Snapshot, ns string, ref chain.Ref) (metav1.Object, error), t trafficRecipe) recipe {
	t.get = get
	return recipe{read: (*Reader).readTraffic, follow: followTraffic, traffic: &t}
}

// typedGet is a traffic recipe's GET through a typed client.
func typedGet(get func(*Reader, context.Context, string, string) (metav1.Object, error)) func(*Reader, context.Context, dynamic.Interface, *chain.Snapshot, string, chain.Ref) (metav1.Object, error) {
	return func(r *Reader, ctx context.Context, _ dynamic.Interface, snap *chain.Snapshot, ns string, ref chain.Ref) (metav1.Object, error) {
		obj, err := get(r, ctx, ns, ref.Name)
		if err == nil {
			row, _ := chain.RowOf(ref.Kind)
			row.Store(snap, obj)
		}
		return obj, err
	}
}

// recipes are the read recipes, one per row of the kinds table. (A
// function, not a variable: the traffic recipes read workloads through
// Read, which looks recipes up.)
func recipes() map[chain.Kind]recipe {
	// A route follows its Gateways and classes too.
	route := trafficRecipe{gatewayAPI: true, follows: append([]string{"gateways", "gatewayclasses"}, servingStreams...)}
	return map[chain.Kind]recipe{
		chain.KindDeployment: {
			read: func(r *Reader, ctx context.Context, ns string, ref chain.Ref) (*chain.Snapshot, error) {
				return r.Snapshot(ctx, ns, ref.Name)
			},
			follow: followReplicaSets(chain.KindDeployment),
			mirror: []chain.Resource{chain.ResourceReplicaSets},
		},
		chain.KindRollout: {read: (*Reader).readRollout, follow: followReplicaSets(chain.KindRollout), mirror: []chain.Resource{chain.ResourceReplicaSets}},
		chain.KindStatefulSet: {get: getter((*Reader).statefulSets), owned: statefulSetLists, follow: followClaims,
			mirror: []chain.Resource{chain.ResourceControllerRevisions, chain.ResourceClaims}},
		chain.KindDaemonSet: {get: getter((*Reader).daemonSets), owned: daemonSetLists,
			mirror: []chain.Resource{chain.ResourceControllerRevisions, chain.ResourceNodes}},
		chain.KindCloneSet: {get: crdGet(chain.KindCloneSet, openKruiseNotInstalled)},
		chain.KindJob:      {get: getter((*Reader).jobs), listedWhole: true},
		chain.KindCronJob:  {get: getter((*Reader).cronJobs), owned: cronJobLists, follow: followRuns},
		chain.KindPod:      {get: getter((*Reader).pods)},
		chain.KindService:  trafficOf(typedGet(getter((*Reader).services)), trafficRecipe{self: true, follows: servingStreams}),
		chain.KindIngress:  trafficOf(typedGet(getter((*Reader).ingresses)), trafficRecipe{ingressClasses: true, follows: servingStreams}),
		// A Gateway's chain ends at the Gateway: no Service, no pod.
		chain.KindGateway:   trafficOf((*Reader).getGatewayTarget, trafficRecipe{gatewayAPI: true, follows: []string{"gatewayclasses", "events"}}),
		chain.KindHTTPRoute: trafficOf((*Reader).getGatewayTarget, route),
		chain.KindGRPCRoute: trafficOf((*Reader).getGatewayTarget, route),
		chain.KindTLSRoute:  trafficOf((*Reader).getGatewayTarget, route),
	}
}

// recipeOf is the kind's recipe; a kind of the kinds table without one is
// a programming error, never a silent fall into another walk.
func recipeOf(k chain.Kind) (recipe, error) {
	if k == "" {
		k = chain.KindDeployment
	}
	rec, ok := recipes()[k]
	if !ok {
		return recipe{}, fmt.Errorf("kubectl chain has no read recipe for %s", k)
	}
	return rec, nil
}

func (r *Reader) statefulSets(ns string) func(context.Context, string, metav1.GetOptions) (*appsv1.StatefulSet, error) {
	return r.Client.AppsV1().StatefulSets(ns).Get
}
func (r *Reader) daemonSets(ns string) func(context.Context, string, metav1.GetOptions) (*appsv1.DaemonSet, error) {
	return r.Client.AppsV1().DaemonSets(ns).Get
}
func (r *Reader) jobs(ns string) func(context.Context, string, metav1.GetOptions) (*batchv1.Job, error) {
	return r.Client.BatchV1().Jobs(ns).Get
}
func (r *Reader) cronJobs(ns string) func(context.Context, string, metav1.GetOptions) (*batchv1.CronJob, error) {
	return r.Client.BatchV1().CronJobs(ns).Get
}
func (r *Reader) services(ns string) func(context.Context, string, metav1.GetOptions) (*corev1.Service, error) {
	return r.Client.CoreV1().Services(ns).Get
}
func (r *Reader) ingresses(ns string) func(context.Context, string, metav1.GetOptions) (*networkingv1.Ingress, error) {
	return r.Client.NetworkingV1().Ingresses(ns).Get
}
func (r *Reader) pods(ns string) func(context.Context, string, metav1.GetOptions) (*corev1.Pod, error) {
	return r.Client.CoreV1().Pods(ns).Get
}

// getter is a recipe's GET through a typed client; a failed GET is a nil
// object, never a typed nil.
func getter[T metav1.Object](client func(*Reader, string) func(context.Context, string, metav1.GetOptions) (T, error)) func(*Reader, context.Context, string, string) (metav1.Object, error) {
	return func(r *Reader, ctx context.Context, ns, name string) (metav1.Object, error) {
		obj, err := client(r, ns)(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		return obj, nil
	}
}

// crdGet is a recipe's GET of a kind served by its CRD (an OpenKruise
// CloneSet) through the dynamic client, the object kept as the API
// returned it; a cluster without the CRD is a *NotServedError that says
// what is missing.
func crdGet(k chain.Kind, missing string) func(*Reader, context.Context, string, string) (metav1.Object, error) {
	return func(r *Reader, ctx context.Context, ns, name string) (metav1.Object, error) {
		dc, err := r.dynamicOf()
		if err != nil {
			return nil, err
		}
		row, _ := chain.RowOf(k)
		gvr := gvrOf(row.API())
		u, err := dc.Resource(gvr).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		switch {
		case err != nil && notServed(err):
			return nil, &NotServedError{Resource: gvr, Why: missing, Err: err}
		case err != nil:
			return nil, err
		}
		chain.KeepTemplateManagers(u)
		return u, nil
	}
}

// ownedLists is the second round trip's lists of a kind's own evidence:
// what a recipe's owned starts, and what Read settles after.
type ownedLists struct {
	wg     *sync.WaitGroup
	snap   *chain.Snapshot
	sel    *metav1.LabelSelector
	bySel  metav1.ListOptions
	selErr error
	pods   *listed[corev1.Pod]
	revs   listed[appsv1.ControllerRevision]
	claims listed[corev1.PersistentVolumeClaim]
	nodes  listed[corev1.Node]
	jobs   listed[batchv1.Job]
	// runs, ownClaims and allNodes say the kind listed its Jobs, its own
	// claims (no claims of pending pods to GET after), and every node (no
	// node gone to GET after).
	runs, ownClaims, allNodes bool
}

// revisions lists the namespace's ControllerRevisions the workload's
// selector matches.
func (r *Reader) revisions(ctx context.Context, o *ownedLists) {
	if o.selErr != nil {
		return
	}
	o.wg.Go(func() {
		o.revs = listing(func() ([]appsv1.ControllerRevision, string, error) {
			l, err := r.Client.AppsV1().ControllerRevisions(o.snap.Namespace).List(ctx, o.bySel)
			return itemsOf(l, err, func(l *appsv1.ControllerRevisionList) []appsv1.ControllerRevision { return l.Items })
		})
	})
}

func statefulSetLists(r *Reader, ctx context.Context, o *ownedLists) {
	r.revisions(ctx, o)
	o.ownClaims = true
	// The controller labels each claim with the selector's matchLabels
	// (stateful_set_utils.go getPersistentVolumeClaims).
	var claimSel metav1.ListOptions
	if o.sel != nil {
		claimSel.LabelSelector = labels.SelectorFromSet(o.sel.MatchLabels).String()
	}
	o.wg.Go(func() {
		o.claims = listing(func() ([]corev1.PersistentVolumeClaim, string, error) {
			l, err := r.Client.CoreV1().PersistentVolumeClaims(o.snap.Namespace).List(ctx, claimSel)
			return itemsOf(l, err, func(l *corev1.PersistentVolumeClaimList) []corev1.PersistentVolumeClaim { return l.Items })
		})
	})
}

func daemonSetLists(r *Reader, ctx context.Context, o *ownedLists) {
	r.revisions(ctx, o)
	o.allNodes = true
	o.wg.Go(func() {
		o.nodes = listing(func() ([]corev1.Node, string, error) {
			l, err := r.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{ResourceVersion: "0"})
			return itemsOf(l, err, func(l *corev1.NodeList) []corev1.Node { return l.Items })
		})
	})
}

// cronJobLists: which Jobs are a CronJob's runs is known once they are
// listed, so the namespace's Job pods come in the same round trip and are
// kept after: those of its newest and last finished Jobs.
func cronJobLists(r *Reader, ctx context.Context, o *ownedLists) {
	ns := o.snap.Namespace
	o.runs = true
	o.wg.Go(func() { *o.pods = r.listPods(ctx, ns, metav1.ListOptions{LabelSelector: chain.JobPodsSelector}) })
	o.wg.Go(func() {
		o.jobs = listing(func() ([]batchv1.Job, string, error) {
			l, err := r.Client.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{})
			return itemsOf(l, err, func(l *batchv1.JobList) []batchv1.Job { return l.Items })
		})
	})
}

// followReplicaSets follows a Deployment's or a Rollout's ReplicaSets.
func followReplicaSets(k chain.Kind) func(*Reader, *chain.Snapshot, *metav1.LabelSelector, func(watch.Event) bool) []stream {
	return func(r *Reader, snap *chain.Snapshot, sel *metav1.LabelSelector, _ func(watch.Event) bool) []stream {
		if snap.Workload() == nil {
			return nil
		}
		s, err := selectorOf(k, sel)
		if err != nil {
			return nil
		}
		return []stream{r.streamOf("replicasets", snap.Namespace, metav1.ListOptions{LabelSelector: s.String()}, nil)}
	}
}

// followClaims follows a StatefulSet's claims.
func followClaims(r *Reader, snap *chain.Snapshot, sel *metav1.LabelSelector, _ func(watch.Event) bool) []stream {
	if sel == nil {
		return nil
	}
	claims := metav1.ListOptions{LabelSelector: labels.SelectorFromSet(sel.MatchLabels).String()}
	return []stream{r.streamOf("persistentvolumeclaims", snap.Namespace, claims, nil)}
}

// followRuns: a CronJob's new run is a new Job with pods of a new
// selector, so the jobs and the pods named after the CronJob are followed.
func followRuns(r *Reader, snap *chain.Snapshot, _ *metav1.LabelSelector, keep func(watch.Event) bool) []stream {
	return []stream{r.streamOf("jobs", snap.Namespace, metav1.ListOptions{}, keep), r.streamOf("pods", snap.Namespace, metav1.ListOptions{}, keep)}
}

// followTraffic follows a traffic object with what its recipe says its
// verdict may change with.
func followTraffic(r *Reader, snap *chain.Snapshot, _ *metav1.LabelSelector, _ func(watch.Event) bool) []stream {
	ns := snap.Namespace
	streams := []stream{r.streamOf(resourceOf(snap.KindOf()), ns, byName(snap.Name), nil)}
	rec, _ := recipeOf(snap.KindOf())
	for _, res := range rec.traffic.follows {
		streams = append(streams, r.streamOf(res, ns, metav1.ListOptions{}, nil))
	}
	return streams
}
