package state

// Component names, as used by `logs COMPONENT`, the pid and log files, and the
// hidden `component` subcommand.
const (
	Etcd              = "etcd"
	APIServer         = "kube-apiserver"
	ControllerManager = "kube-controller-manager"
	Scheduler         = "kube-scheduler"
	Kubelet           = "kubelet"
	// AdmissionWebhook is the lab's own webhook server (internal/lab/webhook),
	// which admission scenarios point their webhook configurations at.
	AdmissionWebhook = "admission-webhook"
	// StorageProvisioner serves the default StorageClass: it provisions a
	// hostPath PersistentVolume under the lab's state directory per claim.
	StorageProvisioner = "storage-provisioner"
)

// Components are every process of a lab, in start order.
var Components = []string{Etcd, APIServer, ControllerManager, Scheduler, Kubelet, AdmissionWebhook, StorageProvisioner}

// IsComponent reports whether name is one of Components.
func IsComponent(name string) bool {
	for _, c := range Components {
		if c == name {
			return true
		}
	}
	return false
}
