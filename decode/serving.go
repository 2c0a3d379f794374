package decode

import (
	"regexp"
	"strings"
)

// servingReasons are the event reasons of the service controller
// (k8s.io/cloud-provider controllers/service/controller.go v0.37.2:
// SyncLoadBalancerFailed, UpdateLoadBalancerFailed, EnsuringLoadBalancer;
// CreatingLoadBalancerFailed before 1.10) and of MetalLB's controller
// (AllocationFailed), whose messages Serving decodes.
var servingReasons = []string{"SyncLoadBalancerFailed", "CreatingLoadBalancerFailed", "UpdateLoadBalancerFailed", "EnsuringLoadBalancer", "AllocationFailed"}

var (
	// lbFailedRE: the service controller's failure, in every release's
	// wording ("Error syncing load balancer: failed to ensure load
	// balancer: CLOUD'S WORDS"; "Error creating load balancer (will
	// retry): failed to ensure load balancer for service NS/NAME: ..."),
	// the same controller's failure to update the nodes behind it ("Error
	// updating load balancer with new hosts %v: %v", UpdateLoadBalancerFailed),
	// the GCE provider's own log of it ("Failed to EnsureLoadBalancer(...),
	// err: ..."), MetalLB's "Failed to allocate IP for "NS/NAME": no
	// available IPs" and its controller's log of the same ("error":"no
	// available IPs","msg":"IP allocation failed").
	lbFailedRE = regexp.MustCompile(`(?i)error (?:syncing|creating|updating) load balancer|failed to (?:ensure|create) load balancer|failed to EnsureLoadBalancer\(|failed to allocate IP for "[^"]*"|"error":"no available IPs|"msg":"IP allocation failed"`)
	// noCloudProviderRE: the service controller's init() refusing to start
	// (k8s.io/cloud-provider controllers/service, pkg/controller/service
	// before), which kube-controller-manager logs as "Failed to start
	// service controller": no cloud provider, or one without load
	// balancers. Nothing will give a LoadBalancer Service an address.
	noCloudProviderRE = regexp.MustCompile(`no cloud provider provided, services of type LoadBalancer will fail|the cloud provider does not support external load balancers`)
	// lbPendingGetRE is a `kubectl get svc` row of a LoadBalancer Service
	// whose EXTERNAL-IP is still <pending>.
	lbPendingGetRE = regexp.MustCompile(`\bLoadBalancer\s+\S+\s+<pending>`)
	// noEndpointsRE: what the ingress controllers and kubectl say of a
	// Service with no ready endpoint: ingress-nginx "Service "NS/NAME"
	// does not have any active Endpoint", Traefik v2 "Skipping service: no
	// endpoints found" and v1 "Service endpoints not found for",
	// `kubectl describe svc`'s empty or <none> Endpoints line and `kubectl
	// get endpoints`' <none>, an Endpoints object with no subsets, k8sgpt
	// "Service has not ready endpoints".
	noEndpointsRE = regexp.MustCompile(`(?im)does not have any active Endpoint|no endpoints found|Service endpoints not found|has not ready endpoints|^\s*Endpoints:\s*(?:<none>)?\s*$|^\S*\s+<none>\s+\S+\s*$|^subsets: \[\]|<error: endpoints "[^"]*" not found>|Endpoint not found for|No targets could be found for kubernetes service|^no available endpoints$`)
	// unsetPortRE is a `kubectl get endpointslices` row whose PORTS are
	// <unset>: the EndpointSlice controller found no container port for
	// the Service's targetPort (FindPort), so the endpoint has none; an
	// upstream at port 0 is the proxy's view of the same.
	unsetPortRE = regexp.MustCompile(`(?m)\bIPv[46]\s+<unset>\s+\d|:0: invalid port while connecting to upstream`)
	// lbDescribeRE is `kubectl describe svc` of a LoadBalancer Service.
	lbDescribeRE = regexp.MustCompile(`(?m)^Type:\s+LoadBalancer\s*$`)
	// stsServiceRE is k8sgpt's StatefulSet analyzer on a missing Service.
	stsServiceRE = regexp.MustCompile(`StatefulSet uses the service \S+ which does not exist`)
	// ordinalDNSRE is a lookup of a StatefulSet pod's own name
	// (NAME-N.SERVICE.NAMESPACE.svc) that found nothing: only a headless
	// Service named as spec.serviceName makes it resolve.
	ordinalDNSRE = regexp.MustCompile(`(?is)[a-z0-9-]+-\d+\.[a-z0-9-]+\.[a-z0-9-]+\.svc\b.*(?:can't resolve|nxdomain)`)
)

// Serving decodes what the service controller, a load-balancer
// implementation, an ingress controller or kubectl say of a Service that
// does not send traffic to ready pods, and linters of a StatefulSet whose
// governing Service is missing. It claims its own wording, with or without
// the reason.
func Serving(reason, message string) (Decoded, bool) {
	// A Gateway API controller's wording first: Contour words a route's
	// missing port as it words an Ingress's, inside its own prefix.
	if d, ok := gatewayWords(message); ok {
		return d, true
	}
	if d, ok := ingressWords(message); ok {
		return d, true
	}
	switch {
	case lbFailedRE.MatchString(message) || reason == "SyncLoadBalancerFailed" || reason == "CreatingLoadBalancerFailed" || reason == "UpdateLoadBalancerFailed":
		return Decoded{Cause: LoadBalancerFailed, Summary: "the load balancer failed: " + CloudWords(message)}, true
	case strings.Contains(message, "Ensuring load balancer") || reason == "EnsuringLoadBalancer":
		return Decoded{Cause: LoadBalancerPending, Progressing: true}, true
	case lbPendingGetRE.MatchString(message), noCloudProviderRE.MatchString(message),
		// describe of a LoadBalancer Service with no address and no event
		lbDescribeRE.MatchString(message) && !strings.Contains(message, "LoadBalancer Ingress:") && strings.Contains(message, "No events."):
		return Decoded{Cause: LoadBalancerNoController}, true
	case strings.Contains(message, "Service has no endpoints, expected label"):
		// k8sgpt's Service analyzer: no pod carries the selector's labels.
		return Decoded{Cause: ServiceSelectorMismatch}, true
	case unsetPortRE.MatchString(message):
		return Decoded{Cause: ServiceTargetPortNotFound}, true
	case strings.Contains(message, "does not have a valid serviceName") || stsServiceRE.MatchString(message) || ordinalDNSRE.MatchString(message):
		// kube-score's and k8sgpt's StatefulSet checks.
		return Decoded{Cause: HeadlessServiceMissing}, true
	case noEndpointsRE.MatchString(message):
		return Decoded{Cause: EndpointsMissing,
			Summary: "the Service has no ready endpoint: no ready pod carries its selector's labels, or the EndpointSlice controller has not listed them",
			NextStep: "compare the Service's selector with the pods' labels (kubectl get pods -l SELECTOR -n {NAMESPACE}), then their readiness: " +
				"kubectl chain on the workload names the link that keeps them out"}, true
	}
	return Decoded{}, false
}

// CloudWords is what the cloud said, past the service controller's
// wrapping ("Error syncing load balancer: failed to ensure load balancer:
// "). The walk quotes it in the summary of a Service's failed load
// balancer, as LoadBalancerFailed's decoder does.
func CloudWords(message string) string {
	msg, _, _ := strings.Cut(message, "\n")
	for _, wrap := range []string{"failed to ensure load balancer", "Failed to ensure load balancer", "Failed to create load balancer", "Error syncing load balancer", "Error creating load balancer (will retry)"} {
		if i := strings.LastIndex(msg, wrap); i >= 0 {
			rest := msg[i+len(wrap):]
			if j := strings.Index(rest, ": "); j >= 0 && j < 60 {
				rest = rest[j+2:]
			}
			if strings.TrimSpace(rest) != "" {
				return strings.TrimSpace(rest)
			}
		}
	}
	return msg
}

// explainServing is Serving for explain: one cause or none.
func explainServing(reason, message string) []Decoded {
	if d, ok := Serving(reason, message); ok {
		return []Decoded{d}
	}
	return nil
}
