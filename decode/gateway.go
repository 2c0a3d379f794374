package decode

import (
	"regexp"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// What Gateway API controllers write of a GatewayClass, a Gateway, its
// listeners and the routes attached to it, in several controllers' wording
// (Envoy Gateway, Istio, NGINX Gateway Fabric, Contour, Cilium, Kong,
// kgateway, Traefik; see the corpus's messages/gateway.yaml for each one's
// source). The patterns are tried in order: a more specific wording before
// a looser one that would also match it.
var gatewayPatterns = []struct {
	re    *regexp.Regexp
	cause chain.CauseID
}{
	// The CRDs' default status, and a class row whose ACCEPTED is Unknown.
	// A describe's Message line of that status too.
	{regexp.MustCompile(`^Waiting for controller$|(?m:^\s*Message:\s+Waiting for controller\s*$)|(?m:^NAME\s+CONTROLLER\s+ACCEPTED\s+AGE\s*\n\S+\s+\S+\s+Unknown\s)`), GatewayClassNoController},
	{regexp.MustCompile(`The GatewayClass doesn't exist|GatewayClass(?:\.gateway\.networking\.k8s\.io)? \\?"[^"\\]*\\?" not found|GatewayClass not found in cache|GatewayClass is not found`), GatewayClassNotFound},
	{regexp.MustCompile(`(?i)invalid parametersRef|Gateway API CRD versions are not supported|another older GatewayClass with the same Spec\.Controller`), GatewayClassNotAccepted},
	{regexp.MustCompile(`only Hostname is supported, ignoring|Only NamedAddress is supported|No listeners are valid|The Gateway has no valid listeners`), GatewayNotAccepted},
	{regexp.MustCompile(`No addresses have been assigned to the Gateway|Envoy replicas unavailable|[Ff]ailed to assign to (?:all|any) requested addresses|Gateway waiting for address|^Address is not ready$|Address not ready yet|VPC Lattice Service Network not found|Unable to create Service resource`), GatewayNotProgrammed},
	{regexp.MustCompile(`All listeners for a given port must use a (?:unique hostname|compatible protocol)|All Listener hostnames for a given port must be unique|A listener with same protocol, port and hostname already exists`), GatewayListenerConflicted},
	{regexp.MustCompile(`invalid certificate reference|No valid secrets exist: certificate refs|Certificate ref to secret \S+ not permitted|^Invalid CertificateRef$|CertificateRefs "[^"]*" referent is invalid|must contain valid tls\.crt and tls\.key|invalid TLS secret \S+: |^Secret [\w.-]+/[\w.-]+ not found\.$`), GatewayListenerCertificateInvalid},
	{regexp.MustCompile(`(?i)^protocol "?[\w-]+"? is unsupported|is not supported, kind must be one of|no Kong listen with the requested protocol|Cannot find entryPoint for Gateway`), GatewayListenerInvalid},
	{regexp.MustCompile(`Gateway(?:\.gateway\.networking\.k8s\.io)? "[^"]*" not found|parent service(?: entry)?: "[^"]*" not found`), RouteParentNotFound},
	{regexp.MustCompile(`No listeners included by this parent ref allowed this attachment|is not allowed to attach to this Gateway|is not allowed by the parent|The Route is not allowed by any listener`), RouteNotAllowedByListeners},
	{regexp.MustCompile(`^sectionName "[^"]*" not found$|No listeners match this parent ref|The Listener is not found for this parent ref`), RouteNoMatchingParent},
	{regexp.MustCompile(`Listener hostname does not match the \w+ hostnames|no hostnames matched parent hostname|no hostname intersections between the|No intersecting hostnames`), RouteHostnameMismatch},
	{regexp.MustCompile(`Cannot configure multiple \w+ filters|Spec\.Rules\.Filters: invalid type|^spec\.hostnames\[\d+\]: Invalid value`), RouteNotAccepted},
	{regexp.MustCompile(`"parents":\s*null`), RouteNoController},
	{regexp.MustCompile(`(?i)does not support service port appProtocol|AppProtocol: "[^"]*" is unsupported|appProtocol is supported`), RouteBackendUnsupportedProtocol},
	{regexp.MustCompile(`not accessible to a \w+ in namespace "[^"]*" \(missing a ReferenceGrant\?\)|Backend ref to \w+ \S+ not permitted by any ReferenceGrant|BackendRef\.Namespace must match the route's namespace or be covered by a ReferenceGrant|and no ReferenceGrant allowing reference is configured`), RouteRefNotPermitted},
	{regexp.MustCompile(`referencing unsupported backendRef|backendRef \d+: Kind is invalid|backendRefs\[\d+\]\.kind: Unsupported value`), RouteBackendInvalidKind},
	{regexp.MustCompile(`\bPort \d+ not found on Service|No matching port for Service|service "[^"]*" is invalid: port "[^"]*" on service "[^"]*" not matched`), RouteBackendPortNotFound},
	{regexp.MustCompile(`backendRefs\[\d+\]\.name: Not found|backend\([^)]*\) not found|backendRef \d+: service \S+ not found|error finding backend service \S+ due to Service|unable to find associated Services|service "[^"]*" is invalid: service "[^"]*" not found|(?m:^(?:\s*Message:\s+)?Service "[^"]*" not found$)`), RouteBackendNotFound},
}

// gatewayReasons are the Gateway API's condition reasons (apis/v1 of
// gateway-api v1.6.3, and the implementation-specific ones the corpus
// shows), each with the cause it stands for when the message says no
// more: its own words decide first (RefNotPermitted is a listener's
// certificate or a route's backend; UnsupportedProtocol a listener's or a
// backend's appProtocol).
var gatewayReasons = map[string]chain.CauseID{
	"InvalidParameters": GatewayClassNotAccepted, "UnsupportedVersion": GatewayClassNotAccepted, "OlderGatewayClassExists": GatewayClassNotAccepted,
	"UnsupportedAddress": GatewayNotAccepted, "ListenersNotValid": GatewayNotAccepted,
	"AddressNotAssigned": GatewayNotProgrammed, "AddressNotUsable": GatewayNotProgrammed, "NoResources": GatewayNotProgrammed,
	"ListenersNotReady": GatewayNotProgrammed, "Pending": GatewayNotProgrammed,
	"PortUnavailable": GatewayListenerInvalid, "InvalidRouteKinds": GatewayListenerInvalid, "UnsupportedProtocol": GatewayListenerInvalid,
	"HostnameConflict": GatewayListenerConflicted, "ProtocolConflict": GatewayListenerConflicted, "DuplicateListener": GatewayListenerConflicted,
	"InvalidCertificateRef": GatewayListenerCertificateInvalid,
	"NotAllowedByListeners": RouteNotAllowedByListeners, "NoMatchingParent": RouteNoMatchingParent,
	"NoMatchingListenerHostname": RouteHostnameMismatch, "UnsupportedValue": RouteNotAccepted, "IncompatibleFilters": RouteNotAccepted,
	"BackendNotFound": RouteBackendNotFound, "PortNotFound": RouteBackendPortNotFound, "RefNotPermitted": RouteRefNotPermitted,
	"InvalidKind": RouteBackendInvalidKind,
}

// gatewayReasonNames are gatewayReasons' keys, which the registry's
// Gateway decoder claims.
var gatewayReasonNames = func() []string {
	var out []string
	for r := range gatewayReasons {
		out = append(out, r)
	}
	return out
}()

// gatewayWords decodes a Gateway API controller's message.
func gatewayWords(message string) (Decoded, bool) {
	for _, p := range gatewayPatterns {
		if p.re.MatchString(message) {
			return gatewayDecoded(p.cause), true
		}
	}
	return Decoded{}, false
}

// explainGateway decodes a condition's reason and message: the message's
// words first, then what the reason stands for.
func explainGateway(reason, message string) []Decoded {
	if d, ok := gatewayWords(message); ok {
		return []Decoded{d}
	}
	if reason == "Pending" {
		// cert-manager's CertificateRequest is Ready False for the same
		// reason ("Referenced issuer does not have a Ready status
		// condition", "Waiting on certificate issuance from order ..."):
		// its words say which it is.
		if d, ok := ProducerWords(message); ok {
			return []Decoded{d}
		}
	}
	if id, ok := gatewayReasons[reason]; ok {
		return []Decoded{gatewayDecoded(id)}
	}
	return nil
}

// gatewayDecoded is the cause, waiting ones marked as progress.
func gatewayDecoded(id chain.CauseID) Decoded {
	return Decoded{Cause: id, Progressing: id == GatewayNotProgrammed || id == GatewayClassNoController || id == RouteNoController}
}
