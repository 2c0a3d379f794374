package kube

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// maxBehind bounds the workloads whose own chains a traffic read follows:
// each costs its two round trips (in parallel with the others).
const maxBehind = 3

// readTraffic reads a Service's or an Ingress's snapshot. One round trip
// GETs the object beside everything that does not depend on it: the
// namespace's Services (an Ingress's backends are among them), the
// EndpointSlices (a Service's, by the controller's label; an Ingress's
// namespace's), pods, events, Deployments, StatefulSets and DaemonSets
// (whose templates the Services may select) and, for an Ingress, the
// cluster's IngressClasses. Then, only when a Service it sends to lacks a
// ready endpoint or a ready pod, the workloads it selects are read as
// their own targets are (Read), in parallel: their chains say why.
func (r *Reader) readTraffic(ctx context.Context, namespace string, ref chain.Ref) (*chain.Snapshot, error) {
	snap := &chain.Snapshot{Kind: ref.Kind, Namespace: namespace, Name: ref.Name}
	core, net := r.Client.CoreV1(), r.Client.NetworkingV1()
	var (
		wg      sync.WaitGroup
		svcs    listed[corev1.Service]
		eps     listed[discoveryv1.EndpointSlice]
		pods    listed[corev1.Pod]
		evs     listed[chain.Event]
		tmpls   = &kindLists{}
		classes listed[networkingv1.IngressClass]
		gw      gatewayReads
		dc      dynamic.Interface
	)
	rec, err := recipeOf(ref.Kind)
	if err != nil || rec.traffic == nil {
		return nil, fmt.Errorf("kubectl chain does not walk %s as traffic", ref.Kind)
	}
	t := rec.traffic
	if t.gatewayAPI {
		if dc, err = r.dynamicOf(); err != nil {
			return nil, err
		}
		r.startGatewayReads(ctx, &wg, dc, namespace, ref.Kind, &gw)
	}
	// Only a chain with a selector link reaches pods through Services.
	serves := slices.Contains(chain.ChainOf(ref.Kind), chain.LinkSelector)
	slicesOpts := metav1.ListOptions{}
	if t.self {
		slicesOpts = slicesOf([]string{ref.Name})
	} else if serves {
		wg.Go(func() {
			svcs = listing(func() ([]corev1.Service, string, error) {
				l, err := core.Services(namespace).List(ctx, metav1.ListOptions{})
				return itemsOf(l, err, func(l *corev1.ServiceList) []corev1.Service { return l.Items })
			})
		})
	}
	if t.ingressClasses {
		wg.Go(func() {
			classes = listing(func() ([]networkingv1.IngressClass, string, error) {
				l, err := net.IngressClasses().List(ctx, metav1.ListOptions{ResourceVersion: "0"})
				return itemsOf(l, err, func(l *networkingv1.IngressClassList) []networkingv1.IngressClass { return l.Items })
			})
		})
	}
	wg.Go(func() { evs = r.listEvents(ctx, namespace, metav1.ListOptions{}) })
	if serves {
		tmpls = r.startServingReads(ctx, &wg, namespace, slicesOpts, &eps, &pods)
	}
	obj, err := t.get(r, ctx, dc, snap, namespace, ref)
	snap.Requests++
	wg.Wait()
	snap.Requests += svcs.requests + eps.requests + pods.requests + evs.requests + tmpls.requests() + classes.requests
	var ns *NotServedError
	if errors.As(err, &ns) {
		return nil, err
	}
	if err != nil {
		kind := ref.Kind.Resource()
		err = getError(kind, ref.Kind.Plural(), namespace, ref.Name, err)
		if nf, ok := err.(*NotFoundError); ok {
			nf.Requests = snap.Requests + gw.classes.requests + gw.gateways.requests
		}
		return nil, err
	}
	obj.SetManagedFields(nil)
	r.read.note(resourceOf(ref.Kind), obj.GetResourceVersion())
	if evs.partial {
		// A busy namespace: the object's own events, sought by name.
		probe := evs
		target := chain.ObjectRef{Kind: string(ref.Kind), Name: ref.Name, UID: obj.GetUID()}
		snap.EventsOf = []chain.ObjectRef{target}
		items, n, err := r.eventsOf(ctx, namespace, snap.EventsOf, probe.rv)
		evs = listed[chain.Event]{items: appendRelevantKinds(nil, items), requests: n, err: err, rv: probe.rv}
		snap.Requests += n
	}
	of := fmt.Sprintf("of %s %s/%s", ref.Kind.Resource(), namespace, ref.Name)
	errs := []error{settle(snap, chain.ResourceEvents, of, evs.err)}
	if serves {
		errs = append(errs,
			settleServing(snap, chain.ResourceEndpointSlices, eps.err),
			settle(snap, chain.ResourcePods, of, pods.err))
		errs = append(errs, tmpls.errs(func(res chain.Resource, err error) error { return settleServing(snap, res, err) })...)
	}
	switch {
	case t.self:
		snap.Services, snap.ServicesRead = []corev1.Service{*snap.Service}, true
	case serves:
		errs = append(errs, settleServing(snap, chain.ResourceServices, svcs.err))
		snap.Services, snap.ServicesRead = svcs.items, svcs.err == nil
		r.read.note("services", svcs.rv)
	}
	if t.ingressClasses {
		errs = append(errs, settleCluster(snap, chain.ResourceIngressClasses, "ingressclasses.networking.k8s.io", classes.err))
		snap.IngressClasses = classes.items
	}
	if dc != nil {
		errs = append(errs, r.settleGateway(ctx, dc, snap, &gw))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	r.read.note("endpointslices", eps.rv)
	r.read.note("pods", pods.rv)
	r.read.note("events", evs.rv)
	snap.EndpointSlices = eps.items
	snap.Templates = tmpls.templates()
	snap.Templates = append(snap.Templates, r.crdTemplates(ctx, snap)...)
	snap.AssembleTraffic(pods.items, evs.items)
	if err := r.readBehind(ctx, snap); err != nil {
		return nil, err
	}
	snap.Now = r.now()
	return snap, nil
}

// startServingReads starts, on wg, the lists of what the Services a
// traffic object sends to may select: the EndpointSlices, the pods and the
// workloads of every built-in kind whose templates they may match.
func (r *Reader) startServingReads(ctx context.Context, wg *sync.WaitGroup, namespace string, slicesOpts metav1.ListOptions,
	slices *listed[discoveryv1.EndpointSlice], pods *listed[corev1.Pod]) *kindLists {
	wg.Go(func() {
		*slices = listing(func() ([]discoveryv1.EndpointSlice, string, error) {
			l, err := r.Client.DiscoveryV1().EndpointSlices(namespace).List(ctx, slicesOpts)
			return itemsOf(l, err, func(l *discoveryv1.EndpointSliceList) []discoveryv1.EndpointSlice { return l.Items })
		})
	})
	wg.Go(func() { *pods = r.listPods(ctx, namespace, metav1.ListOptions{}) })
	return r.startKindLists(ctx, wg, namespace, servingKinds(true))
}

// readBehind reads, in parallel, the workloads whose chains the traffic
// walk quotes (chain.Snapshot.BehindRefs), at most maxBehind.
func (r *Reader) readBehind(ctx context.Context, snap *chain.Snapshot) error {
	refs := snap.BehindRefs()
	if len(refs) > maxBehind {
		refs = refs[:maxBehind]
	}
	return r.readRefs(ctx, snap, refs)
}

// readRefs reads the workloads refs of snap's namespace in parallel into
// snap.Behind; one deleted since it was listed is left out.
func (r *Reader) readRefs(ctx context.Context, snap *chain.Snapshot, refs []chain.Ref) error {
	out, errs := make([]*chain.Snapshot, len(refs)), make([]error, len(refs))
	var wg sync.WaitGroup
	for i, ref := range refs {
		wg.Go(func() { out[i], errs[i] = r.Read(ctx, snap.Namespace, ref) })
	}
	wg.Wait()
	for i, b := range out {
		var nf *NotFoundError
		switch {
		case errs[i] == nil:
			snap.Behind = append(snap.Behind, b)
			snap.Requests += b.Requests
		case errors.As(errs[i], &nf):
			// Deleted since the list: nothing to quote.
		default:
			return errs[i]
		}
	}
	return nil
}

// crdTemplates are the pod templates of the namespace's workloads of the
// kinds a CRD serves (Argo Rollouts, OpenKruise CloneSets), read only when
// a Service of the snapshot selects no other workload's (one list per
// kind, in a second round trip): such a workload's pods are what the
// Service is meant for. A cluster that does not serve a kind, or a reader
// that may not list it, has none of it.
func (r *Reader) crdTemplates(ctx context.Context, snap *chain.Snapshot) []chain.Template {
	need := false
	for i := range snap.Services {
		if svc := &snap.Services[i]; len(svc.Spec.Selector) > 0 && len(snap.SelectedTemplates(svc)) == 0 {
			need = true
		}
	}
	if !need {
		return nil
	}
	var wg sync.WaitGroup
	l := r.startKindLists(ctx, &wg, snap.Namespace, servingKinds(false))
	wg.Wait()
	snap.Requests += l.requests()
	return l.templates()
}
