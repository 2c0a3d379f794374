package decode

import (
	"testing"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// klPV is a dynamically provisioned volume's name, as the attach/detach
// controller and the kubelet print it.
const klPV = "pvc-3f1c9b1e-7a8d-4c55-9e0b-2d6f4a1b8c77"

// klMountCases are real kubelet and attach/detach controller texts for Mount.
var klMountCases = []klCase{
	{
		// Azure/secrets-store-csi-driver-provider-azure#476: the Secrets
		// Store CSI driver's "failed to mount secrets store objects for pod
		// %s/%s, err: %w" (v1.6.0 pkg/secrets-store/nodeserver.go#L251), its
		// Azure provider without a Key Vault token.
		name: "secrets store provider cannot fetch", reason: "FailedMount",
		message: `MountVolume.SetUp failed for volume "secrets-store-inline" : rpc error: code = Unknown desc = failed to mount secrets store objects for pod services/busybox-secrets-store-inline, err: rpc error: code = Unknown desc = failed to mount objects, error: failed to get keyvault client: failed to get key vault token: nmi response failed with status code: 404, err: <nil>`,
		ok:      true,
		want: Decoded{
			Cause:   SecretProviderMountFailed,
			Summary: `the Secrets Store CSI driver cannot fetch the objects of volume "secrets-store-inline" from its provider: rpc error: code = Unknown desc = failed to mount secrets store objects for pod services/busybox-secrets-store-inline, err: rpc error: code = Unknown desc = failed to mount objects, error: failed to ge...`,
			Details: []chain.Detail{{Key: "volume", Value: "secrets-store-inline"}},
		},
	},
	{
		// hashicorp/vault-csi-provider#179: an inline volume of a driver
		// with no CSIDriver object, "volume mode %q not supported by driver
		// %s (no CSIDriver object)" (pkg/volume/csi/csi_plugin.go): the
		// driver is not installed.
		name: "inline volume of a driver not installed", reason: "FailedMount",
		message: `MountVolume.NewMounter initialization failed for volume "secrets-store-inline" : volume mode "Ephemeral" not supported by driver secrets-store.csi.k8s.io (no CSIDriver object)`,
		ok:      true,
		want: Decoded{
			Cause:    CSIDriverNotRegistered,
			Summary:  `volume "secrets-store-inline": CSI driver secrets-store.csi.k8s.io has no CSIDriver object: it is not installed`,
			NextStep: "install CSI driver secrets-store.csi.k8s.io (its CSIDriver object and node DaemonSet): kubectl get csidriver secrets-store.csi.k8s.io",
			Details:  []chain.Detail{{Key: "volume", Value: "secrets-store-inline"}, {Key: "driver", Value: "secrets-store.csi.k8s.io"}},
		},
	},
	{
		// pkg/volume/util/operationexecutor/operation_executor.go generateVolumeMsg "%v for volume %q %v"
		// with "MountVolume.SetUp failed" and errSuffix ": %v" (operation_generator.go); the configmap
		// plugin returns the kubelet manager's NotFound: "%s %q not found"
		name: "configmap volume", reason: "FailedMount",
		message: `MountVolume.SetUp failed for volume "config" : configmap "app-config" not found`,
		ok:      true,
		want: Decoded{
			Cause:    VolumeConfigMapNotFound,
			Summary:  `volume "config": ConfigMap "app-config" not found`,
			NextStep: `create ConfigMap "app-config" in the pod's namespace (kubectl create configmap app-config --from-file=...), or fix the configMap name of volume "config" in spec.template.spec.volumes`,
			Details:  []chain.Detail{{Key: "volume", Value: "config"}, {Key: "kind", Value: "configmap"}, {Key: "name", Value: "app-config"}},
		},
	},
	{
		// Same format; pkg/volume/secret/secret.go returns the secret manager's NotFound.
		name: "secret volume", reason: "FailedMount",
		message: `MountVolume.SetUp failed for volume "creds" : secret "db-creds" not found`,
		ok:      true,
		want: Decoded{
			Cause:    VolumeSecretNotFound,
			Summary:  `volume "creds": Secret "db-creds" not found`,
			NextStep: `create Secret "db-creds" in the pod's namespace (kubectl create secret generic db-creds --from-file=...), or fix the secret name of volume "creds" in spec.template.spec.volumes`,
			Details:  []chain.Detail{{Key: "volume", Value: "creds"}, {Key: "kind", Value: "secret"}, {Key: "name", Value: "db-creds"}},
		},
	},
	{
		// pkg/volume/projected/projected.go: the service account volume's ConfigMap source, NotFound.
		name: "kube-root-ca.crt not yet published", reason: "FailedMount",
		message: `MountVolume.SetUp failed for volume "kube-api-access-8xk2p" : configmap "kube-root-ca.crt" not found`,
		ok:      true,
		want: Decoded{
			Cause:    VolumeConfigMapNotFound,
			Summary:  `volume "kube-api-access-8xk2p": ConfigMap "kube-root-ca.crt" not found`,
			NextStep: `kube-controller-manager (root-ca-cert-publisher) creates ConfigMap "kube-root-ca.crt" in every namespace, usually within seconds; if it stays missing, check that the controller manager is running`,
			Details:  []chain.Detail{{Key: "volume", Value: "kube-api-access-8xk2p"}, {Key: "kind", Value: "configmap"}, {Key: "name", Value: "kube-root-ca.crt"}},
		},
	},
	{
		// pkg/volume/projected/projected.go: utilerrors.NewAggregate(errlist), "[" + ", "-joined + "]"
		// (apimachinery pkg/util/errors/errors.go)
		name: "projected volume, two missing sources", reason: "FailedMount",
		message: `MountVolume.SetUp failed for volume "app" : [configmap "app-config" not found, secret "db-creds" not found]`,
		ok:      true,
		want: Decoded{
			Cause:    VolumeConfigMapNotFound,
			Summary:  `volume "app": ConfigMap "app-config" not found`,
			NextStep: `create ConfigMap "app-config" in the pod's namespace (kubectl create configmap app-config --from-file=...), or fix the configMap name of volume "app" in spec.template.spec.volumes`,
			Details:  []chain.Detail{{Key: "volume", Value: "app"}, {Key: "kind", Value: "configmap"}, {Key: "name", Value: "app-config"}},
		},
	},
	{
		// pkg/volume/configmap/configmap.go: "configmap references non-existent config key: %s"
		name: "configmap volume key", reason: "FailedMount",
		message: `MountVolume.SetUp failed for volume "config" : configmap references non-existent config key: app.yaml`,
		ok:      true,
		want: Decoded{
			Cause:    ConfigKeyNotFound,
			Summary:  `volume "config": key "app.yaml" not found in its ConfigMap`,
			NextStep: `add key "app.yaml" to the ConfigMap of volume "config", or fix spec.template.spec.volumes[config].items[].key (or mark the source optional: true)`,
			Details:  []chain.Detail{{Key: "kind", Value: "configmap"}, {Key: "volume", Value: "config"}, {Key: "key", Value: "app.yaml"}},
		},
	},
	{
		// pkg/volume/secret/secret.go: "references non-existent secret key: %s"
		name: "secret volume key", reason: "FailedMount",
		message: `MountVolume.SetUp failed for volume "tls" : references non-existent secret key: tls.crt`,
		ok:      true,
		want: Decoded{
			Cause:    ConfigKeyNotFound,
			Summary:  `volume "tls": key "tls.crt" not found in its Secret`,
			NextStep: `add key "tls.crt" to the Secret of volume "tls", or fix spec.template.spec.volumes[tls].items[].key (or mark the source optional: true)`,
			Details:  []chain.Detail{{Key: "kind", Value: "secret"}, {Key: "volume", Value: "tls"}, {Key: "key", Value: "tls.crt"}},
		},
	},
	{
		// pkg/kubelet/kubelet.go: "Unable to attach or mount volumes: %v"; volume_manager.go:
		// "unmounted volumes=%v, unattached volumes=%v, failed to process volumes=%v: %w";
		// desired_state_of_world_populator.go: "error processing PVC %s/%s: %v",
		// "failed to fetch PVC from API server: %v"; the API server's "%s %q not found"
		name: "claim not found", reason: "FailedMount",
		message: `Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[], failed to process volumes=[data]: error processing PVC default/data: failed to fetch PVC from API server: persistentvolumeclaims "data" not found`,
		ok:      true,
		want: Decoded{
			Cause:    VolumePVCNotFound,
			Summary:  `PersistentVolumeClaim "data" not found`,
			NextStep: `create PersistentVolumeClaim "data" in namespace "default", or fix spec.template.spec.volumes[].persistentVolumeClaim.claimName`,
			Details: []chain.Detail{
				{Key: "unmountedVolumes", Value: "data"}, {Key: "claim", Value: "data"}, {Key: "namespace", Value: "default"},
			},
		},
	},
	{
		// Same formats; desired_state_of_world_populator.go: errors.New("PVC is not bound")
		name: "claim not bound", reason: "FailedMount",
		message: `Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[], failed to process volumes=[data]: error processing PVC default/data: PVC is not bound`,
		ok:      true,
		want: Decoded{
			Cause:    VolumeMountFailed,
			Summary:  `PersistentVolumeClaim default/data: PVC is not bound`,
			NextStep: `kubectl describe pvc data -n default: the claim must be Bound to a PersistentVolume before the pod can mount it`,
			Details: []chain.Detail{
				{Key: "unmountedVolumes", Value: "data"}, {Key: "claim", Value: "data"}, {Key: "namespace", Value: "default"},
			},
		},
	},
	{
		// Older kubelets: volume_manager.go "unmounted volumes=%v, unattached volumes=%v: %s" with
		// wait.ErrWaitTimeout "timed out waiting for the condition"
		name: "timeout, older kubelet", reason: "FailedMount",
		message: `Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[data kube-api-access-8xk2p]: timed out waiting for the condition`,
		ok:      true,
		want: Decoded{
			Cause:    VolumeMountTimeout,
			Summary:  `the kubelet timed out waiting for volumes [data] to attach and mount`,
			NextStep: `find why volumes [data] do not mount: the FailedMount or FailedAttachVolume events before this one (kubectl describe pod), kubectl get volumeattachment, and the storage driver on the node`,
			Details: []chain.Detail{
				{Key: "unmountedVolumes", Value: "data"}, {Key: "unattachedVolumes", Value: "data, kube-api-access-8xk2p"},
			},
		},
	},
	{
		// pkg/controller/volume/attachdetach/reconciler/reconciler.go reportMultiAttachError:
		// GenerateMsg("Waiting for detach", "Volume is already used by pod(s) %s" [+ " and %d pod(s) in different namespaces"])
		name: "waiting for detach, pods named", reason: "FailedAttachVolume",
		message: `Waiting for detach for volume "` + klPV + `" Volume is already used by pod(s) web-7d9c6b5d8-k8s7d and 1 pod(s) in different namespaces`,
		ok:      true,
		want: Decoded{
			Cause:    MultiAttachError,
			Summary:  `volume "` + klPV + `" is already used by pod(s) web-7d9c6b5d8-k8s7d on another node`,
			NextStep: `volume "` + klPV + `" can be attached to one node at a time: use strategy.type Recreate (or a StatefulSet) so the old pod lets go first, or a ReadWriteMany volume; kubectl get volumeattachment shows where it is attached`,
			Details:  []chain.Detail{{Key: "volume", Value: klPV}, {Key: "pods", Value: "web-7d9c6b5d8-k8s7d"}},
		},
	},
	{
		// reconciler.go: GenerateMsg("Waiting for detach", "Volume is already exclusively attached to one
		// node, waiting on detach before it can be attached to another node")
		name: "waiting for detach, no pods", reason: "FailedAttachVolume",
		message: `Waiting for detach for volume "` + klPV + `" Volume is already exclusively attached to one node, waiting on detach before it can be attached to another node`,
		ok:      true,
		want: Decoded{
			Cause:    MultiAttachError,
			Summary:  `volume "` + klPV + `" is still attached to another node`,
			NextStep: `volume "` + klPV + `" can be attached to one node at a time: use strategy.type Recreate (or a StatefulSet) so the old pod lets go first, or a ReadWriteMany volume; kubectl get volumeattachment shows where it is attached`,
			Details:  []chain.Detail{{Key: "volume", Value: klPV}},
		},
	},
	{
		// Earlier releases of reconciler.go: GenerateMsg("Multi-Attach error", "Volume is already used by pod(s) %s")
		name: "multi-attach error, earlier wording", reason: "FailedAttachVolume",
		message: `Multi-Attach error for volume "` + klPV + `" Volume is already used by pod(s) web-7d9c6b5d8-k8s7d, web-7d9c6b5d8-x2x4q`,
		ok:      true,
		want: Decoded{
			Cause:    MultiAttachError,
			Summary:  `volume "` + klPV + `" is already used by pod(s) web-7d9c6b5d8-k8s7d, web-7d9c6b5d8-x2x4q on another node`,
			NextStep: `volume "` + klPV + `" can be attached to one node at a time: use strategy.type Recreate (or a StatefulSet) so the old pod lets go first, or a ReadWriteMany volume; kubectl get volumeattachment shows where it is attached`,
			Details:  []chain.Detail{{Key: "volume", Value: klPV}, {Key: "pods", Value: "web-7d9c6b5d8-k8s7d, web-7d9c6b5d8-x2x4q"}},
		},
	},
	{
		// operation_generator.go: GenerateError("AttachVolume.Attach failed", attachErr) with a gRPC
		// status error "rpc error: code = %s desc = %s" from the CSI driver
		name: "attach failed", reason: "FailedAttachVolume",
		message: `AttachVolume.Attach failed for volume "` + klPV + `" : rpc error: code = DeadlineExceeded desc = context deadline exceeded`,
		ok:      true,
		want: Decoded{
			Cause:    VolumeAttachTimeout,
			Summary:  `attaching volume "` + klPV + `" to the node does not complete: rpc error: code = DeadlineExceeded desc = context deadline exceeded`,
			NextStep: `kubectl get volumeattachment shows the attachment of volume "` + klPV + `" and its attachError; then the CSI driver's controller pod (its external-attacher logs) and the disk in the cloud console`,
			Details:  []chain.Detail{{Key: "volume", Value: klPV}},
		},
	},
	{
		// operation_generator.go: GenerateError("MapVolume failed", goerrors.New("device path of the volume is empty"))
		name: "map failed", reason: "FailedMapVolume",
		message: `MapVolume failed for volume "` + klPV + `" : device path of the volume is empty`,
		ok:      true,
		want: Decoded{
			Cause:    VolumeMountFailed,
			Summary:  `volume "` + klPV + `": MapVolume failed: device path of the volume is empty`,
			NextStep: `check the source of volume "` + klPV + `" (its PersistentVolumeClaim, kubectl get volumeattachment) and the storage driver's logs on the node`,
			Details:  []chain.Detail{{Key: "volume", Value: klPV}, {Key: "operation", Value: "MapVolume failed"}},
		},
	},
	{
		// pkg/kubelet/volumemanager/volume_manager.go VolumeAttachLimitExceededError text, not a mount event reason.
		name: "other reason", reason: "VolumeAttachmentLimitExceeded",
		message: `Node has reached its volume attachment limit, rejecting pod. unmounted volumes=[data], unattached volumes=[data], failed to process volumes=[]: timed out waiting for the condition`,
	},
}

func TestMount(t *testing.T) {
	klRun(t, Mount, klMountCases)
}

func FuzzMount(f *testing.F) {
	klSeed(f, klMountCases)
	f.Fuzz(func(t *testing.T, reason, message string) {
		klCheck(t, Mount, append(append([]Cause(nil), mountCauses...), configCauses...), reason, message)
	})
}
