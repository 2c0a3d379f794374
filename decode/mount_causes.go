package decode

import "github.com/kubectl-chain/kubectl-chain/chain"

// mountCauses are the catalogue entries for volume failures. All are judged
// after a grace window: volume setup retries on its own and real clusters show
// short failures (a ConfigMap published a moment late, a detach finishing);
// and, since it retries with a back-off, only once a retry after the grace
// failed too (TerminalRule.Retried).
var mountCauses = []Cause{
	{
		ID:       VolumeConfigMapNotFound,
		Link:     chain.LinkContainers,
		Summary:  "a ConfigMap mounted as a volume does not exist",
		NextStep: "create the ConfigMap in the pod's namespace (kubectl create configmap NAME --from-file=...), or fix spec.template.spec.volumes[].configMap.name",
		Terminal: TerminalRule{Mode: AfterGrace, Retried: true},
	},
	{
		ID:       VolumeSecretNotFound,
		Link:     chain.LinkContainers,
		Summary:  "a Secret mounted as a volume does not exist",
		NextStep: "create the Secret in the pod's namespace (kubectl create secret generic NAME --from-file=...), or fix spec.template.spec.volumes[].secret.secretName",
		Terminal: TerminalRule{Mode: AfterGrace, Retried: true},
	},
	{
		ID:       VolumePVCNotFound,
		Link:     chain.LinkContainers,
		Summary:  "a PersistentVolumeClaim used by the pod does not exist",
		NextStep: "create the PersistentVolumeClaim in the pod's namespace, or fix spec.template.spec.volumes[].persistentVolumeClaim.claimName",
		Terminal: TerminalRule{Mode: AfterGrace, Retried: true},
	},
	{
		ID:       MultiAttachError,
		Link:     chain.LinkContainers,
		Summary:  "a single-node (ReadWriteOnce) volume is still attached to another node",
		NextStep: "let the pod on the other node go first: use strategy.type Recreate (or a StatefulSet) for single-writer volumes, or a ReadWriteMany volume; kubectl get volumeattachment shows where it is attached",
		Terminal: TerminalRule{Mode: AfterGrace, Retried: true},
	},
	{
		ID:       VolumeMountFailed,
		Link:     chain.LinkContainers,
		Summary:  "a volume could not be attached or mounted",
		NextStep: "kubectl describe pod shows the failing volume; check its PersistentVolumeClaim, kubectl get volumeattachment and the storage (CSI) driver's logs on the node",
		Terminal: TerminalRule{Mode: AfterGrace, Retried: true},
		Generic:  true,
	},
	{
		ID:       VolumeAttachTimeout,
		Link:     chain.LinkContainers,
		Summary:  "attaching a volume to the node does not complete (the CSI attacher or the cloud's disk API is slow or stuck)",
		NextStep: "kubectl get volumeattachment (its status.attachError), then the CSI driver's controller pod and its external-attacher sidecar logs, and the disk in the cloud console",
		Terminal: TerminalRule{Mode: AfterGrace, Retried: true},
	},
	{
		ID:       VolumeAttachFailed,
		Link:     chain.LinkContainers,
		Summary:  "the storage backend refused to attach a volume to the node",
		NextStep: "read the backend's error in the FailedAttachVolume event; kubectl get volumeattachment, then the disk's state in the cloud or storage system (being detached, deleted, or the node over its disk limit)",
		Terminal: TerminalRule{Mode: AfterGrace, Retried: true},
	},
	{
		ID:       VolumeMountTimeout,
		Link:     chain.LinkContainers,
		Summary:  "the kubelet gave up waiting for the pod's volumes to attach and mount",
		NextStep: "find the volume's own error: the FailedMount or FailedAttachVolume events before this one (kubectl describe pod), kubectl get volumeattachment, and the CSI node plugin's logs on the node",
		Terminal: TerminalRule{Mode: AfterGrace, Retried: true},
	},
	{
		ID:       CSIDriverNotRegistered,
		Link:     chain.LinkContainers,
		Summary:  "the volume's CSI driver is not registered on the node (its node plugin is not running there)",
		NextStep: "check the CSI driver's node DaemonSet has a ready pod on the node (kubectl get pods -A -o wide --field-selector spec.nodeName={NODE}) and kubectl get csinode {NODE} lists the driver; install the driver if it is missing",
		Terminal: TerminalRule{Mode: AfterGrace, Retried: true},
	},
	{
		ID:       SecretProviderMountFailed,
		Link:     chain.LinkContainers,
		Summary:  "the Secrets Store CSI driver cannot mount a secrets-store volume: its provider cannot fetch the objects the SecretProviderClass names from the external store (the identity it uses, that identity's access, or the class's parameters)",
		NextStep: "kubectl describe secretproviderclass -n {NAMESPACE} (kubectl describe pod names the volume); the provider's pod logs on the node (Azure, AWS, GCP, Vault); check the identity it reads with (workload identity, pod identity, IRSA) and that identity's access to each object",
		Terminal: TerminalRule{Mode: AfterGrace, Retried: true},
	},
}
