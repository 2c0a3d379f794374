package kubelet

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// containerPhase is where a simulated container is in its life.
type containerPhase int

const (
	containerWaiting containerPhase = iota // not created yet
	containerRunning
	containerExited
)

// containerRecord is what the simulated runtime knows of one container: the
// facts the kubelet turns into a ContainerStatus.
type containerRecord struct {
	name       string
	init       bool // an init container (spec.initContainers)
	sidecar    bool // an init container with restartPolicy Always
	image      string
	imageID    string
	id         string // containerd://<64 hex>
	phase      containerPhase
	startedAt  time.Time
	finishedAt time.Time
	exitCode   int32
	reason     string // of the terminated state
	message    string // of the terminated state
	started    bool
	ready      bool

	// instances is how many times the container was created; restartCount
	// is one less.
	instances int32
	// last is the previous instance's end, reported as lastState.
	last *corev1.ContainerStateTerminated
	// waitReason and waitMessage explain a container that is not running:
	// a failed pull, a config error, a crash-loop back-off.
	waitReason, waitMessage string
	// pullError is the last failed pull's "ErrImagePull: <error>", which
	// the ImagePullBackOff message repeats.
	pullError string
	// out is how the current instance behaves; exitAt when it ends.
	out    RunOutcome
	exitAt time.Time
	// nextReadiness and nextLiveness are when failing probes run next;
	// livenessFailures counts consecutive failures.
	nextReadiness, nextLiveness time.Time
	livenessFailures            int32
	// backOffSynced: a sync found this exited instance in its crash-loop
	// back-off already (the next one reports CrashLoopBackOff).
	backOffSynced bool
	// killedBySync: the kubelet killed this instance itself (liveness), in
	// a sync that consulted the back-off already.
	killedBySync bool
}

// wait puts the container in the waiting state with a reason.
func (c *containerRecord) wait(reason, message string) {
	c.phase, c.waitReason, c.waitMessage = containerWaiting, reason, message
	c.started, c.ready = false, false
}

// exit ends the running instance at t.
func (c *containerRecord) exit(t time.Time, code int32, reason string) {
	c.phase, c.finishedAt, c.exitCode, c.reason, c.message = containerExited, t, code, reason, ""
	c.started, c.ready, c.exitAt, c.backOffSynced, c.killedBySync = false, false, time.Time{}, false, false
}

// terminated is the state of the instance that exited.
func (c *containerRecord) terminated() *corev1.ContainerStateTerminated {
	return &corev1.ContainerStateTerminated{
		ExitCode: c.exitCode, Reason: c.reason, Message: c.message, ContainerID: c.id,
		StartedAt: metav1.NewTime(c.startedAt), FinishedAt: metav1.NewTime(c.finishedAt),
	}
}

func (c *containerRecord) restartCount() int32 { return max(c.instances-1, 0) }

// initialized reports an init container done: exited 0, or a started sidecar
// (isInitContainerInitialized of pkg/kubelet/status/generate.go).
func (c *containerRecord) initialized() bool {
	if c.sidecar {
		return c.started
	}
	return c.phase == containerExited && c.exitCode == 0
}

// podRecord is the simulated runtime's view of one pod: its sandbox and its
// containers, each list in spec order.
type podRecord struct {
	startTime    time.Time
	sandboxReady bool
	sandboxTries int
	// terminal: the pod was deleted and its containers are stopped.
	terminal bool
	// evicted is the eviction manager's message for a pod it evicted.
	evicted        string
	ip             string
	initContainers []*containerRecord
	containers     []*containerRecord
}

// newPodRecord starts a record for a pod the kubelet has just admitted.
func newPodRecord(pod *corev1.Pod, now time.Time) *podRecord {
	r := &podRecord{startTime: now}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		sidecar := c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
		r.initContainers = append(r.initContainers, &containerRecord{name: c.Name, init: true, sidecar: sidecar, image: c.Image})
	}
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		r.containers = append(r.containers, &containerRecord{name: c.Name, image: c.Image})
	}
	return r
}

// initialized reports every init container done.
func (r *podRecord) initialized() bool {
	for _, c := range r.initContainers {
		if !c.initialized() {
			return false
		}
	}
	return true
}

// readyCandidates are the containers whose readiness makes the pod ready:
// sidecars, then regular containers (GenerateContainersReadyCondition).
func (r *podRecord) readyCandidates() []*containerRecord {
	var out []*containerRecord
	for _, c := range r.initContainers {
		if c.sidecar {
			out = append(out, c)
		}
	}
	return append(out, r.containers...)
}

// containerID is a stable containerd ID for one run of one container.
func containerID(pod *corev1.Pod, name string, restart int) string {
	d := digestOf("container", fmt.Sprintf("%s/%s/%d", pod.UID, name, restart))
	return "containerd://" + strings.TrimPrefix(d, "sha256:")
}
