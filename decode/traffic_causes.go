package decode

import "github.com/kubectl-chain/kubectl-chain/chain"

// Causes of the traffic kinds' chains (svc/NAME, ing/NAME): the object,
// an Ingress's class and backends, a Service's selector. The workloads
// behind them are judged by their own chains and quoted with their own
// causes; the EndpointSlices and load balancers by the serving causes.
const (
	TrafficObjectNotFound      chain.CauseID = "TrafficObjectNotFound"
	ServiceSelectsNoPods       chain.CauseID = "ServiceSelectsNoPods"
	IngressClassNotFound       chain.CauseID = "IngressClassNotFound"
	IngressClassNoController   chain.CauseID = "IngressClassNoController"
	IngressBackendNotFound     chain.CauseID = "IngressBackendNotFound"
	IngressBackendPortNotFound chain.CauseID = "IngressBackendPortNotFound"
	IngressTLSSecretMissing    chain.CauseID = "IngressTLSSecretMissing"
	IngressLoadBalancerFailed  chain.CauseID = "IngressLoadBalancerFailed"
	NoReadyEndpoint            chain.CauseID = "NoReadyEndpoint"
)

var trafficCauses = []Cause{
	{ID: TrafficObjectNotFound, Link: chain.LinkStored,
		Summary:  "the Service, Ingress, Gateway or route does not exist in this namespace",
		NextStep: "check the name and namespace: kubectl get services,ingresses -n {NAMESPACE}, or kubectl get gateways,httproutes -n {NAMESPACE} (or pass -n)",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: IngressClassNotFound, Link: chain.LinkClass,
		Summary:  "the Ingress names an IngressClass that does not exist, or names none and no class is the default: no controller will serve it",
		NextStep: "kubectl get ingressclasses; set spec.ingressClassName to one of them, or mark one default (annotation ingressclass.kubernetes.io/is-default-class: \"true\")",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: IngressClassNoController, Link: chain.LinkClass,
		Summary:  "no ingress controller has acted on the Ingress: no address in status.loadBalancer and no controller event; the class's controller is not running",
		NextStep: "check that the controller named by the IngressClass's spec.controller runs: kubectl get ingressclass {CLASS} -o jsonpath='{.spec.controller}', then its pods and logs",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: IngressLoadBalancerFailed, Link: chain.LinkClass,
		Summary:  "the Ingress's controller acted on it but failed to build or program its cloud load balancer (subnets, certificate, permissions, quota or an annotation it refuses): the Ingress gets no address",
		NextStep: "read the controller's Warning event: kubectl describe ingress {NAME} -n {NAMESPACE}; fix the subnet tags, certificate, IAM permissions, quota or annotation it names",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: IngressBackendNotFound, Link: chain.LinkBackends,
		Summary:  "a backend of the Ingress names a Service that does not exist in its namespace: the controller has nowhere to send that path",
		NextStep: "create the Service, or fix the backend's service.name: kubectl get services -n {NAMESPACE}",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: IngressBackendPortNotFound, Link: chain.LinkBackends,
		Summary:  "a backend of the Ingress names a port its Service does not have (by name or number)",
		NextStep: "set the backend's service.port to a port of the Service: kubectl get service {SERVICE} -n {NAMESPACE} -o jsonpath='{.spec.ports}'",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: IngressTLSSecretMissing, Link: chain.LinkBackends,
		Summary:  "the ingress controller reports that a TLS secret of the Ingress does not exist: it serves its default certificate, or none",
		NextStep: "create the Secret spec.tls[].secretName names (or the Certificate that writes it), in the Ingress's namespace",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: ServiceSelectsNoPods, Link: chain.LinkSelector,
		Summary:  "the Service's selector matches no pod and no workload's pod template in its namespace: its endpoints stay empty",
		NextStep: "compare the selector with the pods' labels: kubectl get service {SERVICE} -n {NAMESPACE} -o jsonpath='{.spec.selector}'; kubectl get pods -n {NAMESPACE} --show-labels",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: NoReadyEndpoint, Link: chain.LinkWorkloads,
		Summary:  "the Service selects pods but none is ready, and no workload's chain says why (pods of another owner, or none read)",
		NextStep: "kubectl get pods -n {NAMESPACE} -l {SELECTOR} and look at why they are not ready",
		Terminal: TerminalRule{Mode: AfterGrace}},
}
