package decode

import "regexp"

// What ingress controllers say of an Ingress whose class, backend, TLS
// secret or cloud load balancer is wrong, in several controllers' wording
// (see the corpus's messages/ingress.yaml for each one's source).
var (
	// ingressClassMissingRE: ingress-nginx's store, when the class an
	// Ingress names does not exist or it names none.
	ingressClassMissingRE = regexp.MustCompile(`(?i)validating ingress class.*no object matching key|does not contain a valid IngressClass`)
	// ingressClassOtherRE: a controller that ignores the Ingress (another
	// class's), or a kubectl get ingress row with no ADDRESS.
	ingressClassOtherRE = regexp.MustCompile(`(?i)Ignoring ingress because of error while validating ingress class|ingress class annotation is not equal to the expected|ignoring add for ingress \S+ based on annotation|(?m:^NAME\s+HOSTS\s+ADDRESS\s+PORTS\s+AGE\s*\n\S+\s+\S+\s+\d+(?:,\s*\d+)*\s+\S+\s*$)`)
	// ingressBackendMissingRE: the backend Service does not exist
	// (ingress-nginx, Traefik, GKE, AWS, HAProxy, Azure, Kong, Contour,
	// kubectl describe ingress).
	ingressBackendMissingRE = regexp.MustCompile(`Error obtaining Endpoints for Service "[^"]*": no object matching key|<error: services "[^"]*" not found>|getting service: service \\?"[^"\\]*\\?" not found|could not find service "|Failed build model due to ingress: .*Service "[^"]*" not found|^service '[^']*' does not exist$|error getting service \S+ from the cache: service \S+ was not found|references non existent Service|failed to fetch Service \S+: Service \S+ not found|^service "[^"]*" not found$`)
	// ingressPortMissingRE: the backend Service has no such port.
	ingressPortMissingRE = regexp.MustCompile(`(?i)service port not found|unable to find port \S+ on service|Unable to find a port defined in the|could not find port "[^"]*" in service|no service port matching|ErrorServiceResolvedToInvalidPort|does not have a port named|port "[^"]*" on service "[^"]*" not matched`)
	// ingressLBFailedRE: a controller that acted on the Ingress and failed
	// to build or program its cloud load balancer. The AWS Load Balancer
	// Controller's FailedBuildModel and FailedDeployModel events ("Failed
	// build model due to %v", "Failed deploy model due to %v" in v2's
	// controllers/ingress/group_controller.go), its subnet discovery
	// (pkg/networking/subnet_resolver.go: "unable to resolve at least one
	// subnet" since v2.5, "unable to discover at least one subnet" before,
	// v2.0's "cannot find at least two subnets from different Availability
	// Zones"), a certificate ELB refuses (CertificateNotFound, "Certificate
	// ARN '...' is not valid"), a target group of port 0 (a ClusterIP
	// backend with instance targets: "CreateTargetGroupInput.Port"), the v1
	// ALB controller's "ACM certificate ARN does not exist"; ingress-gce's
	// backend it cannot put behind a load balancer ("is type "ClusterIP",
	// expected "NodePort" or "LoadBalancer"", pkg/controller/errors) and its
	// Sync warnings ("Error syncing to GCP: %v" in pkg/controller/controller.go,
	// "Error during sync: %v" before it).
	ingressLBFailedRE = regexp.MustCompile(`Failed (?:build|deploy) model due to|couldn't auto-discover subnets|unable to (?:discover|resolve) at least one subnet|cannot find at least two subnets from different Availability Zones|ACM certificate ARN does not exist|CertificateNotFound: Certificate '|Certificate ARN '[^']*' is not valid|minimum field value of 1, CreateTargetGroupInput\.Port|is type "ClusterIP", expected "NodePort" or "LoadBalancer"|Error syncing to GCP: |Error during sync: `)
	// lbcServiceRE: the AWS controller's same words about a Service of
	// type LoadBalancer (its service reconciler, controllers/service): the
	// Service's load balancer failed, not the Ingress's.
	lbcServiceRE = regexp.MustCompile(`"controller":"service"|"logger":"controller\.service"|(?:^|\s)service\s+(?:\(combined from similar events\): )?Failed (?:build|deploy) model|\bservice/\S+\s+Failed (?:build|deploy) model`)
	// ingressTLSMissingRE: the TLS secret an Ingress names is missing.
	ingressTLSMissingRE = regexp.MustCompile(`Error getting SSL certificate "[^"]*": local SSL certificate \S+ was not found|Error configuring TLS.*secret \S+ does not exist|Could not find TLS certificate|error getting secrets for Ingress|Unable to find the secret associated to secretId|^secret '[^']*' does not exist$|^Secret not found$|Failed to fetch the secret \(`)
)

// ingressWords decodes an ingress controller's message about an Ingress.
func ingressWords(message string) (Decoded, bool) {
	switch {
	case ingressClassMissingRE.MatchString(message):
		return Decoded{Cause: IngressClassNotFound}, true
	case ingressClassOtherRE.MatchString(message):
		return Decoded{Cause: IngressClassNoController}, true
	case ingressTLSMissingRE.MatchString(message):
		return Decoded{Cause: IngressTLSSecretMissing}, true
	case ingressPortMissingRE.MatchString(message):
		return Decoded{Cause: IngressBackendPortNotFound}, true
	case ingressBackendMissingRE.MatchString(message):
		return Decoded{Cause: IngressBackendNotFound}, true
	case ingressLBFailedRE.MatchString(message) && lbcServiceRE.MatchString(message):
		return Decoded{Cause: LoadBalancerFailed, Summary: "the load balancer failed: " + CloudWords(message)}, true
	case ingressLBFailedRE.MatchString(message):
		return Decoded{Cause: IngressLoadBalancerFailed}, true
	}
	return Decoded{}, false
}
