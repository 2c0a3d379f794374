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
	reasonPulling   = "Pulling"
	reasonPulled    = "Pulled"
	reasonCreated   = "Created"
	reasonStarted   = "Started"
	reasonKilling   = "Killing"
	reasonStarting  = "Starting"
	reasonNodeReady = "NodeReady"

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
