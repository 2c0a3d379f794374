package kubelet

import (
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Lab is the behaviour of every pod in a lab: healthy unless its image
// references or annotations ask for a failure. The scheme, deterministic so
// a scenario fails the same way on every run:
//
// Images (the lab's image catalogue, see catalogue.go):
//   - any image on a host other than the two below exists (as if side-loaded);
//   - registry.lab.internal/REPO:TAG exists only if the lab registry's
//     catalogue has it (lab/registry/catalog, docs/lab-images.md);
//     any other tag is answered 404 (ImageNotFound);
//   - registry.lab.internal/private/... needs credentials: the pull is denied
//     unless spec.imagePullSecrets names a Secret that exists in the pod's
//     namespace (ImagePullUnauthorized);
//   - unreachable.lab.internal/... does not resolve in DNS (RegistryHostUnresolved);
//   - a reference the kubelet cannot parse fails the kubelet's own check
//     before any pull (InvalidImageName);
//   - with imagePullPolicy Never, only images an earlier pod pulled onto the
//     node are present (ErrImageNeverPull otherwise).
//
// Pod annotations (on the Deployment's pod template). KEY applies to every
// regular container; CONTAINER.KEY to one container, init containers
// included, and wins over KEY:
//   - lab.kubectl-chain.io/exit-code: "N": the container exits with code N
//     (reason Error, or Completed for 0) after exit-after, and the kubelet
//     restarts it with the crash-loop back-off;
//   - lab.kubectl-chain.io/exit-after: a Go duration, default 1s;
//   - lab.kubectl-chain.io/memory-usage: a quantity; above the container's
//     memory limit the container is OOMKilled (exit 137) after exit-after;
//   - lab.kubectl-chain.io/readiness: "fail": the readiness probe fails: HTTP
//     answers 503, exec exits 1, TCP socket is refused, gRPC is NOT_SERVING;
//   - lab.kubectl-chain.io/liveness: "fail": the liveness probe fails alike,
//     and after failureThreshold failures the kubelet kills and restarts it;
//   - lab.kubectl-chain.io/probe-output: what a failing exec probe's command
//     prints (the Unhealthy event carries it), default nothing;
//   - lab.kubectl-chain.io/stop-after: a Go duration, how long the container
//     takes to exit on SIGTERM when its pod is deleted, default 0; past the
//     grace period (terminationGracePeriodSeconds, after a preStop sleep) the
//     kubelet SIGKILLs it: exit 137;
//   - lab.kubectl-chain.io/stop-exit-code: its exit code on SIGTERM, default 0
//     (143 is a program that SIGTERM ends without a handler);
//
// Probes connect where a real node's do: the lab's images run
// chain-workload, which listens where its flags say (--http :8080 by
// default, --tcp, --grpc), so an HTTP, TCP socket or gRPC probe on any
// other port fails for as long as the container runs, whatever the
// annotations say (reach.go).
//
// What the kubelet checks against the API itself fails only when the object
// is really missing: ConfigMaps, Secrets and keys referenced by env and
// envFrom (CreateContainerConfigError), ConfigMap and Secret volumes
// (FailedMount), image pull secrets.
type Lab struct{ Healthy }

// AnnotationPrefix starts every annotation the simulated kubelet reads.
const AnnotationPrefix = "lab.kubectl-chain.io/"

// Annotation keys, without AnnotationPrefix and container name.
const (
	KeyExitCode     = "exit-code"
	KeyExitAfter    = "exit-after"
	KeyMemoryUsage  = "memory-usage"
	KeyReadiness    = "readiness"
	KeyLiveness     = "liveness"
	KeyProbeOutput  = "probe-output"
	KeyStopAfter    = "stop-after"
	KeyStopExitCode = "stop-exit-code"
	// ValueFail asks a probe to fail.
	ValueFail = "fail"
)

// defaultExitAfter is how long a container asked to exit runs first.
const defaultExitAfter = time.Second

// ForPod is the lab's BehaviourFor.
func ForPod(*corev1.Pod) Behaviour { return Lab{} }

// Pull resolves the image against the lab's catalogue.
func (l Lab) Pull(pod *corev1.Pod, c *corev1.Container, image string) PullOutcome {
	if msg := catalogueError(image, len(pod.Spec.ImagePullSecrets) > 0, time.Now()); msg != "" {
		return PullOutcome{Duration: pullFailureTime(image), Err: msg}
	}
	out := l.Healthy.Pull(pod, c, image)
	if d := slowPull(image); d > 0 {
		out.Duration = d
	}
	return out
}

// Run plays the lab's program as the container's args ask (workload.go), or
// reads the container's annotations; either way, the program listens
// where its flags say, its defaults without them.
func (Lab) Run(pod *corev1.Pod, c *corev1.Container) RunOutcome {
	out, ok := programOutcome(c)
	if !ok {
		out = annotatedOutcome(pod, c)
	}
	out.Listens = listeners(c)
	return out
}

// annotatedOutcome is how the container behaves as the pod's annotations
// ask.
func annotatedOutcome(pod *corev1.Pod, c *corev1.Container) RunOutcome {
	get := func(key string) string { return containerAnnotation(pod, c.Name, key) }
	out := RunOutcome{
		Ready:          true,
		ReadinessFails: get(KeyReadiness) == ValueFail,
		LivenessFails:  get(KeyLiveness) == ValueFail,
		ProbeOutput:    get(KeyProbeOutput),
	}
	if d, err := time.ParseDuration(get(KeyStopAfter)); err == nil && d >= 0 {
		out.Stop.After = d
	}
	if code, err := strconv.ParseInt(get(KeyStopExitCode), 10, 32); err == nil {
		out.Stop.Code = int32(code)
	}
	after := defaultExitAfter
	if d, err := time.ParseDuration(get(KeyExitAfter)); err == nil && d >= 0 {
		after = d
	}
	if oomKilled(get(KeyMemoryUsage), c) {
		out.Exit = &Exit{After: after, Code: 137, Reason: reasonOOMKilled}
		return out
	}
	if code, err := strconv.ParseInt(get(KeyExitCode), 10, 32); err == nil {
		reason := reasonError
		if code == 0 {
			reason = reasonCompleted
		}
		out.Exit = &Exit{After: after, Code: int32(code), Reason: reason}
	}
	return out
}

// containerAnnotation is CONTAINER.KEY, else KEY for a regular container.
func containerAnnotation(pod *corev1.Pod, container, key string) string {
	if v, ok := pod.Annotations[AnnotationPrefix+container+"."+key]; ok {
		return v
	}
	for _, ic := range pod.Spec.InitContainers {
		if ic.Name == container {
			return ""
		}
	}
	return pod.Annotations[AnnotationPrefix+key]
}

// oomKilled reports a usage above the container's memory limit.
func oomKilled(usage string, c *corev1.Container) bool {
	if usage == "" {
		return false
	}
	q, err := resource.ParseQuantity(strings.TrimSpace(usage))
	if err != nil {
		return false
	}
	limit, ok := c.Resources.Limits[corev1.ResourceMemory]
	return ok && q.Cmp(limit) > 0
}
