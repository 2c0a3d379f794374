package decode

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Volume causes: the kubelet (or the attach/detach controller) could not
// attach or mount a pod volume, so the pod stays in ContainerCreating.
const (
	VolumeConfigMapNotFound chain.CauseID = "VolumeConfigMapNotFound"
	VolumeSecretNotFound    chain.CauseID = "VolumeSecretNotFound"
	VolumePVCNotFound       chain.CauseID = "VolumePVCNotFound"
	MultiAttachError        chain.CauseID = "MultiAttachError"
	VolumeMountFailed       chain.CauseID = "VolumeMountFailed"
	// Attach and mount failures whose next step differs: an attach that
	// never completes (the CSI controller or the cloud API is slow or
	// stuck), an attach the storage backend refuses, the kubelet's own
	// give-up after waiting for the pod's volumes, and a CSI driver that is
	// not running on the node.
	VolumeAttachTimeout    chain.CauseID = "VolumeAttachTimeout"
	VolumeAttachFailed     chain.CauseID = "VolumeAttachFailed"
	VolumeMountTimeout     chain.CauseID = "VolumeMountTimeout"
	CSIDriverNotRegistered chain.CauseID = "CSIDriverNotRegistered"
	// SecretProviderMountFailed: the Secrets Store CSI driver cannot
	// fetch what a SecretProviderClass names from the external store.
	SecretProviderMountFailed chain.CauseID = "SecretProviderMountFailed"
)

// Event reasons for volume failures (pkg/kubelet/events/event.go).
const (
	reasonFailedMount        = "FailedMount"
	reasonFailedAttachVolume = "FailedAttachVolume"
	reasonFailedMapVolume    = "FailedMapVolume"
)

var (
	// mntWaitRe matches the kubelet's "Unable to attach or mount volumes: %v"
	// event around volume_manager.go's "unmounted volumes=%v, unattached
	// volumes=%v, failed to process volumes=%v: %w" (the third list is absent
	// in kubelets before 1.26).
	mntWaitRe = regexp.MustCompile(`(?s)^Unable to attach or mount volumes: unmounted volumes=\[([^\]]*)\], unattached volumes=\[([^\]]*)\](?:, failed to process volumes=\[([^\]]*)\])?: (.*)$`)
	// mntPVCRe matches desired_state_of_world_populator.go's
	// "error processing PVC %s/%s: %v".
	mntPVCRe = regexp.MustCompile(`error processing PVC ([^/\s]+)/([^:\s]+): (.*)`)
	// mntPVCNotFoundRe is the API server's NotFound text for a claim.
	mntPVCNotFoundRe = regexp.MustCompile(`persistentvolumeclaims? "([^"]+)" not found`)
	// mntKeyRe matches the configmap and secret volume plugins' missing-key
	// errors (pkg/volume/configmap/configmap.go, pkg/volume/secret/secret.go).
	mntKeyRe = regexp.MustCompile(`references non-existent (config|secret) key(?:: (\S+))?`)
	// mntPodsRe matches reportMultiAttachError's "Volume is already used by
	// pod(s) %s" (pkg/controller/volume/attachdetach/reconciler).
	mntPodsRe = regexp.MustCompile(`Volume is already used by pod\(s\) (.*?)(?: and \d+ pod\(s\) in different namespaces)?$`)
	// mntWaitOldRe matches the kubelet's wording before 1.17: "Unable to
	// mount volumes for pod %q: timeout expired waiting for volumes to
	// attach or mount for pod %q. list of unmounted volumes=...".
	mntWaitOldRe = regexp.MustCompile(`(?s)^Unable to (?:attach or )?mount volumes for pod "([^"]*)": (timeout expired waiting for volumes to attach.*)$`)
	// mntPodOldRe is the same event before 1.17 with another error than
	// the timeout: "Unable to mount volumes for pod %q: %v".
	mntPodOldRe = regexp.MustCompile(`(?s)^Unable to (?:attach or )?mount volumes for pod "([^"]*)": (.*)$`)
	// mntCSIDriverRe matches the CSI plugin's "driver name %s not found in
	// the list of registered CSI drivers" (pkg/volume/csi/csi_plugin.go).
	mntCSIDriverRe = regexp.MustCompile(`driver name (\S+) not found in the list of registered CSI drivers`)
	// mntNoCSIDriverRe is the CSI plugin's "volume mode %q not supported
	// by driver %s (no CSIDriver object)": an inline (ephemeral) volume of
	// a driver whose CSIDriver object does not exist, that is, a driver
	// not installed (pkg/volume/csi/csi_plugin.go).
	mntNoCSIDriverRe = regexp.MustCompile(`not supported by driver (\S+) \(no CSIDriver object\)`)
	// mntSecretsStoreWords are the Secrets Store CSI driver's words when
	// its provider cannot fetch a SecretProviderClass's objects
	// (secrets-store-csi-driver pkg/secrets-store/nodeserver.go: "failed
	// to mount secrets store objects for pod %s/%s, err: %w", and "failed to
	// get secretproviderclass %s/%s, error: %w").
	mntSecretsStoreWords = []string{"failed to mount secrets store objects for pod", "failed to get secretproviderclass"}
)

// Mount decodes FailedMount, FailedAttachVolume (incl. Multi-Attach) and
// FailedMapVolume events into the volume cause they name.
func Mount(reason, message string) (d Decoded, ok bool) {
	switch reason {
	case reasonFailedMount, reasonFailedAttachVolume, reasonFailedMapVolume:
	default:
		return Decoded{}, false
	}
	if d, ok := multiAttach(message); ok {
		return d, true
	}
	if m := mntWaitRe.FindStringSubmatch(message); m != nil {
		return mountWait(m[1], m[2], m[4]), true
	}
	if m := mntWaitOldRe.FindStringSubmatch(message); m != nil {
		return Decoded{Cause: VolumeMountTimeout,
			Summary: "the kubelet timed out waiting for the pod's volumes: " + rtOneLine(m[2]),
			Details: []chain.Detail{{Key: "pod", Value: m[1]}}}, true
	}
	if i := strings.Index(message, "timeout expired waiting for volumes to attach"); i >= 0 {
		return Decoded{Cause: VolumeMountTimeout, Summary: "the kubelet timed out waiting for the pod's volumes: " + rtOneLine(message[i:])}, true
	}
	if m := mntPodOldRe.FindStringSubmatch(message); m != nil {
		if _, _, _, ok := splitVolumeOp(m[2]); !ok {
			return volumeOp("", "", m[2]), true
		}
		message = m[2]
	}
	if m := mntPVCNotFoundRe.FindStringSubmatch(message); m != nil {
		return Decoded{Cause: VolumePVCNotFound,
			Summary:  fmt.Sprintf("PersistentVolumeClaim %q not found", m[1]),
			NextStep: fmt.Sprintf("create PersistentVolumeClaim %q in the pod's namespace, or fix spec.template.spec.volumes[].persistentVolumeClaim.claimName", m[1]),
			Details:  []chain.Detail{{Key: "claim", Value: m[1]}}}, true
	}
	if op, volume, cause, ok := splitVolumeOp(message); ok {
		return volumeOp(op, volume, cause), true
	}
	if d, ok := volumeClassify("", "", message); ok {
		return d, true
	}
	return Decoded{
		Cause:   VolumeMountFailed,
		Summary: "volume failure: " + kubeletHead(message),
	}, true
}

// multiAttach decodes the attach/detach controller's event for a volume that
// is still attached elsewhere. Kubernetes 1.37 words it "Waiting for detach
// for volume %q ..."; earlier releases said "Multi-Attach error for volume %q".
func multiAttach(message string) (Decoded, bool) {
	var rest string
	for _, prefix := range []string{"Multi-Attach error for volume ", "Waiting for detach for volume "} {
		if r, found := strings.CutPrefix(message, prefix); found {
			rest = r
			break
		}
	}
	if rest == "" {
		return Decoded{}, false
	}
	volume, tail, ok := kubeletQuoted(rest)
	if !ok {
		return Decoded{}, false
	}
	tail = strings.TrimSpace(tail)
	d := Decoded{
		Cause:   MultiAttachError,
		Summary: fmt.Sprintf("volume %q is still attached to another node", volume),
		NextStep: fmt.Sprintf("volume %q can be attached to one node at a time: use strategy.type Recreate (or a StatefulSet) so the old pod lets go first, or a ReadWriteMany volume; kubectl get volumeattachment shows where it is attached",
			volume),
		Details: []chain.Detail{{Key: "volume", Value: volume}},
	}
	if m := mntPodsRe.FindStringSubmatch(tail); m != nil && m[1] != "" {
		d.Summary = fmt.Sprintf("volume %q is already used by pod(s) %s on another node", volume, m[1])
		d.Details = append(d.Details, chain.Detail{Key: "pods", Value: m[1]})
	}
	return d, true
}

// mountWait decodes the kubelet's give-up event after waiting for a pod's
// volumes. The trailing error says why when the volume could not even be
// added (a missing claim); a bare timeout only lists the volumes.
func mountWait(unmounted, unattached, reason string) Decoded {
	unmounted, unattached = strings.Join(strings.Fields(unmounted), ", "), strings.Join(strings.Fields(unattached), ", ")
	details := []chain.Detail{{Key: "unmountedVolumes", Value: unmounted}}
	if unattached != "" {
		details = append(details, chain.Detail{Key: "unattachedVolumes", Value: unattached})
	}
	if m := mntPVCRe.FindStringSubmatch(reason); m != nil {
		namespace, claim, why := m[1], m[2], m[3]
		details = append(details, chain.Detail{Key: "claim", Value: claim}, chain.Detail{Key: "namespace", Value: namespace})
		if mntPVCNotFoundRe.MatchString(why) {
			return Decoded{
				Cause:    VolumePVCNotFound,
				Summary:  fmt.Sprintf("PersistentVolumeClaim %q not found", claim),
				NextStep: fmt.Sprintf("create PersistentVolumeClaim %q in namespace %q, or fix spec.template.spec.volumes[].persistentVolumeClaim.claimName", claim, namespace),
				Details:  details,
			}
		}
		return Decoded{
			Cause:    VolumeMountFailed,
			Summary:  fmt.Sprintf("PersistentVolumeClaim %s/%s: %s", namespace, claim, kubeletHead(why)),
			NextStep: fmt.Sprintf("kubectl describe pvc %s -n %s: the claim must be Bound to a PersistentVolume before the pod can mount it", claim, namespace),
			Details:  details,
		}
	}
	if strings.Contains(reason, "timed out waiting for the condition") || strings.Contains(reason, "context deadline exceeded") {
		return Decoded{
			Cause:    VolumeMountTimeout,
			Summary:  fmt.Sprintf("the kubelet timed out waiting for volumes [%s] to attach and mount", unmounted),
			NextStep: fmt.Sprintf("find why volumes [%s] do not mount: the FailedMount or FailedAttachVolume events before this one (kubectl describe pod), kubectl get volumeattachment, and the storage driver on the node", unmounted),
			Details:  details,
		}
	}
	return Decoded{
		Cause:    VolumeMountFailed,
		Summary:  fmt.Sprintf("volumes [%s] not mounted: %s", unmounted, kubeletHead(reason)),
		NextStep: fmt.Sprintf("look for the FailedMount/FailedAttachVolume event of volumes [%s] (kubectl describe pod), then check their claims, kubectl get volumeattachment and the storage driver on the node", unmounted),
		Details:  details,
	}
}

// splitVolumeOp splits the operation executor's event text
// "%v for volume %q %v" (pkg/volume/util/operationexecutor), e.g.
// `MountVolume.SetUp failed for volume "config" : configmap "x" not found`.
func splitVolumeOp(message string) (op, volume, cause string, ok bool) {
	op, rest, found := strings.Cut(message, " for volume ")
	if !found {
		return "", "", "", false
	}
	volume, rest, ok = kubeletQuoted(rest)
	if !ok || volume == "" || strings.ContainsAny(volume, " \t\r\n") {
		// Not a volume name: volume names are DNS labels.
		return "", "", "", false
	}
	rest = strings.TrimSpace(rest)
	rest = strings.TrimSpace(strings.TrimPrefix(rest, ":"))
	return op, volume, rest, true
}

// volumeOp decodes one failed volume operation by its error.
func volumeOp(op, volume, cause string) Decoded {
	if kind, name, ok := parseConfigNotFound(cause); ok {
		return volumeObjectNotFound(volume, kind, name)
	}
	if m := mntKeyRe.FindStringSubmatch(cause); m != nil {
		kind, title := "configmap", "ConfigMap"
		if m[1] == "secret" {
			kind, title = "secret", "Secret"
		}
		if m[2] == "" {
			// Before 1.8 the error did not name the key.
			return Decoded{Cause: ConfigKeyNotFound,
				Summary:  fmt.Sprintf("volume %q: a key it lists is not in its %s", volume, title),
				NextStep: fmt.Sprintf("compare spec.template.spec.volumes[].items[].key of volume %q with the keys of its %s (kubectl get %s NAME -o yaml)", volume, title, kind),
				Details:  []chain.Detail{{Key: "kind", Value: kind}, {Key: "volume", Value: volume}}}
		}
		return Decoded{
			Cause:    ConfigKeyNotFound,
			Summary:  fmt.Sprintf("volume %q: key %q not found in its %s", volume, m[2], title),
			NextStep: fmt.Sprintf("add key %q to the %s of volume %q, or fix spec.template.spec.volumes[%s].items[].key (or mark the source optional: true)", m[2], title, volume, volume),
			Details: []chain.Detail{
				{Key: "kind", Value: kind},
				{Key: "volume", Value: volume},
				{Key: "key", Value: m[2]},
			},
		}
	}
	if d, ok := volumeClassify(op, volume, cause); ok {
		return d
	}
	return Decoded{
		Cause:    VolumeMountFailed,
		Summary:  fmt.Sprintf("volume %q: %s: %s", volume, op, kubeletHead(cause)),
		NextStep: fmt.Sprintf("check the source of volume %q (its PersistentVolumeClaim, kubectl get volumeattachment) and the storage driver's logs on the node", volume),
		Details:  []chain.Detail{{Key: "volume", Value: volume}, {Key: "operation", Value: op}},
	}
}

// volumeObjectNotFound is a ConfigMap or Secret volume source that is
// missing. kube-root-ca.crt is special: kube-controller-manager publishes it
// into every namespace, so its absence points at the control plane.
func volumeObjectNotFound(volume, kind, name string) Decoded {
	details := []chain.Detail{{Key: "volume", Value: volume}, {Key: "kind", Value: kind}, {Key: "name", Value: name}}
	if kind == "secret" {
		return Decoded{
			Cause:    VolumeSecretNotFound,
			Summary:  fmt.Sprintf("volume %q: Secret %q not found", volume, name),
			NextStep: fmt.Sprintf("create Secret %q in the pod's namespace (kubectl create secret generic %s --from-file=...), or fix the secret name of volume %q in spec.template.spec.volumes", name, name, volume),
			Details:  details,
		}
	}
	d := Decoded{
		Cause:    VolumeConfigMapNotFound,
		Summary:  fmt.Sprintf("volume %q: ConfigMap %q not found", volume, name),
		NextStep: fmt.Sprintf("create ConfigMap %q in the pod's namespace (kubectl create configmap %s --from-file=...), or fix the configMap name of volume %q in spec.template.spec.volumes", name, name, volume),
		Details:  details,
	}
	if name == "kube-root-ca.crt" {
		d.NextStep = "kube-controller-manager (root-ca-cert-publisher) creates ConfigMap \"kube-root-ca.crt\" in every namespace, usually within seconds; if it stays missing, check that the controller manager is running"
	}
	return d
}

// kubeletQuoted reads a Go-quoted string (as written by %q) at the start of s.
func kubeletQuoted(s string) (value, rest string, ok bool) {
	q, err := strconv.QuotedPrefix(s)
	if err != nil {
		return "", s, false
	}
	v, err := strconv.Unquote(q)
	if err != nil {
		return "", s, false
	}
	return v, s[len(q):], true
}

// volumeClassify names the attach and mount errors whose next step differs
// from a generic mount failure, in the words of the operation executor
// (pkg/volume/util/operationexecutor: "AttachVolume.Attach failed",
// "MountVolume.WaitForAttach failed"), the CSI plugin and the clouds' disk
// APIs. op and volume are empty when the message had no "for volume" part.
func volumeClassify(op, volume, cause string) (Decoded, bool) {
	text := op + " " + cause
	lower := strings.ToLower(text)
	has := func(subs ...string) bool {
		for _, s := range subs {
			if strings.Contains(lower, s) {
				return true
			}
		}
		return false
	}
	details := []chain.Detail{}
	subject := "a volume"
	if volume != "" {
		details = append(details, chain.Detail{Key: "volume", Value: volume})
		subject = fmt.Sprintf("volume %q", volume)
	}
	attach := strings.HasPrefix(op, "AttachVolume") || strings.HasPrefix(op, "MountVolume.WaitForAttach") || has("attachvolume.attach", "attach volume", "attacher")
	switch {
	case mntNoCSIDriverRe.MatchString(text):
		driver := mntNoCSIDriverRe.FindStringSubmatch(text)[1]
		return Decoded{Cause: CSIDriverNotRegistered,
			Summary:  fmt.Sprintf("%s: CSI driver %s has no CSIDriver object: it is not installed", subject, driver),
			NextStep: fmt.Sprintf("install CSI driver %s (its CSIDriver object and node DaemonSet): kubectl get csidriver %s", driver, driver),
			Details:  append(details, chain.Detail{Key: "driver", Value: driver})}, true
	case has(mntSecretsStoreWords...):
		return Decoded{Cause: SecretProviderMountFailed,
			Summary: fmt.Sprintf("the Secrets Store CSI driver cannot fetch the objects of %s from its provider: %s", subject, kubeletHead(cause)),
			Details: details}, true
	case mntCSIDriverRe.MatchString(text):
		driver := mntCSIDriverRe.FindStringSubmatch(text)[1]
		return Decoded{Cause: CSIDriverNotRegistered,
			Summary:  fmt.Sprintf("%s: CSI driver %s is not registered on the node", subject, driver),
			NextStep: fmt.Sprintf("check that the node DaemonSet of CSI driver %s runs a ready pod on the node (kubectl get pods -A -o wide --field-selector spec.nodeName={NODE}) and that kubectl get csinode {NODE} lists it; install the driver if it is missing", driver),
			Details:  append(details, chain.Detail{Key: "driver", Value: driver})}, true
	case has("already exclusively attached", "already used by pod", "volumeinuse", "resource_in_use_by_another_resource", "is already being used by", "already attached to"):
		return Decoded{Cause: MultiAttachError,
			Summary:  fmt.Sprintf("%s is still attached to another node: %s", subject, kubeletHead(cause)),
			NextStep: "the volume can be attached to one node at a time: use strategy.type Recreate (or a StatefulSet) so the old pod lets go first, or a ReadWriteMany volume; kubectl get volumeattachment shows where it is attached",
			Details:  details}, true
	case attach && has("timed out", "timeout", "deadline exceeded", "deadlineexceeded", "is being deleted", "but was attaching", "still attaching"):
		return Decoded{Cause: VolumeAttachTimeout,
			Summary:  fmt.Sprintf("attaching %s to the node does not complete: %s", subject, kubeletHead(cause)),
			NextStep: fmt.Sprintf("kubectl get volumeattachment shows the attachment of %s and its attachError; then the CSI driver's controller pod (its external-attacher logs) and the disk in the cloud console", subject),
			Details:  details}, true
	case attach && strings.HasPrefix(op, "AttachVolume"):
		return Decoded{Cause: VolumeAttachFailed,
			Summary:  fmt.Sprintf("the storage backend refused to attach %s: %s", subject, kubeletHead(cause)),
			NextStep: fmt.Sprintf("read the backend's error above; kubectl get volumeattachment, then the state of %s in the cloud or storage system (being detached, deleted, or the node over its disk limit)", subject),
			Details:  details}, true
	}
	return Decoded{}, false
}
