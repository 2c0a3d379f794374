package kube

import (
	"context"
	"errors"
	"fmt"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Read reads the snapshot of any walked kind: a GET of the workload, then
// its pods, events and the kind's own evidence in parallel (ReplicaSets;
// a StatefulSet's revisions and claims; a DaemonSet's revisions and the
// nodes; a CronJob's Jobs, and the namespace's Job pods, of which those of
// its newest and last finished Jobs are kept).
// A pod no controller owns (chain.KindPod) costs its GET and the events.
func (r *Reader) Read(ctx context.Context, namespace string, ref chain.Ref) (*chain.Snapshot, error) {
	if ref.IsResource() {
		return r.readResource(ctx, namespace, ref)
	}
	rec, err := recipeOf(ref.Kind)
	if err != nil {
		return nil, err
	}
	if rec.read != nil {
		return rec.read(r, ctx, namespace, ref)
	}
	row, _ := chain.RowOf(ref.Kind)
	snap := &chain.Snapshot{Kind: ref.Kind, Namespace: namespace, Name: ref.Name}
	var svcs <-chan listed[corev1.Service]
	if row.Serves() {
		svcs = r.servicesAsync(ctx, namespace)
	}
	hpas := r.autoscalersAsync(ctx, namespace, ref.Kind)
	evs := r.eventsAsync(ctx, namespace)
	obj, err := rec.get(r, ctx, namespace, ref.Name)
	var sel *metav1.LabelSelector
	if err == nil {
		row.Store(snap, obj)
		sel = row.Selector(obj)
	}
	snap.Requests++
	// A CRD's kind is watched, and asked for, by its type with its group.
	resource := resourceOf(ref.Kind)
	if row.CRD {
		resource = row.API().Type()
	}
	if err != nil {
		if svcs != nil {
			<-svcs // sent in the same round trip: the read ends when both have
		}
		drain(hpas)
		drain(evs)
		var ns *NotServedError
		if errors.As(err, &ns) {
			return nil, err
		}
		return nil, getError(ref.Kind.Resource(), resource, namespace, ref.Name, err)
	}
	r.read.note(resource, obj.GetResourceVersion())
	if svcs != nil {
		if err := r.settleServices(snap, <-svcs); err != nil {
			drain(hpas)
			drain(evs)
			return nil, err
		}
	}
	if err := settleAutoscalers(snap, hpas); err != nil {
		drain(evs)
		return nil, err
	}
	if err := r.readOwned(ctx, snap, rec, obj, sel, evs); err != nil {
		return nil, err
	}
	snap.Now = r.now()
	return snap, nil
}

// resourceOf is the API resource of a kind ("statefulsets").
func resourceOf(k chain.Kind) string { return k.Plural() }

// readOwned is the second round trip of Read (and, for a CronJob, the
// third); first is the events' first page, asked for with the workload
// (eventsAsync).
func (r *Reader) readOwned(ctx context.Context, snap *chain.Snapshot, rec recipe, obj metav1.Object, sel *metav1.LabelSelector, first <-chan listed[chain.Event]) error {
	ns := snap.Namespace
	var (
		wg     sync.WaitGroup
		pods   listed[corev1.Pod]
		slices listed[discoveryv1.EndpointSlice]
		errs   []error
	)
	if owners := snap.EndpointSliceOwners(); len(owners) > 0 {
		wg.Go(func() { slices = r.listSlices(ctx, ns, owners) })
	}
	var pols listed[networkingv1.NetworkPolicy]
	if snap.Served() {
		wg.Go(func() { pols = r.listPolicies(ctx, ns) })
	}
	podSel, selErr := usable(sel)
	var others listed[corev1.Pod]
	if len(snap.NearMisses()) > 0 {
		wg.Go(func() { others = r.listOtherPods(ctx, snap, podSel) })
	}
	row, _ := chain.RowOf(snap.Kind)
	ownPods := row.SelectsPods()
	if !ownPods {
		selErr = nil
	}
	pods.items = snap.Pods // a pod walked alone is its own list
	if selErr != nil {
		msg := fmt.Sprintf("not listing the namespace: %v", selErr)
		snap.Gaps = append(snap.Gaps, chain.Gap{Resource: chain.ResourcePods, Verb: "list", Message: msg})
	}
	bySel := metav1.ListOptions{}
	if podSel != nil {
		bySel.LabelSelector = podSel.String()
	}
	if selErr == nil && ownPods {
		wg.Go(func() { pods = r.listPods(ctx, ns, bySel) })
	}
	o := &ownedLists{wg: &wg, snap: snap, sel: sel, bySel: bySel, selErr: selErr, pods: &pods}
	if rec.owned != nil {
		rec.owned(r, ctx, o)
	}
	events := r.eventsBesidePods(ctx, &wg, snap, first)
	wg.Wait()
	revs, claims, nodes, jobs := o.revs, o.claims, o.nodes, o.jobs
	of := fmt.Sprintf("of %s %s/%s", snap.Kind.Resource(), ns, snap.Name)
	if o.runs {
		errs = append(errs, settle(snap, chain.ResourceJobs, of, jobs.err))
		snap.Jobs = ownedJobs(jobs.items, obj)
		pods.items = chain.CronJobRunPods(snap.Jobs, pods.items)
	}
	if !o.ownClaims {
		// The claims its pods that wait to be scheduled use: a second
		// round trip, only then.
		claims = r.pendingClaims(ctx, ns, pods.items)
	}
	var assemble func()
	if pods.err == nil {
		assemble = func() {
			snap.Revisions, snap.Claims, snap.Nodes = ownedRevisions(revs.items, obj), claims.items, nodes.items
			snap.Assemble(nil, pods.items, nil)
		}
	}
	evs := events.read(ctx, snap, assemble)
	snap.Requests += pods.requests + evs.requests + revs.requests + claims.requests + nodes.requests + jobs.requests + others.requests
	snap.OtherPods = others.items
	errs = append(errs, r.settleSlices(snap, slices), r.settlePolicies(snap, pols))
	r.read.note("pods", pods.rv)
	r.read.note("events", evs.rv)
	errs = append(errs,
		settle(snap, chain.ResourcePods, of, pods.err),
		settle(snap, chain.ResourceEvents, of, evs.err),
		settle(snap, chain.ResourceControllerRevisions, of, revs.err),
		settle(snap, chain.ResourceClaims, of, claims.err),
		settleNodes(snap, nodes.err))
	if err := errors.Join(errs...); err != nil {
		return err
	}
	snap.Revisions, snap.Claims, snap.Nodes = ownedRevisions(revs.items, obj), claims.items, nodes.items
	for i := range snap.Nodes {
		slim(&snap.Nodes[i]) // images and managed fields: long, and not evidence
	}
	snap.Assemble(nil, pods.items, evs.items)
	if !o.allNodes {
		r.readGoneNodes(ctx, snap)
	}
	return nil
}

// settleNodes is settle for the one cluster-scoped list: a user with a
// namespace's RBAC only cannot list nodes, and the walk says so.
func settleNodes(snap *chain.Snapshot, err error) error {
	if err != nil && apierrors.IsForbidden(err) {
		snap.Gaps = append(snap.Gaps, chain.Gap{Resource: chain.ResourceNodes, Verb: "list", Forbidden: true,
			Message: err.Error(), Check: "kubectl auth can-i list nodes"})
		return nil
	}
	return settle(snap, chain.ResourceNodes, "for the daemonset", err)
}

// usable is a workload's label selector, refusing nil and empty ones: as a
// list option they would select every pod of the namespace.
func usable(s *metav1.LabelSelector) (labels.Selector, error) {
	if s == nil {
		return nil, errors.New("no spec.selector")
	}
	if len(s.MatchLabels)+len(s.MatchExpressions) == 0 {
		return nil, errors.New("an empty spec.selector")
	}
	return metav1.LabelSelectorAsSelector(s)
}

// listing runs one list call as a listed.
func listing[T any](call func() ([]T, string, error)) listed[T] {
	items, rv, err := call()
	return listed[T]{items: items, requests: 1, err: err, rv: rv}
}

// itemsOf unpacks a typed list.
func itemsOf[L interface{ GetResourceVersion() string }, T any](l L, err error, items func(L) []T) ([]T, string, error) {
	if err != nil {
		return nil, "", err
	}
	return items(l), l.GetResourceVersion(), nil
}

// ownedJobs keeps the Jobs the CronJob controls.
func ownedJobs(all []batchv1.Job, owner metav1.Object) []batchv1.Job {
	var out []batchv1.Job
	for i := range all {
		if metav1.IsControlledBy(&all[i], owner) {
			all[i].ManagedFields = nil
			out = append(out, all[i])
		}
	}
	return out
}

// ownedRevisions keeps the ControllerRevisions the workload controls.
func ownedRevisions(all []appsv1.ControllerRevision, owner metav1.Object) []appsv1.ControllerRevision {
	var out []appsv1.ControllerRevision
	for i := range all {
		if metav1.IsControlledBy(&all[i], owner) {
			// Data (the revision's template) is kept: the change report
			// compares it with the revision rolling out.
			all[i].ManagedFields = nil
			out = append(out, all[i])
		}
	}
	return out
}
