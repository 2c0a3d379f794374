package kubelet

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Event reasons and message formats, copied from the kubelet of
// k8s.io/kubernetes v1.37.2 so that the lab's events read exactly like a real
// node's. formats_test.go checks each format against that source.
const (
	// pkg/kubelet/events/event.go
	reasonPulling = "Pulling"
	reasonPulled  = "Pulled"
	reasonCreated = "Created"
	reasonStarted = "Started"
	reasonKilling = "Killing"
	// reasonFailedPostStartHook is also the Killing event's message after
	// a failed postStart hook.
	reasonFailedPostStartHook = "FailedPostStartHook"
	msgPostStartHookFailed    = "PostStartHook failed"
	// pkg/kubelet/kuberuntime/kuberuntime_container.go ErrPostStartHook,
	// and pkg/kubelet/lifecycle/handlers.go's message of a failed exec hook
	reasonPostStartHookError = "PostStartHookError"
	msgExecHookFailed        = "Exec lifecycle hook (%v) for Container %q in Pod %q failed - error: %v, message: %q"
	reasonStarting           = "Starting"
	reasonNodeReady          = "NodeReady"

	// pkg/kubelet/images/image_manager.go
	msgPulling        = "Pulling image %q"
	msgPulled         = "Successfully pulled image %q in %v (%v including waiting). Image size: %v bytes."
	msgAlreadyPresent = "Container image %q already present on machine and can be accessed by the pod"

	// pkg/kubelet/kuberuntime/kuberuntime_container.go
	msgCreated = "Container created"
	msgStarted = "Container started"
	msgKilling = "Stopping container %s"

	// pkg/kubelet/kubelet.go and kubelet_node_status.go
	msgStartingKubelet = "Starting kubelet."
	msgNodeStatus      = "Node %s status is now: %s"

	// pkg/kubelet/events/event.go: failures. "Failed" is both
	// FailedToCreateContainer and FailedToPullImage; "BackOff" both
	// BackOffStartContainer and BackOffPullImage.
	reasonFailed                 = "Failed"
	reasonInspectFailed          = "InspectFailed"
	reasonBackOff                = "BackOff"
	reasonFailedMount            = "FailedMount"
	reasonUnhealthy              = "Unhealthy"
	reasonFailedCreatePodSandBox = "FailedCreatePodSandBox"
	// pkg/kubelet/kubelet.go
	reasonFailedPullSecret = "FailedToRetrieveImagePullSecret"
	msgFailedPullSecret    = "Unable to retrieve some image pull secrets (%s); attempting to pull the image may not succeed."

	// pkg/kubelet/images/image_manager.go
	msgFailedToPull  = "Failed to pull image %q: %v"
	msgBackOffPull   = "Back-off pulling image %q"
	msgDefaultTag    = "Failed to apply default image tag %q: %v"
	msgPrevPullError = "%s: %s"
	msgNeverPull     = "Container image %q is not present with pull policy of Never"
	// pkg/kubelet/events/event.go ErrImageNeverPullPolicy, which is also
	// the waiting reason (pkg/kubelet/images/types.go ErrImageNeverPull).
	reasonErrImageNeverPull = "ErrImageNeverPull"
	// pkg/kubelet/images/types.go: the waiting reasons of pull errors.
	reasonErrImagePull     = "ErrImagePull"
	reasonImagePullBackOff = "ImagePullBackOff"
	reasonInvalidImageName = "InvalidImageName"

	// pkg/kubelet/kuberuntime/kuberuntime_container.go
	msgError                         = "Error: %v"
	reasonCreateContainerConfigError = "CreateContainerConfigError"
	// pkg/kubelet/container/sync_result.go ErrRunContainer, and the
	// terminated reason containerd gives a container whose process never
	// started (internal/cri/server/helpers.go)
	reasonRunContainerError = "RunContainerError"
	reasonStartError        = "StartError"
	// pkg/kubelet/kuberuntime/kuberuntime_manager.go
	msgBackOffRestart      = "Back-off restarting failed container %s in pod %s"
	msgCrashLoopBackOff    = "back-off %s restarting failed container=%s pod=%s"
	msgFailedLiveness      = "Container %s failed liveness probe"
	msgWillBeRestarted     = "%s, will be restarted"
	msgFailedCreateSandbox = "Failed to create pod sandbox: %v"
	// pkg/kubelet/container/sync_result.go
	reasonCrashLoopBackOff = "CrashLoopBackOff"

	// pkg/kubelet/prober/prober.go and pkg/probe/http/http.go
	msgProbeFailed   = "%s probe failed: %s"
	msgProbeErrored  = "%s probe errored and resulted in %s state: %s"
	msgHTTPStatus    = "HTTP probe failed with statuscode: %d"
	probeReadiness   = "Readiness"
	probeLiveness    = "Liveness"
	failingProbeCode = 503
	// pkg/probe/probe.go: the Result of a probe that could not run.
	probeUnknown = "unknown"
	// pkg/probe/util.go: ResolveContainerPort's errors.
	msgPortNotFound = "port %q not found"
	msgInvalidPort  = "invalid port number: %v"
	// pkg/probe/grpc/grpc.go, with the health protocol's status name; a
	// dial that did not complete within the probe's timeout.
	msgGRPCUnhealthy = "service unhealthy (responded with %q)"
	grpcNotServing   = "NOT_SERVING"
	msgGRPCTimeout   = "timeout: failed to connect service %q within %v: %+v"
	// Go's net/http (transport.go, response.go): a connection that
	// answers an HTTP/1.1 request with something else.
	msgHTTPBroken        = "net/http: HTTP/1.x transport connection broken: %w"
	msgMalformedResponse = "malformed HTTP response"

	// pkg/volume/util/operationexecutor/operation_executor.go: GenerateError's
	// simple message "%v for volume %q %v" with the suffix ": " + err, for
	// operation_generator.go's "MountVolume.SetUp failed".
	msgMountSetUp = "%v for volume %q %v"
	mountSetUp    = "MountVolume.SetUp failed"

	// containerd internal/cri/server/helpers.go: the reasons of an exited
	// container (errorExitReason, oomExitReason).
	reasonError     = "Error"
	reasonOOMKilled = "OOMKilled"
)

// pulledMessage is the Pulled event of a pull that took pull on the wire and
// total including the wait for the node's serialized puller; the kubelet
// truncates both to milliseconds.
func pulledMessage(image string, pull, total time.Duration, size int64) string {
	return fmt.Sprintf(msgPulled, image, pull.Truncate(time.Millisecond), total.Truncate(time.Millisecond), size)
}

// eventSink is how the pod and node code emits events: client-go's
// record.EventRecorder in production (it satisfies this), a fake in tests.
type eventSink interface {
	Event(object runtime.Object, eventtype, reason, message string)
}

// emit records a Normal event with an already formatted message.
func emit(s eventSink, ref *corev1.ObjectReference, reason, message string) {
	s.Event(ref, corev1.EventTypeNormal, reason, message)
}

// warn records a Warning event with an already formatted message.
func warn(s eventSink, ref *corev1.ObjectReference, reason, message string) {
	s.Event(ref, corev1.EventTypeWarning, reason, message)
}
