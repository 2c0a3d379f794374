package kube

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// trafficSources are the traffic objects of a scope, which -A, --all and a
// selector judge beside the workloads: the Ingresses and their classes
// and, where the Gateway API's CRDs are installed, the GatewayClasses,
// Gateways and routes. Ingresses and routes match the selector; classes
// and Gateways are read whole, as a route's parent need not carry its
// labels. A cluster without the CRDs answers those lists 404: no objects,
// no gap.
func (r *Reader) trafficSources(ns, selector string) []source {
	bySel, all := metav1.ListOptions{LabelSelector: selector}, metav1.ListOptions{}
	out := []source{r.sourceOf(chain.ResourceIngresses, ns, bySel), r.sourceOf(chain.ResourceIngressClasses, ns, all)}
	dc, err := r.dynamicOf()
	if err != nil {
		return out
	}
	gw := func(res chain.Resource, k chain.Kind, ns string, opts metav1.ListOptions, keep func(runtime.Object) (any, bool)) source {
		return dynamicSource(dc, res, chain.GatewayResource(k), ns, opts, keep)
	}
	return append(out,
		gw(chain.ResourceGatewayClasses, "GatewayClass", "", all, fromUnstructured[gatewayv1.GatewayClass]),
		gw(chain.ResourceGateways, chain.KindGateway, ns, all, fromUnstructured[gatewayv1.Gateway]),
		gw("httproutes", chain.KindHTTPRoute, ns, bySel, fromUnstructured[gatewayv1.HTTPRoute]),
		gw("grpcroutes", chain.KindGRPCRoute, ns, bySel, fromUnstructured[gatewayv1.GRPCRoute]),
		gw("tlsroutes", chain.KindTLSRoute, ns, bySel, fromUnstructured[gatewayv1.TLSRoute]))
}

// fromUnstructured keeps a Gateway API object, as the dynamic client sends
// it, as its typed *T.
func fromUnstructured[T any](o runtime.Object) (any, bool) {
	u, ok := o.(*unstructured.Unstructured)
	if !ok {
		return nil, false
	}
	var t T
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &t); err != nil {
		return nil, false
	}
	p := any(&t).(runtime.Object)
	return slim(p)
}

// routesOf are a mirror's routes of every kind, as the walk sees them.
func routesOf(https []gatewayv1.HTTPRoute, grpcs []gatewayv1.GRPCRoute, tlss []gatewayv1.TLSRoute) []*chain.Route {
	var out []*chain.Route
	add := func(o metav1.Object) {
		if r, err := chain.RouteOf(o); err == nil {
			out = append(out, r)
		}
	}
	for i := range https {
		add(&https[i])
	}
	for i := range grpcs {
		add(&grpcs[i])
	}
	for i := range tlss {
		add(&tlss[i])
	}
	return out
}

// dynamicSource is a source of a resource read through the dynamic
// client (the Gateway API's kinds, Argo Rollouts), kept by keep.
func dynamicSource(dc dynamic.Interface, res chain.Resource, gvr schema.GroupVersionResource, ns string, opts metav1.ListOptions, keep func(runtime.Object) (any, bool)) source {
	ri := dc.Resource(gvr).Namespace(ns)
	list := func(ctx context.Context, o metav1.ListOptions) ([]runtime.Object, string, string, error) {
		l, err := ri.List(ctx, o)
		if err != nil {
			return nil, "", "", err
		}
		items := make([]runtime.Object, len(l.Items))
		for i := range l.Items {
			items[i] = &l.Items[i]
		}
		return items, l.GetContinue(), l.GetResourceVersion(), nil
	}
	return source{res, gvr.Resource, list, func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) { return ri.Watch(ctx, o) }, opts, keep}
}
