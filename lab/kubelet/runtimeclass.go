package kubelet

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

// containerd 2.4.2 internal/cri/server/sandbox_run.go and
// internal/cri/config/config.go: a RuntimeClass whose handler the runtime
// has no section for.
const (
	ctrNoOCIRuntime = "unable to get OCI runtime for sandbox %q: %w"
	ctrNoRuntime    = "no runtime for %q is configured"
	// pkg/kubelet/runtimeclass/runtimeclass_manager.go LookupRuntimeHandler
	kubeletLookupRuntimeClass = "failed to lookup RuntimeClass %s: %v"
)

// runtimeHandlerError is what creating the pod's sandbox meets in its
// RuntimeClass, "" when nothing: the kubelet looks the class up (its
// NotFound error as the API words it), and the node's runtime, configured
// as every lab node is (state.HandlerRunc, state.HandlerCNIMissing),
// refuses a handler it has no section for or fails in the network of
// state.HandlerCNIMissing.
func (w *podWorker) runtimeHandlerError(ctx context.Context, pod *corev1.Pod, try int) string {
	name := pod.Spec.RuntimeClassName
	if name == nil || *name == "" {
		return ""
	}
	rc, err := w.a.client.NodeV1().RuntimeClasses().Get(ctx, *name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return err.Error()
	case err != nil:
		return fmt.Sprintf(kubeletLookupRuntimeClass, *name, err)
	}
	switch rc.Handler {
	case "", state.HandlerRunc:
		return ""
	case state.HandlerCNIMissing:
		return cniFailure(sandboxID(pod, try))
	}
	return grpcError("Unknown", fmt.Errorf(ctrNoOCIRuntime, sandboxID(pod, try), fmt.Errorf(ctrNoRuntime, rc.Handler)))
}

// sandboxID is the simulated runtime's ID of the pod's try-th sandbox.
func sandboxID(pod *corev1.Pod, try int) string {
	return strings.TrimPrefix(digestOf("sandbox", fmt.Sprintf("%s/%d", pod.UID, try)), "sha256:")
}
