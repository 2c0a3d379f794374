package diagnose

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// The API's default status of a GatewayClass and a Gateway no controller
// has touched (gateway-api v1.6.3 apis/v1 gatewayclass_types.go and
// gateway_types.go, +kubebuilder:default).
func waitingForController(types ...string) []metav1.Condition {
	var out []metav1.Condition
	for _, t := range types {
		out = append(out, metav1.Condition{Type: t, Status: metav1.ConditionUnknown, Reason: "Pending", Message: "Waiting for controller",
			LastTransitionTime: metav1.NewTime(time.Unix(0, 0))})
	}
	return out
}

// Condition messages of real controllers, as testdata/real/messages/
// gateway.yaml records them with their sources.
const (
	// projectcontour/contour@v1.33.6 (gateway.yaml's #7, counting from 0)
	msgContourParams = "Invalid ParametersRef, must be a reference to an existing namespaced projectcontour.io/ContourDeployment resource"
	// Envoy Gateway: envoyproxy/gateway@v1.9.0's testdata (#25, #29, #44,
	// #52, #61) and envoyproxy/gateway#8230 (#35)
	msgEnvoyProtocolConflict = "All listeners for a given port must use a compatible protocol, conflicting listeners: envoy-gateway/gateway-1/http, envoy-gateway/gateway-1/tcp"
	msgEnvoyNoSecret         = "No valid secrets exist: certificate refs 0: Secret envoy-gateway/does-not-exist does not exist."
	msgEnvoyNotAllowed       = "No listeners included by this parent ref allowed this attachment."
	msgEnvoyBackendNotFound  = "Failed to process route rule 0 backendRef 1: service default/service-not-exist not found."
	msgEnvoyRefNotPermitted  = "Backend ref to Service gateway-conformance-app-backend/tls-backend not permitted by any ReferenceGrant."
	msgEnvoyHostnames        = "There were no hostname intersections between the HTTPRoute and this parent ref's Listener(s)."
)

func cond(t string, st metav1.ConditionStatus, reason, msg string) metav1.Condition {
	return metav1.Condition{Type: t, Status: st, Reason: reason, Message: msg, LastTransitionTime: metav1.NewTime(walkT0)}
}

func gatewayClass(accepted ...metav1.Condition) gatewayv1.GatewayClass {
	return gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "edge", CreationTimestamp: metav1.NewTime(walkT0)},
		Spec: gatewayv1.GatewayClassSpec{ControllerName: "example.net/edge"}, Status: gatewayv1.GatewayClassStatus{Conditions: accepted}}
}

// gateway is Gateway shop/web of class edge with one HTTP listener.
func gateway(conds []metav1.Condition, listeners ...gatewayv1.ListenerStatus) gatewayv1.Gateway {
	return gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", CreationTimestamp: metav1.NewTime(walkT0)},
		Spec: gatewayv1.GatewaySpec{GatewayClassName: "edge", Listeners: []gatewayv1.Listener{{Name: "http", Port: 80, Protocol: gatewayv1.HTTPProtocolType}}},
		Status: gatewayv1.GatewayStatus{Conditions: conds, Listeners: listeners,
			Addresses: []gatewayv1.GatewayStatusAddress{{Value: "192.0.2.10"}}}}
}

func programmed() []metav1.Condition {
	return []metav1.Condition{cond("Accepted", metav1.ConditionTrue, "Accepted", ""), cond("Programmed", metav1.ConditionTrue, "Programmed", "")}
}

// httpRoute is HTTPRoute shop/web under Gateway web, sending to service
// svc port 80, with the parent statuses given.
func httpRoute(svc string, parents ...[]metav1.Condition) *chain.Route {
	port := gatewayv1.PortNumber(80)
	r := &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", Generation: 1, CreationTimestamp: metav1.NewTime(walkT0)},
		Spec: gatewayv1.HTTPRouteSpec{CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: "web"}}},
			Rules: []gatewayv1.HTTPRouteRule{{BackendRefs: []gatewayv1.HTTPBackendRef{{BackendRef: gatewayv1.BackendRef{
				BackendObjectReference: gatewayv1.BackendObjectReference{Name: gatewayv1.ObjectName(svc), Port: &port}}}}}}}}
	for _, c := range parents {
		r.Status.Parents = append(r.Status.Parents, gatewayv1.RouteParentStatus{ParentRef: gatewayv1.ParentReference{Name: "web"},
			ControllerName: "example.net/edge", Conditions: c})
	}
	route, err := chain.RouteOf(r)
	if err != nil {
		panic(err)
	}
	return route
}

func accepted() []metav1.Condition {
	return []metav1.Condition{cond("Accepted", metav1.ConditionTrue, "Accepted", ""), cond("ResolvedRefs", metav1.ConditionTrue, "ResolvedRefs", "")}
}

// TestWalkGateway walks gateway/web and httproute/web through each link's
// failure, and the healthy chains.
func TestWalkGateway(t *testing.T) {
	web := service("web", map[string]string{"app": "web"}, intstr.FromString("http"))
	pod := servedPod()
	ready := []discoveryv1.EndpointSlice{slice("web", true, pod.Name)}
	ok := []gatewayv1.GatewayClass{gatewayClass(cond("Accepted", metav1.ConditionTrue, "Accepted", ""))}
	gw := []gatewayv1.Gateway{gateway(programmed(), gatewayv1.ListenerStatus{Name: "http", AttachedRoutes: 1, Conditions: programmed()})}
	for _, tt := range []struct {
		name     string
		gateway  *gatewayv1.Gateway
		route    *chain.Route
		classes  []gatewayv1.GatewayClass
		gateways []gatewayv1.Gateway
		after    time.Duration
		health   chain.Health
		link     chain.LinkID
		cause    chain.CauseID
		summary  string
		note     string
	}{
		{name: "gateway healthy", gateway: &gw[0], classes: ok, health: chain.Healthy},
		{name: "gateway not found", health: chain.Broken, link: chain.LinkStored, cause: decode.TrafficObjectNotFound},
		{name: "gateway class missing", gateway: &gw[0], after: time.Minute, health: chain.Broken, link: chain.LinkClass, cause: decode.GatewayClassNotFound,
			summary: "names GatewayClass edge, which does not exist"},
		{name: "class without a controller, within grace", gateway: ptr.To(gateway(waitingForController("Accepted", "Programmed"))),
			classes: []gatewayv1.GatewayClass{gatewayClass(waitingForController("Accepted")...)}, health: chain.Progressing, link: chain.LinkClass, cause: decode.GatewayClassNoController},
		{name: "class without a controller, past grace", gateway: ptr.To(gateway(waitingForController("Accepted", "Programmed"))),
			classes: []gatewayv1.GatewayClass{gatewayClass(waitingForController("Accepted")...)}, after: time.Minute,
			health: chain.Broken, link: chain.LinkClass, cause: decode.GatewayClassNoController, summary: "example.net/edge does not seem to run"},
		{name: "class refused", gateway: &gw[0], classes: []gatewayv1.GatewayClass{gatewayClass(cond("Accepted", metav1.ConditionFalse, "InvalidParameters", msgContourParams))},
			health: chain.Broken, link: chain.LinkClass, cause: decode.GatewayClassNotAccepted},
		{name: "gateway not programmed yet", gateway: ptr.To(gateway([]metav1.Condition{cond("Accepted", metav1.ConditionTrue, "Accepted", ""),
			cond("Programmed", metav1.ConditionFalse, "AddressNotAssigned", "")})), classes: ok, health: chain.Progressing, link: chain.LinkGateway, cause: decode.GatewayNotProgrammed},
		{name: "gateway not programmed, past grace", gateway: ptr.To(gateway([]metav1.Condition{cond("Accepted", metav1.ConditionTrue, "Accepted", ""),
			cond("Programmed", metav1.ConditionFalse, "AddressNotAssigned", "")})), classes: ok, after: time.Minute,
			health: chain.Broken, link: chain.LinkGateway, cause: decode.GatewayNotProgrammed},
		{name: "listener conflicted", gateway: ptr.To(gateway([]metav1.Condition{cond("Accepted", metav1.ConditionFalse, "ListenersNotValid", "")},
			gatewayv1.ListenerStatus{Name: "http", Conditions: []metav1.Condition{cond("Conflicted", metav1.ConditionTrue, "ProtocolConflict", msgEnvoyProtocolConflict)}})),
			classes: ok, health: chain.Broken, after: time.Minute, link: chain.LinkGateway, cause: decode.GatewayListenerConflicted, summary: "listener http of Gateway web"},
		{name: "listener certificate", gateway: ptr.To(gateway(programmed(),
			gatewayv1.ListenerStatus{Name: "https", Conditions: []metav1.Condition{cond("ResolvedRefs", metav1.ConditionFalse, "InvalidCertificateRef", msgEnvoyNoSecret)}})),
			classes: ok, health: chain.Broken, after: time.Minute, link: chain.LinkGateway, cause: decode.GatewayListenerCertificateInvalid},
		{name: "gateway refused", gateway: ptr.To(gateway([]metav1.Condition{cond("Accepted", metav1.ConditionFalse, "UnsupportedAddress", "")})),
			classes: ok, health: chain.Broken, after: time.Minute, link: chain.LinkGateway, cause: decode.GatewayNotAccepted},
		{name: "route healthy", route: httpRoute("web", accepted()), classes: ok, gateways: gw, health: chain.Healthy, note: "listener http of web: 1 route attached"},
		{name: "route parent missing", route: httpRoute("web"), classes: ok, after: time.Minute,
			health: chain.Broken, link: chain.LinkParents, cause: decode.RouteParentNotFound, summary: "names parent Gateway web, which does not exist"},
		{name: "route under a class without a controller", route: httpRoute("web"), classes: []gatewayv1.GatewayClass{gatewayClass(waitingForController("Accepted")...)},
			gateways: []gatewayv1.Gateway{gateway(waitingForController("Accepted", "Programmed"))}, after: time.Minute,
			health: chain.Broken, link: chain.LinkClass, cause: decode.GatewayClassNoController},
		{name: "route without status", route: httpRoute("web"), classes: ok, gateways: gw, health: chain.Progressing, link: chain.LinkParents, cause: decode.RouteNoController},
		{name: "route not allowed", route: httpRoute("web", []metav1.Condition{cond("Accepted", metav1.ConditionFalse, "NotAllowedByListeners", msgEnvoyNotAllowed)}),
			classes: ok, gateways: gw, after: time.Minute, health: chain.Broken, link: chain.LinkParents, cause: decode.RouteNotAllowedByListeners},
		{name: "route hostname", route: httpRoute("web", []metav1.Condition{cond("Accepted", metav1.ConditionFalse, "NoMatchingListenerHostname", msgEnvoyHostnames)}),
			classes: ok, gateways: gw, after: time.Minute, health: chain.Broken, link: chain.LinkParents, cause: decode.RouteHostnameMismatch},
		{name: "route backend missing, seen by kubectl chain", route: httpRoute("api", accepted()), classes: ok, gateways: gw, after: time.Minute,
			health: chain.Broken, link: chain.LinkBackends, cause: decode.RouteBackendNotFound, summary: "sends to Service api, which does not exist"},
		{name: "route backend missing, said by the controller once", route: httpRoute("api", []metav1.Condition{cond("Accepted", metav1.ConditionTrue, "Accepted", ""),
			cond("ResolvedRefs", metav1.ConditionFalse, "BackendNotFound", msgEnvoyBackendNotFound)}), classes: ok, gateways: gw, after: time.Minute,
			health: chain.Broken, link: chain.LinkBackends, cause: decode.RouteBackendNotFound, summary: "sends to Service api, which does not exist"},
		{name: "route reference not permitted", route: httpRoute("web", []metav1.Condition{cond("Accepted", metav1.ConditionTrue, "Accepted", ""),
			cond("ResolvedRefs", metav1.ConditionFalse, "RefNotPermitted", msgEnvoyRefNotPermitted)}), classes: ok, gateways: gw, after: time.Minute,
			health: chain.Broken, link: chain.LinkBackends, cause: decode.RouteRefNotPermitted},
		{name: "route backend port missing", route: func() *chain.Route {
			r := httpRoute("web", accepted())
			r.BackendRefs[0].Port = ptr.To(gatewayv1.PortNumber(8443))
			return r
		}(), classes: ok, gateways: gw, after: time.Minute, health: chain.Broken, link: chain.LinkBackends, cause: decode.RouteBackendPortNotFound, summary: "port 8443 of Service web"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &chain.Snapshot{Namespace: "shop", Name: "web", Now: walkT0.Add(tt.after), Gateway: tt.gateway, Route: tt.route,
				GatewayClasses: tt.classes, Gateways: tt.gateways, ServicesRead: true}
			s.Kind = chain.KindGateway
			if tt.gateway != nil {
				s.Gateways = []gatewayv1.Gateway{*tt.gateway}
			}
			if tt.route != nil {
				s.Kind = chain.KindHTTPRoute
				s.Services, s.Pods, s.EndpointSlices = []corev1.Service{web}, []corev1.Pod{pod}, ready
			}
			checkTrafficWalk(t, s, tt.health, tt.link, tt.cause, tt.summary, tt.note)
		})
	}
}

// TestGatewayConsequences: a class no controller accepted is the one
// cause; the Gateway it leaves unprogrammed and the route status nobody
// writes are not findings of their own (the links after it are not
// reached, not broken).
func TestGatewayConsequences(t *testing.T) {
	s := &chain.Snapshot{Kind: chain.KindHTTPRoute, Namespace: "shop", Name: "web", Now: walkT0.Add(time.Minute), Route: httpRoute("web"),
		GatewayClasses: []gatewayv1.GatewayClass{gatewayClass(waitingForController("Accepted")...)},
		Gateways:       []gatewayv1.Gateway{gateway(waitingForController("Accepted", "Programmed"))}, ServicesRead: true,
		Services: []corev1.Service{service("web", map[string]string{"app": "web"}, intstr.FromString("http"))},
		Pods:     []corev1.Pod{servedPod()}, EndpointSlices: []discoveryv1.EndpointSlice{slice("web", true, servedPod().Name)}}
	r := Walk(s, Options{})
	for _, l := range r.Links {
		if l.ID != chain.LinkClass && l.Status == chain.StatusBroken {
			t.Errorf("link %s is broken (%s) by what the class link already names", l.ID, l.Summary)
		}
	}
	if l := r.Link(chain.LinkClass); l == nil || l.Status != chain.StatusBroken {
		t.Errorf("class link %+v, want broken", l)
	}
}
