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
// Healthy does what a working node does; Lab (lab.go) adds the failures a
// pod asks for through its image references and annotations. Checks the real
// kubelet makes against the API itself (ConfigMaps and Secrets referenced by
// env and volumes, image pull secrets) are the pod worker's, not a
// behaviour's: they fail exactly when the objects are missing.
type Behaviour interface {
	// Pull is the outcome of pulling image for container c. The pod's
	// imagePullSecrets list only the secrets the kubelet could read.
	Pull(pod *corev1.Pod, c *corev1.Container, image string) PullOutcome
	// Run is how container c behaves once started.
	Run(pod *corev1.Pod, c *corev1.Container) RunOutcome
}

// PullOutcome is one image pull: how long it takes and what it yields, or the
// error the container runtime returned (the CRI error text, as the kubelet
// receives it).
type PullOutcome struct {
	Duration time.Duration
	Size     int64
	Digest   string
	Err      string
}

// RunOutcome is how a started container behaves. The healthy one runs until
// the pod is deleted and is ready as soon as it starts.
type RunOutcome struct {
	// Ready reports the container ready right after it starts.
	Ready bool
	// Exit, when set, ends the container after it has run Exit.After.
	Exit *Exit
	// ReadinessFails and LivenessFails make the container's probes fail:
	// an HTTP probe gets 503, an exec probe's command exits 1 printing
	// ProbeOutput, a TCP socket probe's connection is refused, a gRPC
	// probe's service answers NOT_SERVING.
	ReadinessFails bool
	LivenessFails  bool
	ProbeOutput    string
	// ReadyAfter, when set, ends ReadinessFails that long after the
	// container started: chain-workload's --ready-after, whose /ready
	// answers 503 only until then.
	ReadyAfter time.Duration
	// NotListening, when set, is how long after the start the program
	// accepts no connection (chain-workload's --start-delay sleeps before
	// it serves): HTTP and TCP socket probes are refused until then, as
	// Go's dialer says it ("connect: connection refused"), and gRPC
	// probes time out.
	NotListening time.Duration
	// Listens, when not nil, are the ports the container's program
	// listens on from every address (chain-workload's --http, --tcp and
	// --grpc) and what answers on each: a probe on any other port reaches
	// nothing for as long as the container runs (probes.go reach). Nil
	// when the program is not known (an image from outside the lab's
	// registry): its probes connect.
	Listens map[int]string
	// Stop is how the container ends when the kubelet stops it (the pod
	// is deleted): the zero Stop exits 0 at once on SIGTERM.
	Stop Stop
	// Write, when set, is what the container writes once (evict.go).
	Write *Write
}

// Stop is how long a container takes to exit on SIGTERM and its exit code;
// past the grace period the kubelet SIGKILLs it (exit 137).
type Stop struct {
	After time.Duration
	Code  int32
}

// Exit is how and when a container ends on its own.
type Exit struct {
	After  time.Duration
	Code   int32
	Reason string // the terminated state's reason: Error, Completed, OOMKilled
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
