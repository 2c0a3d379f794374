package state

import "strings"

// Component names, as used by `logs COMPONENT`, the pid and log files, and the
// hidden `component` subcommand.
const (
	Etcd              = "etcd"
	APIServer         = "kube-apiserver"
	ControllerManager = "kube-controller-manager"
	Scheduler         = "kube-scheduler"
	Kubelet           = "kubelet"
	// AdmissionWebhook is the lab's own webhook server (lab/webhook),
	// which admission scenarios point their webhook configurations at.
	AdmissionWebhook = "admission-webhook"
	// StorageProvisioner serves the default StorageClass: it provisions a
	// hostPath PersistentVolume under the lab's state directory per claim.
	StorageProvisioner = "storage-provisioner"
	// TrafficController is the lab's Ingress and Gateway API controller
	// (up --traffic-controller): Traefik's Kubernetes providers, built by
	// the module lab/trafficbin.
	TrafficController = "traffic-controller"
	// RolloutsController is Argo Rollouts' controller (up
	// --rollouts-controller), built by the module lab/rolloutsbin.
	RolloutsController = "rollouts-controller"
	// Operator is the lab's own operator (lab/operator): Shops
	// that own a Deployment and a StatefulSet.
	Operator = "lab-operator"
)

// EngineLabel is on every node of a lab: EngineSimulated on the simulated
// kubelet's, EngineReal on real nodes, so pods can be pinned to either.
const (
	EngineLabel     = "lab.kubectl-chain.io/engine"
	EngineSimulated = "simulated"
	EngineReal      = "real"
)

// Runtime handlers every node of a lab has, simulated or real, besides
// the default runc: HandlerCNIMissing is runc with a CNI configuration of
// its own that names a plugin the nodes do not have (CNIMissingPlugin, in
// network CNIMissingNetwork), so the sandboxes of pods of a RuntimeClass
// with that handler fail to get a network as on a node whose CNI plugin
// was never installed. A handler not listed is not configured.
const (
	HandlerRunc       = "runc"
	HandlerCNIMissing = "cni-missing"
	CNIMissingPlugin  = "flannel"
	CNIMissingNetwork = "cbr0"
)

// Registry is the lab's image registry, which only real nodes pull from.
const Registry = "registry"

// Containerd is the component that runs a real node's containerd.
func Containerd(node string) string { return "containerd-" + node }

// RealKubelet is the component that runs a real node's kubelet.
func RealKubelet(node string) string { return "kubelet-" + node }

// RealNodeOf is the real node a component of a real node belongs to.
func RealNodeOf(component string) (node string, ok bool) {
	for _, prefix := range []string{"containerd-", "kubelet-"} {
		if n, found := strings.CutPrefix(component, prefix); found && strings.HasPrefix(n, "real-node-") {
			return n, true
		}
	}
	return "", false
}

// Components are the fixed processes of a lab, in start order.
var Components = []string{Etcd, APIServer, ControllerManager, Scheduler, Kubelet, AdmissionWebhook, StorageProvisioner, Operator}

// IsComponent reports whether name is one of Components, or the registry or
// a real node's component of some lab.
func IsComponent(name string) bool {
	for _, c := range Components {
		if c == name {
			return true
		}
	}
	_, real := RealNodeOf(name)
	return real || name == Registry || name == TrafficController || name == RolloutsController
}
