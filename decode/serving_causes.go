package decode

import "github.com/kubectl-chain/kubectl-chain/chain"

// Causes of the serving link: past ready, the Services that should send
// traffic to the pods, the EndpointSlices the EndpointSlice controller
// writes for them, and the load balancers a service controller provisions.
const (
	ServiceSelectorMismatch   chain.CauseID = "ServiceSelectorMismatch"
	ServiceTargetPortNotFound chain.CauseID = "ServiceTargetPortNotFound"
	EndpointsMissing          chain.CauseID = "EndpointsMissing"
	// ServiceTargetPortNotListening: a numbered targetPort no container
	// declares, while the pods declare and probe another port.
	ServiceTargetPortNotListening chain.CauseID = "ServiceTargetPortNotListening"
	LoadBalancerPending           chain.CauseID = "LoadBalancerPending"
	LoadBalancerFailed            chain.CauseID = "LoadBalancerFailed"
	LoadBalancerNoController      chain.CauseID = "LoadBalancerNoController"
	HeadlessServiceMissing        chain.CauseID = "HeadlessServiceMissing"
)

var servingCauses = []Cause{
	{ID: ServiceSelectorMismatch, Link: chain.LinkServing,
		Summary:  "a Service meant for the pods selects none of them: its selector asks for labels the pods do not carry",
		NextStep: "make the Service's spec.selector match the pod template's labels: kubectl get service {SERVICE} -n {NAMESPACE} -o jsonpath='{.spec.selector}'",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: ServiceTargetPortNotFound, Link: chain.LinkServing,
		Summary:  "a Service's targetPort names a port no container of the pods declares (with that protocol): the EndpointSlice controller leaves the port out",
		NextStep: "name the container port in spec.template.spec.containers[].ports[].name, or set the Service's targetPort to the port's name or number",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: ServiceTargetPortNotListening, Link: chain.LinkServing,
		Summary:  "a Service sends to a port number no container declares, while the pods declare another port and pass their probe on it: the program answers there, and connections to the target are refused",
		NextStep: "set the Service's targetPort to the port the program listens on (the one its probe checks): kubectl edit service {SERVICE} -n {NAMESPACE}",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: EndpointsMissing, Link: chain.LinkServing,
		Summary:  "ready pods the Service selects are not ready endpoints in its EndpointSlices: the EndpointSlice controller has not written them",
		NextStep: "kubectl get endpointslices -n {NAMESPACE} -l kubernetes.io/service-name={SERVICE}; check that kube-controller-manager runs its endpointslice controller",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: LoadBalancerPending, Link: chain.LinkServing,
		Summary:  "the service controller is provisioning the Service's load balancer",
		NextStep: "wait; kubectl describe service {SERVICE} -n {NAMESPACE} shows the service controller's events",
		Terminal: TerminalRule{Mode: Transient}},
	{ID: LoadBalancerFailed, Link: chain.LinkServing,
		Summary:  "the service controller failed to provision the Service's load balancer",
		NextStep: "read the cloud's words in the SyncLoadBalancerFailed event: kubectl describe service {SERVICE} -n {NAMESPACE}; fix the annotations, quota or permissions it names",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: LoadBalancerNoController, Link: chain.LinkServing,
		Summary:  "a Service of type LoadBalancer has no address and no controller has acted on it (no cloud provider, or no load-balancer implementation such as MetalLB)",
		NextStep: "install a load-balancer implementation for this cluster, set spec.loadBalancerClass to one that runs, or use type NodePort or ClusterIP with an Ingress or Gateway",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: HeadlessServiceMissing, Link: chain.LinkServing,
		Summary:  "the StatefulSet's spec.serviceName names no headless Service: its pods' stable DNS names (POD.SERVICE) do not resolve",
		NextStep: "create a Service with clusterIP: None and the StatefulSet's selector, named as spec.serviceName",
		Terminal: TerminalRule{Mode: AfterGrace}},
}
