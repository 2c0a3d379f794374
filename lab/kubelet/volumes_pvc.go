package kubelet

import (
	"context"
	"errors"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// The errors of the kubelet's desired-state-of-world populator for a pod's
// claims (pkg/kubelet/volumemanager/populator/desired_state_of_world_populator.go).
const (
	msgProcessingPVC = "error processing PVC %s/%s: %v"
	msgFetchPVC      = "failed to fetch PVC from API server: %v"
	msgPVCNotBound   = "PVC is not bound"
	msgFetchPV       = "failed to fetch PV %s from API server: %v"
	msgPVNoClaimRef  = "found PV object %s but it has a nil pv.Spec.ClaimRef indicating it is not yet bound to the claim"
	msgPVOtherClaim  = "found PV object %s but its pv.Spec.ClaimRef.UID %s does not point to claim.UID %s"
)

// The hostPath plugin's type check (pkg/volume/hostpath/host_path.go) and
// the host's file-type lookup (pkg/volume/util/hostutil/hostutil.go).
const (
	msgHostPathTypeUnknown = "hostPath type check failed, %s is not a %s, unable to determine its type: %w"
	msgHostPathType        = "hostPath type check failed: %s is not a %s, it's a %s"
	msgPathNotExist        = "path %q does not exist"
	msgUnknownFileType     = "only recognise file, directory, socket, block device and character device"
)

// claimVolume is a pod volume backed by a PersistentVolumeClaim, resolved
// the way the kubelet's volume manager does before it mounts anything: the
// claim must be Bound and its PersistentVolume must point back at it.
// processErr is the populator's error (the kubelet reports it only when
// its 2m3s wait for the pod's mounts runs out, so the lab writes no event
// for it and keeps retrying); setUpErr is the mount's own error, reported
// as FailedMount on the PersistentVolume's name.
type claimVolume struct {
	pv         string
	processErr string
	setUpErr   string
}

// resolveClaim resolves pod volume v, which has a PersistentVolumeClaim.
func resolveClaim(ctx context.Context, c kubernetes.Interface, pod *corev1.Pod, v corev1.Volume) claimVolume {
	claim := v.PersistentVolumeClaim.ClaimName
	processing := func(err error) claimVolume {
		return claimVolume{processErr: fmt.Sprintf(msgProcessingPVC, pod.Namespace, claim, err)}
	}
	pvc, err := c.CoreV1().PersistentVolumeClaims(pod.Namespace).Get(ctx, claim, metav1.GetOptions{})
	if err != nil {
		return processing(fmt.Errorf(msgFetchPVC, err))
	}
	if pvc.Status.Phase != corev1.ClaimBound || pvc.Spec.VolumeName == "" {
		return processing(errors.New(msgPVCNotBound))
	}
	pv, err := c.CoreV1().PersistentVolumes().Get(ctx, pvc.Spec.VolumeName, metav1.GetOptions{})
	if err != nil {
		return processing(fmt.Errorf(msgFetchPV, pvc.Spec.VolumeName, err))
	}
	if pv.Spec.ClaimRef == nil {
		return processing(fmt.Errorf(msgPVNoClaimRef, pv.Name))
	}
	if pv.Spec.ClaimRef.UID != pvc.UID {
		return processing(fmt.Errorf(msgPVOtherClaim, pv.Name, pv.Spec.ClaimRef.UID, pvc.UID))
	}
	out := claimVolume{pv: pv.Name}
	if hp := pv.Spec.HostPath; hp != nil {
		if err := checkHostPathType(hp); err != nil {
			out.setUpErr = err.Error()
		}
	}
	return out
}

// checkHostPathType is the hostPath plugin's SetUp check for the types
// that only look: the lab's nodes all live on this host, so the path is
// checked on it. The *OrCreate types pass without creating anything: the
// lab does not write to the host on a manifest's behalf.
func checkHostPathType(hp *corev1.HostPathVolumeSource) error {
	if hp.Type == nil {
		return nil
	}
	var expected string
	var want func(os.FileMode) bool
	switch *hp.Type {
	case corev1.HostPathDirectory:
		expected, want = "directory", os.FileMode.IsDir
	case corev1.HostPathFile:
		expected, want = "file", os.FileMode.IsRegular
	default:
		return nil
	}
	info, err := os.Stat(hp.Path)
	if os.IsNotExist(err) {
		return fmt.Errorf(msgHostPathTypeUnknown, hp.Path, expected, fmt.Errorf(msgPathNotExist, hp.Path))
	}
	if err != nil {
		return fmt.Errorf(msgHostPathTypeUnknown, hp.Path, expected, err)
	}
	if want(info.Mode()) {
		return nil
	}
	t, err := fileType(info.Mode())
	if err != nil {
		return fmt.Errorf(msgHostPathTypeUnknown, hp.Path, expected, err)
	}
	return fmt.Errorf(msgHostPathType, hp.Path, expected, t)
}

// fileType is hostutil's getFileType for a mode (pkg/volume/util/hostutil):
// its FileType names are the HostPathType values.
func fileType(m os.FileMode) (string, error) {
	switch {
	case m.IsDir():
		return string(corev1.HostPathDirectory), nil
	case m.IsRegular():
		return string(corev1.HostPathFile), nil
	case m&os.ModeSocket != 0:
		return string(corev1.HostPathSocket), nil
	case m&os.ModeCharDevice != 0:
		return string(corev1.HostPathCharDev), nil
	case m&os.ModeDevice != 0:
		return string(corev1.HostPathBlockDev), nil
	}
	return "", errors.New(msgUnknownFileType)
}
