package kube

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
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
		deps    listed[appsv1.Deployment]
		stss    listed[appsv1.StatefulSet]
		dss     listed[appsv1.DaemonSet]
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
		r.startServingReads(ctx, &wg, namespace, slicesOpts, &eps, &pods, &deps, &stss, &dss)
	}
	obj, err := t.get(r, ctx, dc, snap, namespace, ref)
	snap.Requests++
	wg.Wait()
	snap.Requests += svcs.requests + eps.requests + pods.requests + evs.requests + deps.requests + stss.requests + dss.requests + classes.requests
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
		// A busy namespace: the object's own events, by field selector.
		probe := evs
		target := chain.ObjectRef{Kind: string(ref.Kind), Name: ref.Name, UID: obj.GetUID()}
		snap.EventsOf = []chain.ObjectRef{target}
		items, err := r.eventsOf(ctx, namespace, snap.EventsOf)
		evs = listed[chain.Event]{items: appendRelevantKinds(nil, items), requests: 1, err: err, rv: probe.rv}
		snap.Requests++
	}
	of := fmt.Sprintf("of %s %s/%s", ref.Kind.Resource(), namespace, ref.Name)
	errs := []error{settle(snap, chain.ResourceEvents, of, evs.err)}
	if serves {
		errs = append(errs,
			settleServing(snap, chain.ResourceEndpointSlices, eps.err),
			settle(snap, chain.ResourcePods, of, pods.err),
			settleServing(snap, chain.ResourceDeployments, deps.err),
			settleServing(snap, chain.ResourceStatefulSets, stss.err),
			settleServing(snap, chain.ResourceDaemonSets, dss.err))
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
	snap.Templates = templatesOf(deps.items, stss.items, dss.items)
	snap.Templates = append(snap.Templates, r.rolloutTemplates(ctx, snap)...)
	snap.AssembleTraffic(pods.items, evs.items)
	if err := r.readBehind(ctx, snap); err != nil {
		return nil, err
	}
	snap.Now = r.now()
	return snap, nil
}

// startServingReads starts, on wg, the lists of what the Services a
// traffic object sends to may select: the EndpointSlices, the pods and the
// workloads whose templates they match.
func (r *Reader) startServingReads(ctx context.Context, wg *sync.WaitGroup, namespace string, slicesOpts metav1.ListOptions,
	slices *listed[discoveryv1.EndpointSlice], pods *listed[corev1.Pod], deps *listed[appsv1.Deployment], stss *listed[appsv1.StatefulSet], dss *listed[appsv1.DaemonSet]) {
	wg.Go(func() {
		*slices = listing(func() ([]discoveryv1.EndpointSlice, string, error) {
			l, err := r.Client.DiscoveryV1().EndpointSlices(namespace).List(ctx, slicesOpts)
			return itemsOf(l, err, func(l *discoveryv1.EndpointSliceList) []discoveryv1.EndpointSlice { return l.Items })
		})
	})
	wg.Go(func() { *pods = r.listPods(ctx, namespace, metav1.ListOptions{}) })
	r.startTemplateLists(ctx, wg, namespace, deps, stss, dss)
}

// startTemplateLists starts, on wg, the lists of the namespace's
// Deployments, StatefulSets and DaemonSets.
func (r *Reader) startTemplateLists(ctx context.Context, wg *sync.WaitGroup, namespace string,
	deps *listed[appsv1.Deployment], stss *listed[appsv1.StatefulSet], dss *listed[appsv1.DaemonSet]) {
	apps, all := r.Client.AppsV1(), metav1.ListOptions{}
	wg.Go(func() {
		*deps = listing(func() ([]appsv1.Deployment, string, error) {
			l, err := apps.Deployments(namespace).List(ctx, all)
			return itemsOf(l, err, func(l *appsv1.DeploymentList) []appsv1.Deployment { return l.Items })
		})
	})
	wg.Go(func() {
		*stss = listing(func() ([]appsv1.StatefulSet, string, error) {
			l, err := apps.StatefulSets(namespace).List(ctx, all)
			return itemsOf(l, err, func(l *appsv1.StatefulSetList) []appsv1.StatefulSet { return l.Items })
		})
	})
	wg.Go(func() {
		*dss = listing(func() ([]appsv1.DaemonSet, string, error) {
			l, err := apps.DaemonSets(namespace).List(ctx, all)
			return itemsOf(l, err, func(l *appsv1.DaemonSetList) []appsv1.DaemonSet { return l.Items })
		})
	})
}

// templatesOf are the workloads' pod templates, by kind then name.
func templatesOf(deps []appsv1.Deployment, stss []appsv1.StatefulSet, dss []appsv1.DaemonSet) []chain.Template {
	var out []chain.Template
	add := func(kind chain.Kind, obj metav1.Object) {
		if t, ok := chain.TemplateOf(kind, obj); ok {
			out = append(out, t)
		}
	}
	for i := range deps {
		add(chain.KindDeployment, &deps[i])
	}
	for i := range stss {
		add(chain.KindStatefulSet, &stss[i])
	}
	for i := range dss {
		add(chain.KindDaemonSet, &dss[i])
	}
	return out
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

// rolloutTemplates are the namespace's Argo Rollouts' pod templates, read
// only when a Service of the snapshot selects no other workload's (one
// list, in a second round trip): a Rollout's pods are what such a Service
// is meant for. A cluster that does not serve Rollouts, or a reader that
// may not list them, has none.
func (r *Reader) rolloutTemplates(ctx context.Context, snap *chain.Snapshot) []chain.Template {
	need := false
	for i := range snap.Services {
		if svc := &snap.Services[i]; len(svc.Spec.Selector) > 0 && len(snap.SelectedTemplates(svc)) == 0 {
			need = true
		}
	}
	if !need {
		return nil
	}
	dc, err := r.dynamicOf()
	if err != nil {
		return nil
	}
	api := chain.RolloutAPI
	l, err := dc.Resource(schema.GroupVersionResource{Group: api.Group, Version: api.Version, Resource: api.Resource}).Namespace(snap.Namespace).List(ctx, metav1.ListOptions{})
	snap.Requests++
	if err != nil {
		return nil
	}
	var out []chain.Template
	for i := range l.Items {
		if ro, err := chain.DecodeRollout(&l.Items[i]); err == nil {
			if t, ok := chain.TemplateOf(chain.KindRollout, ro); ok {
				out = append(out, t)
			}
		}
	}
	return out
}
