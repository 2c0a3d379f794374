package kubelet

import (
	"hash/fnv"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Behaviour decides what the simulated container runtime does for one pod at
// each point where a real node can fail: creating the sandbox, pulling an
// image, creating and running a container. The pod worker asks it and turns
// the answers into the statuses and events the real kubelet writes.
//
// Phase 1 ships Healthy only. Failure behaviours (an image catalogue, config
// errors, crash loops, OOM, probes, sandbox failures) implement this same
// interface and are chosen per pod by a BehaviourFor from its annotations.
type Behaviour interface {
	// Pull is the outcome of pulling image for container c.
	Pull(pod *corev1.Pod, c *corev1.Container, image string) PullOutcome
	// Run is how container c behaves once started.
	Run(pod *corev1.Pod, c *corev1.Container) RunOutcome
}

// PullOutcome is one image pull: how long it takes and what it yields.
type PullOutcome struct {
	Duration time.Duration
	Size     int64
	Digest   string
}

// RunOutcome is how a started container behaves. The healthy one runs until
// the pod is deleted and is ready as soon as it starts.
type RunOutcome struct {
	// Ready reports the container ready right after it starts.
	Ready bool
}

// BehaviourFor picks a pod's Behaviour.
type BehaviourFor func(pod *corev1.Pod) Behaviour

// Healthy pulls every image and runs every container: what a pod does when
// nothing asks it to fail.
type Healthy struct {
	// Bandwidth is the simulated registry throughput in bytes per second.
	Bandwidth int64
}

// healthyBandwidth makes a 10-100 MB image take 20-200 ms: quick enough that a
// 3-replica Deployment is Available within the lab's 2 s budget, slow enough
// that Pulling and Pulled are visibly apart.
const healthyBandwidth = 500 << 20

// Pull pulls an image whose size and digest derive from its name, so the same
// image has the same size and digest on every node and every run.
func (h Healthy) Pull(_ *corev1.Pod, _ *corev1.Container, image string) PullOutcome {
	bw := h.Bandwidth
	if bw <= 0 {
		bw = healthyBandwidth
	}
	size := imageSize(image)
	return PullOutcome{
		Duration: time.Duration(size * int64(time.Second) / bw),
		Size:     size,
		Digest:   digestOf("image", image),
	}
}

// Run keeps the container running and ready.
func (Healthy) Run(*corev1.Pod, *corev1.Container) RunOutcome { return RunOutcome{Ready: true} }

// imageSize is a stable size between 10 and 100 MB.
func imageSize(image string) int64 {
	h := fnv.New64a()
	h.Write([]byte(image))
	const mb = 1 << 20
	return 10*mb + int64(h.Sum64()%(90*mb))
}
