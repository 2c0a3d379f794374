package kubelet

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
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
	started    bool
	ready      bool
}

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
	startTime      time.Time
	sandboxReady   bool
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
