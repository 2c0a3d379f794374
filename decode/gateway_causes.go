package decode

import "github.com/kubectl-chain/kubectl-chain/chain"

// Causes of the Gateway API's chains (gateway/NAME, httproute/NAME,
// grpcroute/NAME, tlsroute/NAME): the GatewayClass, the Gateway and its
// listeners, the route's acceptance by each parent and its backends. What
// a controller decides is read from the conditions it writes; what the
// spec alone shows (a class, a parent or a Service that does not exist) is
// checked without one.
const (
	GatewayClassNotFound              chain.CauseID = "GatewayClassNotFound"
	GatewayClassNotAccepted           chain.CauseID = "GatewayClassNotAccepted"
	GatewayClassNoController          chain.CauseID = "GatewayClassNoController"
	GatewayNotAccepted                chain.CauseID = "GatewayNotAccepted"
	GatewayNotProgrammed              chain.CauseID = "GatewayNotProgrammed"
	GatewayListenerInvalid            chain.CauseID = "GatewayListenerInvalid"
	GatewayListenerConflicted         chain.CauseID = "GatewayListenerConflicted"
	GatewayListenerCertificateInvalid chain.CauseID = "GatewayListenerCertificateInvalid"
	RouteParentNotFound               chain.CauseID = "RouteParentNotFound"
	RouteNotAllowedByListeners        chain.CauseID = "RouteNotAllowedByListeners"
	RouteNoMatchingParent             chain.CauseID = "RouteNoMatchingParent"
	RouteHostnameMismatch             chain.CauseID = "RouteHostnameMismatch"
	RouteNotAccepted                  chain.CauseID = "RouteNotAccepted"
	RouteNoController                 chain.CauseID = "RouteNoController"
	RouteBackendNotFound              chain.CauseID = "RouteBackendNotFound"
	RouteBackendPortNotFound          chain.CauseID = "RouteBackendPortNotFound"
	RouteRefNotPermitted              chain.CauseID = "RouteRefNotPermitted"
	RouteBackendInvalidKind           chain.CauseID = "RouteBackendInvalidKind"
	RouteBackendUnsupportedProtocol   chain.CauseID = "RouteBackendUnsupportedProtocol"
)

var gatewayCauses = []Cause{
	{ID: GatewayClassNotFound, Link: chain.LinkClass,
		Summary:  "the Gateway names a GatewayClass that does not exist: no controller will program it",
		NextStep: "kubectl get gatewayclasses; set the Gateway's spec.gatewayClassName to one of them, or install the controller that brings the class",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: GatewayClassNotAccepted, Link: chain.LinkClass,
		Summary:  "the GatewayClass's controller refused it (Accepted False): its parameters or version are not supported",
		NextStep: "kubectl describe gatewayclass {CLASS}; fix spec.parametersRef (or the CRDs' version) as the condition's message says",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: GatewayClassNoController, Link: chain.LinkClass,
		Summary:  "no controller has accepted the GatewayClass: its status is still the API's default (Waiting for controller), so no controller for spec.controllerName runs",
		NextStep: "check that the controller named by the class runs: kubectl get gatewayclass {CLASS} -o jsonpath='{.spec.controllerName}', then its pods and logs",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: GatewayNotAccepted, Link: chain.LinkGateway,
		Summary:  "the Gateway's controller did not accept it (Accepted False): an address, a parameter or its listeners are not valid",
		NextStep: "kubectl describe gateway {GATEWAY} -n {NAMESPACE} and fix what the Accepted condition's message names",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: GatewayNotProgrammed, Link: chain.LinkGateway,
		Summary:  "the Gateway is accepted but not programmed: its data plane or address is not ready (no load balancer address, proxies not running)",
		NextStep: "kubectl describe gateway {GATEWAY} -n {NAMESPACE}; look at the controller's data-plane pods and Service (its LoadBalancer address)",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: GatewayListenerInvalid, Link: chain.LinkGateway,
		Summary:  "a listener of the Gateway is not accepted or programmed: a protocol, port or route kind the controller does not support",
		NextStep: "kubectl get gateway {GATEWAY} -n {NAMESPACE} -o jsonpath='{.status.listeners}' and fix the listener its conditions name",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: GatewayListenerConflicted, Link: chain.LinkGateway,
		Summary:  "listeners of the Gateway conflict (same port with another protocol, or the same hostname): the controller serves only one of them",
		NextStep: "give the conflicting listeners distinct ports or hostnames: kubectl get gateway {GATEWAY} -n {NAMESPACE} -o yaml",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: GatewayListenerCertificateInvalid, Link: chain.LinkGateway,
		Summary:  "a TLS listener's certificate reference does not resolve: the Secret is missing or invalid, or in another namespace without a ReferenceGrant",
		NextStep: "create the Secret the listener's tls.certificateRefs names (or the Certificate that writes it), or a ReferenceGrant in its namespace; kubectl chain never reads Secrets",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: RouteParentNotFound, Link: chain.LinkParents,
		Summary:  "the route names a parent Gateway that does not exist: nothing will serve it there",
		NextStep: "kubectl get gateways -A; fix the route's spec.parentRefs (name, and namespace when the Gateway is in another one)",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: RouteNotAllowedByListeners, Link: chain.LinkParents,
		Summary:  "the parent Gateway's listeners do not allow the route: its namespace or kind is not in their allowedRoutes",
		NextStep: "allow the route's namespace in the listener's allowedRoutes.namespaces (Same, All or a selector), or move the route: kubectl get gateway {GATEWAY} -o yaml",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: RouteNoMatchingParent, Link: chain.LinkParents,
		Summary:  "the route's parentRef names a listener (sectionName or port) the Gateway does not have",
		NextStep: "set the parentRef's sectionName and port to a listener of the Gateway: kubectl get gateway {GATEWAY} -o jsonpath='{.spec.listeners}'",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: RouteHostnameMismatch, Link: chain.LinkParents,
		Summary:  "none of the route's hostnames matches a hostname of the parent's listeners",
		NextStep: "make spec.hostnames match a listener's hostname (or drop them): kubectl get gateway {GATEWAY} -o jsonpath='{.spec.listeners[*].hostname}'",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: RouteNotAccepted, Link: chain.LinkParents,
		Summary:  "a parent Gateway's controller did not accept the route (Accepted False): a field or filter it does not support",
		NextStep: "kubectl describe the route and fix what the parent's Accepted condition names",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: RouteNoController, Link: chain.LinkParents,
		Summary:  "no controller has written the route's status for a parent: the parent's controller does not watch it, or does not run",
		NextStep: "check the parent Gateway's class controller runs and its logs name the route: kubectl get gateway {GATEWAY} -o jsonpath='{.spec.gatewayClassName}'",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: RouteBackendNotFound, Link: chain.LinkBackends,
		Summary:  "a backendRef of the route names a Service (or other backend) that does not exist: requests to that rule fail (HTTP 500 for an HTTPRoute)",
		NextStep: "create the Service, or fix the backendRef's name: kubectl get services -n {NAMESPACE}",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: RouteBackendPortNotFound, Link: chain.LinkBackends,
		Summary:  "a backendRef of the route names a port its Service does not have",
		NextStep: "set the backendRef's port to a port of the Service: kubectl get service {SERVICE} -n {NAMESPACE} -o jsonpath='{.spec.ports}'",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: RouteRefNotPermitted, Link: chain.LinkBackends,
		Summary:  "a backendRef points into another namespace and no ReferenceGrant there allows it",
		NextStep: "create a ReferenceGrant in the backend's namespace that allows this route's kind and namespace, or move the Service",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: RouteBackendInvalidKind, Link: chain.LinkBackends,
		Summary:  "a backendRef names a group or kind the controller does not support as a backend",
		NextStep: "point the backendRef at a Service (group \"\", kind Service) or a kind the controller documents",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: RouteBackendUnsupportedProtocol, Link: chain.LinkBackends,
		Summary:  "the backend Service port's appProtocol is one the controller does not support for this route",
		NextStep: "set the Service port's appProtocol to one the controller supports, or drop it: kubectl get service {SERVICE} -o jsonpath='{.spec.ports}'",
		Terminal: TerminalRule{Mode: AfterGrace}},
}
