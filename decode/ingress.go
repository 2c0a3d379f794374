package decode

import "regexp"

// What ingress controllers say of an Ingress whose class, backend or TLS
// secret is wrong, in several controllers' wording (see the corpus's
// messages/ingress.yaml for each one's source).
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
	}
	return Decoded{}, false
}
