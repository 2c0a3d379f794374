package kube

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// maxSliceOwners is how many Services' EndpointSlices are asked for by
// name in one label selector; past it the namespace's slices are listed
// whole and kept by owner.
const maxSliceOwners = 20

// servicesAsync lists the namespace's Services while the workload is read:
// they do not depend on it, so the serving link costs a request and no
// round trip.
func (r *Reader) servicesAsync(ctx context.Context, ns string) <-chan listed[corev1.Service] {
	ch := make(chan listed[corev1.Service], 1)
	go func() {
		ch <- listing(func() ([]corev1.Service, string, error) {
			l, err := r.Client.CoreV1().Services(ns).List(ctx, metav1.ListOptions{})
			return itemsOf(l, err, func(l *corev1.ServiceList) []corev1.Service { return l.Items })
		})
	}()
	return ch
}

// settleServices keeps the Services the serving link reads; the workload
// must be set. A Services list that failed or was refused is a gap: the
// serving link says it could not judge, the other links are unaffected.
func (r *Reader) settleServices(snap *chain.Snapshot, svcs listed[corev1.Service]) error {
	snap.Requests += svcs.requests
	if err := settleServing(snap, chain.ResourceServices, svcs.err); err != nil || svcs.err != nil {
		return err
	}
	r.read.note("services", svcs.rv)
	snap.ServicesRead = true
	snap.Services = snap.ServingServices(svcs.items)
	for i := range snap.Services {
		snap.Services[i].ManagedFields = nil
	}
	return nil
}

// listSlices lists the EndpointSlices of the named Services (by the
// label the EndpointSlice controller puts on each slice), in the second
// round trip; none is asked when no Service needs them.
func (r *Reader) listSlices(ctx context.Context, ns string, owners []string) listed[discoveryv1.EndpointSlice] {
	opts := slicesOf(owners)
	l := listing(func() ([]discoveryv1.EndpointSlice, string, error) {
		l, err := r.Client.DiscoveryV1().EndpointSlices(ns).List(ctx, opts)
		return itemsOf(l, err, func(l *discoveryv1.EndpointSliceList) []discoveryv1.EndpointSlice { return l.Items })
	})
	want := map[string]bool{}
	for _, o := range owners {
		want[o] = true
	}
	kept := l.items[:0]
	for _, sl := range l.items {
		if want[sl.Labels[discoveryv1.LabelServiceName]] {
			sl.ManagedFields = nil
			kept = append(kept, sl)
		}
	}
	l.items = kept
	return l
}

// slicesOf selects the EndpointSlices of the named Services by the label
// the EndpointSlice controller puts on each; past maxSliceOwners, or for a
// name no label value can hold, it selects all and the caller keeps theirs.
func slicesOf(owners []string) metav1.ListOptions {
	if len(owners) > maxSliceOwners {
		return metav1.ListOptions{}
	}
	req, err := labels.NewRequirement(discoveryv1.LabelServiceName, selection.In, owners)
	if err != nil {
		return metav1.ListOptions{}
	}
	return metav1.ListOptions{LabelSelector: labels.NewSelector().Add(*req).String()}
}

// settleSlices records the EndpointSlices read in the second round trip.
func (r *Reader) settleSlices(snap *chain.Snapshot, slices listed[discoveryv1.EndpointSlice]) error {
	snap.Requests += slices.requests
	if err := settleServing(snap, chain.ResourceEndpointSlices, slices.err); err != nil || slices.err != nil {
		return err
	}
	snap.EndpointSlices = slices.items
	return nil
}

// settleServing is settle for the serving link's lists: like events, they
// are evidence of one link, so a failure the server gave (not the caller
// giving up) is a gap, never the end of the read.
func settleServing(snap *chain.Snapshot, res chain.Resource, err error) error {
	switch {
	case err == nil:
		return nil
	case apierrors.IsForbidden(err):
		snap.Gaps = append(snap.Gaps, chain.Gap{Resource: res, Verb: "list", Forbidden: true, Message: err.Error(),
			Check: canI("list", string(res), snap.Namespace)})
		return nil
	case ctxAlive(err):
		snap.Gaps = append(snap.Gaps, chain.Gap{Resource: res, Verb: "list", Message: err.Error()})
		return nil
	}
	return fmt.Errorf("listing %s of namespace %s: %w", res, snap.Namespace, err)
}

// listPolicies lists the namespace's NetworkPolicies, in the second round
// trip, when a Service selects the workload's pods (chain.Snapshot.Served).
func (r *Reader) listPolicies(ctx context.Context, ns string) listed[networkingv1.NetworkPolicy] {
	return listing(func() ([]networkingv1.NetworkPolicy, string, error) {
		l, err := r.Client.NetworkingV1().NetworkPolicies(ns).List(ctx, metav1.ListOptions{})
		return itemsOf(l, err, func(l *networkingv1.NetworkPolicyList) []networkingv1.NetworkPolicy { return l.Items })
	})
}

// settlePolicies keeps the NetworkPolicies that select the pods; a list
// that failed or was refused is a gap the serving link notes.
func (r *Reader) settlePolicies(snap *chain.Snapshot, pols listed[networkingv1.NetworkPolicy]) error {
	snap.Requests += pols.requests
	if err := settleServing(snap, chain.ResourceNetworkPolicies, pols.err); err != nil || pols.err != nil {
		return err
	}
	if tmpl := snap.PodTemplate(); tmpl != nil {
		snap.NetworkPolicies = chain.PoliciesSelecting(pols.items, tmpl.Labels)
	}
	for i := range snap.NetworkPolicies {
		snap.NetworkPolicies[i].ManagedFields = nil
	}
	return nil
}

// listOtherPods lists, for each near-miss Service (chain.NearMisses), one
// pod its selector picks that is not the workload's: in the second round
// trip, a request per such Service, and none in the usual case of none.
func (r *Reader) listOtherPods(ctx context.Context, snap *chain.Snapshot, sel labels.Selector) listed[corev1.Pod] {
	var out listed[corev1.Pod]
	for _, svc := range snap.NearMisses() {
		l := listing(func() ([]corev1.Pod, string, error) {
			l, err := r.Client.CoreV1().Pods(snap.Namespace).List(ctx, metav1.ListOptions{
				LabelSelector: labels.SelectorFromSet(svc.Spec.Selector).String(), Limit: 2})
			return itemsOf(l, err, func(l *corev1.PodList) []corev1.Pod { return l.Items })
		})
		out.requests += l.requests
		// A list that failed tells nothing: the EndpointSlices still do.
		for _, p := range l.items {
			if sel == nil || !sel.Matches(labels.Set(p.Labels)) {
				p.ManagedFields = nil
				out.items = append(out.items, p)
				break
			}
		}
	}
	return out
}
