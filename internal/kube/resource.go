package kube

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// maxOwned bounds the owned workloads whose chains a resource's read
// follows.
const maxOwned = 5

// APIKey is the key of Reader.APIs: a resource Ref's group and kind.
func APIKey(ref chain.Ref) string { return ref.Group + "/" + string(ref.Kind) }

// readResource reads an object of a resource kind (chain.IsResource),
// where discovery said it is served (r.APIs), in one round trip with the
// namespace's workloads and the object's events; then, in a second, the
// workloads it owns, each with its own chain's reads.
func (r *Reader) readResource(ctx context.Context, namespace string, ref chain.Ref) (*chain.Snapshot, error) {
	api, ok := r.APIs[APIKey(ref)]
	if !ok {
		return nil, fmt.Errorf("%s: its resource was not resolved through discovery", ref)
	}
	dc, err := r.dynamicOf()
	if err != nil {
		return nil, err
	}
	snap := &chain.Snapshot{Kind: ref.Kind, Namespace: namespace, Name: ref.Name, API: &api}
	gvr := schema.GroupVersionResource{Group: api.Group, Version: api.Version, Resource: api.Resource}
	var (
		wg   sync.WaitGroup
		w    ownerCandidates
		evs  []corev1.Event
		eErr error
	)
	if api.Namespaced {
		w.start(ctx, r, &wg, namespace)
	}
	if api.Namespaced {
		wg.Go(func() {
			evs, eErr = r.eventsOf(ctx, namespace, []chain.ObjectRef{{Kind: api.Kind, Name: ref.Name}})
		})
	}
	var obj *unstructured.Unstructured
	if api.Namespaced {
		obj, err = dc.Resource(gvr).Namespace(namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	} else {
		obj, err = dc.Resource(gvr).Get(ctx, ref.Name, metav1.GetOptions{})
	}
	snap.Requests++
	wg.Wait()
	if err != nil {
		return nil, getError(ref.Kind.Resource(), api.Type(), namespace, ref.Name, err)
	}
	snap.Object = obj
	if m, n := r.missingRef(ctx, namespace, obj); n > 0 {
		snap.Requests += n
		if m != "" {
			snap.Missing = []string{m}
		}
	}
	if !api.Namespaced {
		snap.Namespace = ""
		snap.Now = r.now()
		return snap, nil
	}
	snap.Requests += w.requests() + 1
	of := fmt.Sprintf("of %s %s/%s", api.Type(), namespace, ref.Name)
	if err := errors.Join(settle(snap, chain.ResourceEvents, of, eErr), w.settle(snap, of)); err != nil {
		return nil, err
	}
	for i := range evs {
		snap.Events = append(snap.Events, chain.EventFromCore(&evs[i]))
	}
	sort.SliceStable(snap.Events, func(i, j int) bool { return snap.Events[i].Last.Before(snap.Events[j].Last) })
	owned := w.ownedBy(obj.GetUID())
	if r.Apart != nil {
		owned = slices.DeleteFunc(owned, func(ref chain.Ref) bool {
			if r.Apart(namespace, ref) {
				snap.OwnedApart = append(snap.OwnedApart, ref)
				return true
			}
			return false
		})
	}
	if len(owned) > maxOwned {
		owned = owned[:maxOwned]
	}
	if err := r.readRefs(ctx, snap, owned); err != nil {
		return nil, err
	}
	snap.Now = r.now()
	return snap, nil
}

// ownerCandidates are the namespace's workloads, any of which the object
// may own.
type ownerCandidates struct {
	deps listed[appsv1.Deployment]
	stss listed[appsv1.StatefulSet]
	dss  listed[appsv1.DaemonSet]
	jobs listed[batchv1.Job]
	cjs  listed[batchv1.CronJob]
	// pods: an operator may make pods itself (OpenKruise's CloneSet).
	pods listed[corev1.Pod]
}

func (w *ownerCandidates) start(ctx context.Context, r *Reader, wg *sync.WaitGroup, ns string) {
	r.startTemplateLists(ctx, wg, ns, &w.deps, &w.stss, &w.dss)
	batch, all := r.Client.BatchV1(), metav1.ListOptions{}
	wg.Go(func() {
		w.jobs = listing(func() ([]batchv1.Job, string, error) {
			l, err := batch.Jobs(ns).List(ctx, all)
			return itemsOf(l, err, func(l *batchv1.JobList) []batchv1.Job { return l.Items })
		})
	})
	wg.Go(func() {
		w.cjs = listing(func() ([]batchv1.CronJob, string, error) {
			l, err := batch.CronJobs(ns).List(ctx, all)
			return itemsOf(l, err, func(l *batchv1.CronJobList) []batchv1.CronJob { return l.Items })
		})
	})
	wg.Go(func() {
		w.pods = listing(func() ([]corev1.Pod, string, error) {
			l, err := r.Client.CoreV1().Pods(ns).List(ctx, all)
			return itemsOf(l, err, func(l *corev1.PodList) []corev1.Pod { return l.Items })
		})
	})
}

func (w *ownerCandidates) requests() int {
	return w.deps.requests + w.stss.requests + w.dss.requests + w.jobs.requests + w.cjs.requests + w.pods.requests
}

// settle records a forbidden list as a gap: the owned link is then
// unknown for that kind, not silently empty.
func (w *ownerCandidates) settle(snap *chain.Snapshot, of string) error {
	return errors.Join(
		settle(snap, chain.ResourceDeployments, of, w.deps.err),
		settle(snap, chain.ResourceStatefulSets, of, w.stss.err),
		settle(snap, chain.ResourceDaemonSets, of, w.dss.err),
		settle(snap, chain.ResourceJobs, of, w.jobs.err),
		settle(snap, chain.ResourceCronJobs, of, w.cjs.err),
		settle(snap, chain.ResourcePods, of, w.pods.err))
}

// ownedBy are the workloads whose ownerReferences name uid, by kind then
// name, then the pods it controls itself, those not ready first.
func (w *ownerCandidates) ownedBy(uid types.UID) []chain.Ref {
	return append(w.workloadsOf(uid), chain.PodsControlledBy(w.pods.items, uid)...)
}

// workloadsOf are the workloads whose ownerReferences name uid, by kind
// then name.
func (w *ownerCandidates) workloadsOf(uid types.UID) []chain.Ref {
	var out []chain.Ref
	add := func(kind chain.Kind, o metav1.Object) {
		for _, ref := range o.GetOwnerReferences() {
			if ref.UID == uid {
				out = append(out, chain.Ref{Kind: kind, Name: o.GetName()})
				return
			}
		}
	}
	for i := range w.deps.items {
		add(chain.KindDeployment, &w.deps.items[i])
	}
	for i := range w.stss.items {
		add(chain.KindStatefulSet, &w.stss.items[i])
	}
	for i := range w.dss.items {
		add(chain.KindDaemonSet, &w.dss.items[i])
	}
	for i := range w.jobs.items {
		add(chain.KindJob, &w.jobs.items[i])
	}
	for i := range w.cjs.items {
		add(chain.KindCronJob, &w.cjs.items[i])
	}
	return out
}
