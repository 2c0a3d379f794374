package kubelet

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/kubernetes"
)

// statusPatch is the strategic merge patch from old to new pod status, with
// the pod's UID so the API server rejects it for a recreated pod of the same
// name: the kubelet's PatchPodStatus (pkg/util/pod/pod.go).
func statusPatch(uid types.UID, old, new corev1.PodStatus) ([]byte, error) {
	oldData, err := json.Marshal(corev1.Pod{Status: old})
	if err != nil {
		return nil, patchError{err}
	}
	newData, err := json.Marshal(corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: uid}, Status: new})
	if err != nil {
		return nil, patchError{err}
	}
	patch, err := strategicpatch.CreateTwoWayMergePatch(oldData, newData, corev1.Pod{})
	if err != nil {
		return nil, patchError{fmt.Errorf("computing the status patch: %w", err)}
	}
	return patch, nil
}

// patchError is a status patch that could not be computed: trying again
// gives the same error.
type patchError struct{ error }

func (e patchError) Unwrap() error { return e.error }

// patchPodStatus writes new over old and returns the pod as stored.
func patchPodStatus(ctx context.Context, c kubernetes.Interface, pod *corev1.Pod, new corev1.PodStatus) (*corev1.Pod, error) {
	patch, err := statusPatch(pod.UID, pod.Status, new)
	if err != nil {
		return nil, err
	}
	return c.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
}
