package chain

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// The Gateway API's kinds (gateway.networking.k8s.io): a Gateway and the
// routes that attach to it. They are traffic kinds: a route's chain runs
// through its parents' class and Gateway, its acceptance by each parent,
// its backends, then as a Service's does.
const (
	KindGateway   Kind = "Gateway"
	KindHTTPRoute Kind = "HTTPRoute"
	KindGRPCRoute Kind = "GRPCRoute"
	KindTLSRoute  Kind = "TLSRoute"
)

// The links that only the Gateway API's chains have: the parent Gateway
// accepted and programmed by its controller, and the route accepted by
// each of its parents.
const (
	LinkGateway LinkID = "gateway"
	LinkParents LinkID = "parents"
)

// GatewayGroup is the Gateway API's API group.
const GatewayGroup = gatewayv1.GroupName

// GatewayResource is the kind's resource in the Gateway API's group, at the
// version kubectl chain reads (v1: every kind it walks is in the standard
// channel since gateway-api v1.5).
func GatewayResource(k Kind) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: GatewayGroup, Version: "v1", Resource: k.Plural()}
}

// The Gateway API resources a snapshot reads beside its target.
const (
	ResourceGatewayClasses Resource = "gatewayclasses"
	ResourceGateways       Resource = "gateways"
)

// IsGatewayAPI says the kind is one of the Gateway API's.
func IsGatewayAPI(k Kind) bool {
	return k == KindGateway || IsRoute(k)
}

// IsRoute says the kind is a Gateway API route.
func IsRoute(k Kind) bool {
	return k == KindHTTPRoute || k == KindGRPCRoute || k == KindTLSRoute
}

// Route is an HTTPRoute, GRPCRoute or TLSRoute as its chain sees it: the
// parents it asks for, the backends of all its rules, and what each
// parent's controller wrote of it.
type Route struct {
	Kind Kind
	metav1.ObjectMeta
	Hostnames   []gatewayv1.Hostname
	ParentRefs  []gatewayv1.ParentReference
	BackendRefs []gatewayv1.BackendObjectReference
	Status      gatewayv1.RouteStatus
	// Object is the route as read, which a capture writes.
	Object metav1.Object
}

// RouteOf is the Route view of an HTTPRoute, GRPCRoute or TLSRoute.
func RouteOf(obj metav1.Object) (*Route, error) {
	r := &Route{Object: obj}
	switch o := obj.(type) {
	case *gatewayv1.HTTPRoute:
		r.Kind, r.ObjectMeta, r.Hostnames, r.ParentRefs, r.Status = KindHTTPRoute, o.ObjectMeta, o.Spec.Hostnames, o.Spec.ParentRefs, o.Status.RouteStatus
		for _, rule := range o.Spec.Rules {
			for _, b := range rule.BackendRefs {
				r.BackendRefs = append(r.BackendRefs, b.BackendObjectReference)
			}
		}
	case *gatewayv1.GRPCRoute:
		r.Kind, r.ObjectMeta, r.Hostnames, r.ParentRefs, r.Status = KindGRPCRoute, o.ObjectMeta, o.Spec.Hostnames, o.Spec.ParentRefs, o.Status.RouteStatus
		for _, rule := range o.Spec.Rules {
			for _, b := range rule.BackendRefs {
				r.BackendRefs = append(r.BackendRefs, b.BackendObjectReference)
			}
		}
	case *gatewayv1.TLSRoute:
		r.Kind, r.ObjectMeta, r.Hostnames, r.ParentRefs, r.Status = KindTLSRoute, o.ObjectMeta, o.Spec.Hostnames, o.Spec.ParentRefs, o.Status.RouteStatus
		for _, rule := range o.Spec.Rules {
			for _, b := range rule.BackendRefs {
				r.BackendRefs = append(r.BackendRefs, b.BackendObjectReference)
			}
		}
	default:
		return nil, fmt.Errorf("not a Gateway API route: %T", obj)
	}
	return r, nil
}

// NewRouteObject is an empty object of the route kind, to decode into.
func NewRouteObject(k Kind) metav1.Object {
	if r, ok := RowOf(k); ok && IsRoute(k) {
		return r.New()
	}
	return nil
}

// ParentKey names a route's parent Gateway: its namespace (the route's
// when the reference names none) and name.
type ParentKey struct{ Namespace, Name string }

// IsGatewayParent says the parent reference names a Gateway (the default
// group and kind), not another parent kind (a Service, for a mesh).
func IsGatewayParent(p gatewayv1.ParentReference) bool {
	return (p.Group == nil || string(*p.Group) == GatewayGroup) && (p.Kind == nil || *p.Kind == "Gateway")
}

// ParentKeyOf is the Gateway the reference names, from a route of
// namespace ns.
func ParentKeyOf(ns string, p gatewayv1.ParentReference) ParentKey {
	if p.Namespace != nil && *p.Namespace != "" {
		ns = string(*p.Namespace)
	}
	return ParentKey{Namespace: ns, Name: string(p.Name)}
}

// ParentGateways are the Gateways the route names as parents, each once,
// in its order.
func (r *Route) ParentGateways() []ParentKey {
	var out []ParentKey
	seen := map[ParentKey]bool{}
	for _, p := range r.ParentRefs {
		if k := ParentKeyOf(r.Namespace, p); IsGatewayParent(p) && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// IsServiceBackend says the backend reference names a core Service (the
// default group and kind).
func IsServiceBackend(b gatewayv1.BackendObjectReference) bool {
	return (b.Group == nil || *b.Group == "") && (b.Kind == nil || *b.Kind == "Service")
}

// GatewayNamed is the snapshot's Gateway of that key, nil when none.
func (s *Snapshot) GatewayNamed(k ParentKey) *gatewayv1.Gateway {
	for i := range s.Gateways {
		if g := &s.Gateways[i]; g.Namespace == k.Namespace && g.Name == k.Name {
			return g
		}
	}
	return nil
}

// GatewayClassNamed is the snapshot's GatewayClass of that name, nil when
// none.
func (s *Snapshot) GatewayClassNamed(name string) *gatewayv1.GatewayClass {
	for i := range s.GatewayClasses {
		if c := &s.GatewayClasses[i]; c.Name == name {
			return c
		}
	}
	return nil
}

// routeBackendServices are the names of the Services of the route's own
// namespace its rules send to, each once, in order.
func (r *Route) routeBackendServices() []string {
	var out []string
	seen := map[string]bool{}
	for _, b := range r.BackendRefs {
		if !IsServiceBackend(b) || b.Namespace != nil && string(*b.Namespace) != r.Namespace || seen[string(b.Name)] {
			continue
		}
		seen[string(b.Name)] = true
		out = append(out, string(b.Name))
	}
	return out
}
