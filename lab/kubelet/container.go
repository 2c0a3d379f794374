package kubelet

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-chain/kubectl-chain/lab/workload"
)

// syncContainer takes one container as far as it goes now: a running one
// may exit or fail its probes; an exited one restarts, unless it is a
// finished init container or its crash-loop back-off holds it; a waiting one
// is started (image, config, create, start), or stays waiting with the
// reason the kubelet gives.
func (w *podWorker) syncContainer(ctx context.Context, pod *corev1.Pod, spec *corev1.Container, cr *containerRecord) {
	if cr.phase == containerRunning {
		w.runContainer(pod, spec, cr)
	}
	switch cr.phase {
	case containerRunning:
		return
	case containerExited:
		if !restarts(pod, cr) {
			return
		}
		if w.crashLoopBackOff(pod, spec, cr, cr.finishedAt) {
			return
		}
		cr.last = cr.terminated()
		cr.wait(reasonCrashLoopBackOff, "")
	case containerWaiting:
		if cr.last != nil && (cr.waitReason == reasonCrashLoopBackOff || cr.waitReason == reasonRunContainerError || cr.waitReason == reasonPostStartHookError) &&
			w.crashLoopBackOff(pod, spec, cr, cr.last.FinishedAt.Time) {
			return
		}
	}
	w.startContainer(ctx, pod, spec, cr)
	if cr.phase == containerRunning {
		w.runContainer(pod, spec, cr)
	}
	if cr.phase == containerExited && restarts(pod, cr) {
		w.after(w.a.clock.Now())
	}
}

// restarts applies the restart policy to an exited container: a regular
// container or sidecar of a Deployment's pod always restarts; an init
// container only when it failed.
func restarts(pod *corev1.Pod, cr *containerRecord) bool {
	if cr.init && !cr.sidecar && cr.exitCode == 0 {
		return false
	}
	switch pod.Spec.RestartPolicy {
	case corev1.RestartPolicyNever:
		return cr.sidecar
	case corev1.RestartPolicyOnFailure:
		return cr.sidecar || cr.exitCode != 0
	}
	return true
}

// crashLoopBackOff is the kubelet's doBackOff: after a container exited
// (at ts), it restarts only once the back-off since its finish has passed
// (10 s, doubling, 5 min cap), and every sync meanwhile records a BackOff
// event. The sync that finds the container exited reports it as it is,
// terminated: the kubelet writes the pod's status before it asks the
// runtime, and only then learns of the back-off (its reason cache,
// pkg/kubelet/kubelet_pods.go). It syncs the pod again when the back-off
// ends, or at its periodic resync: only a sync that comes while the
// back-off still holds reports the container waiting in CrashLoopBackOff.
// The real node of the lab (v1.37.2) showed this: the state stays
// terminated between restarts in the first back-offs.
func (w *podWorker) crashLoopBackOff(pod *corev1.Pod, spec *corev1.Container, cr *containerRecord, ts time.Time) bool {
	key := cr.name
	if w.crashBackOff.IsInBackOffSince(key, ts) {
		desc := podDesc(pod.Name, pod.Namespace, pod.UID)
		warn(w.a.events, containerRef(pod, spec, cr.init), reasonBackOff, fmt.Sprintf(msgBackOffRestart, spec.Name, desc))
		backoff := w.crashBackOff.Get(key)
		switch {
		case cr.phase == containerWaiting && (cr.waitReason == reasonRunContainerError || cr.waitReason == reasonPostStartHookError):
			// the status written in this sync was made before the kubelet
			// learned of the back-off: it keeps the failed start's reason
			// until the back-off's end
		case cr.phase != containerExited:
			cr.wait(reasonCrashLoopBackOff, fmt.Sprintf(msgCrashLoopBackOff, backoff, spec.Name, desc))
		case cr.backOffSynced || cr.killedBySync:
			cr.last = cr.terminated()
			cr.wait(reasonCrashLoopBackOff, fmt.Sprintf(msgCrashLoopBackOff, backoff, spec.Name, desc))
		default:
			cr.backOffSynced = true
		}
		w.after(minTime(ts.Add(backoff), w.a.clock.Now().Add(syncFrequency)))
		return true
	}
	held := cr.phase == containerWaiting && (cr.waitReason == reasonRunContainerError || cr.waitReason == reasonPostStartHookError) && w.crashBackOff.Get(key) > 0
	if cr.phase == containerExited && cr.backOffSynced || held {
		// The sync at the back-off's end writes the status before it
		// restarts the container, and the reason cache still says
		// CrashLoopBackOff; the restart shows at the next relist.
		desc := podDesc(pod.Name, pod.Namespace, pod.UID)
		if cr.phase == containerExited {
			cr.last = cr.terminated()
		}
		cr.wait(reasonCrashLoopBackOff, fmt.Sprintf(msgCrashLoopBackOff, w.crashBackOff.Get(key), spec.Name, desc))
		w.after(w.a.clock.Now().Add(relistDelay))
		return true
	}
	w.crashBackOff.Next(key, ts)
	return false
}

// startContainer is the kubelet's startContainer: ensure the image, build
// the container's config (env from ConfigMaps and Secrets), create, start.
func (w *podWorker) startContainer(ctx context.Context, pod *corev1.Pod, spec *corev1.Container, cr *containerRecord) {
	ref := containerRef(pod, spec, cr.init)
	image, imageID, ok := w.ensureImage(ctx, pod, spec, cr, ref)
	if !ok {
		w.after(w.a.clock.Now().Add(backOffPeriod))
		return
	}
	cr.image, cr.imageID = image, imageID
	if msg := envError(ctx, w.a.client, pod, spec); msg != "" {
		warn(w.a.events, ref, reasonFailed, fmt.Sprintf(msgError, msg))
		cr.wait(reasonCreateContainerConfigError, msg)
		w.after(w.a.clock.Now().Add(backOffPeriod))
		return
	}
	if msg := createError(pod, spec); msg != "" {
		warn(w.a.events, ref, reasonFailed, fmt.Sprintf(msgError, msg))
		cr.wait(reasonCreateContainerError, msg)
		w.after(w.a.clock.Now().Add(backOffPeriod))
		return
	}
	cr.id = containerID(pod, spec.Name, int(cr.instances))
	cr.instances++
	emit(w.a.events, ref, reasonCreated, msgCreated)
	now := w.a.clock.Now()
	if msg := startError(spec); msg != "" {
		// The runtime created the container and could not start its
		// process: the kubelet's "Error: %v" event, the container left
		// waiting in RunContainerError, and containerd's record of it as
		// terminated with StartError and 128, never started.
		warn(w.a.events, ref, reasonFailed, fmt.Sprintf(msgError, msg))
		cr.last = &corev1.ContainerStateTerminated{ExitCode: 128, Reason: reasonStartError, Message: msg, ContainerID: cr.id,
			StartedAt: metav1.NewTime(time.Unix(0, 0).UTC()), FinishedAt: metav1.NewTime(now)}
		cr.wait(reasonRunContainerError, msg)
		w.after(now.Add(relistDelay)) // the sync the container's death brings
		return
	}
	emit(w.a.events, ref, reasonStarted, msgStarted)
	cr.phase, cr.startedAt, cr.waitReason, cr.waitMessage = containerRunning, now, "", ""
	cr.out = w.behaviour.Run(pod, spec)
	if cr.init && !cr.sidecar && cr.out.Exit == nil {
		cr.out.Exit = &Exit{Reason: reasonCompleted}
	}
	cr.exitAt = time.Time{}
	if cr.out.Exit != nil {
		cr.exitAt = now.Add(cr.out.Exit.After)
	}
	cr.started = spec.StartupProbe == nil
	cr.ready = cr.out.Ready && cr.started && spec.ReadinessProbe == nil && !cr.init
	if cr.sidecar {
		cr.ready = cr.out.Ready && cr.started && spec.ReadinessProbe == nil
	}
	cr.nextReadiness = now.Add(probeDelay(spec.ReadinessProbe))
	cr.nextLiveness = now.Add(probeDelay(spec.LivenessProbe))
	cr.livenessFailures = 0
	if code, failed := postStartExit(spec); failed {
		// pkg/kubelet/kuberuntime/kuberuntime_container.go startContainer's
		// step 4: the event leaves the hook's output out, then the kubelet
		// kills the container (SIGTERM: the program's own exit) in the
		// sync that will ask for its restart, and its reason cache keeps
		// PostStartHookError with the handler's message
		// (pkg/kubelet/lifecycle/handlers.go, the exec error of
		// k8s.io/cri-client's remote_runtime.go, the program's own output).
		warn(w.a.events, ref, reasonFailedPostStartHook, msgPostStartHookFailed)
		emit(w.a.events, ref, reasonKilling, reasonFailedPostStartHook)
		stop, reason := cr.out.Stop.Code, reasonCompleted
		if stop != 0 {
			reason = reasonError
		}
		cr.exit(now, stop, reason)
		cr.killedBySync = true
		cmd := spec.Lifecycle.PostStart.Exec.Command
		err := fmt.Sprintf("command '%s' exited with %d: %s", strings.Join(cmd, " "), code, "")
		output := fmt.Sprintf("%s exiting with code %d\n", now.UTC().Format(time.RFC3339), code)
		cr.last = cr.terminated()
		cr.wait(reasonPostStartHookError, fmt.Sprintf(msgExecHookFailed, cmd, spec.Name, podDesc(pod.Name, pod.Namespace, pod.UID), err, output))
		w.after(now.Add(relistDelay)) // the sync the container's death brings
	}
}

// startError is the runtime's error starting the container's process, ""
// when it starts: the lab's image without its entrypoint, or a command the
// lab's images do not hold (they hold the program only). The wording is
// runc's under containerd 2.4.2, as the lab's real node gives it.
func startError(c *corev1.Container) string {
	host, path, ref := splitImage(c.Image)
	if host != RegistryHost {
		return ""
	}
	exe := ""
	switch {
	case len(c.Command) > 0 && c.Command[0] != workloadPath:
		exe = c.Command[0]
	case len(c.Command) == 0 && path == "web" && ref == noEntrypointTag:
		exe = missingEntrypoint
	default:
		return ""
	}
	cause := fmt.Sprintf("exec: %q: executable file not found in $PATH", exe)
	if strings.HasPrefix(exe, "/") {
		cause = fmt.Sprintf("exec: %q: stat %s: no such file or directory", exe, exe)
	}
	return fmt.Sprintf(runcStartFailed, cause)
}

// postStartExit says whether the container's postStart hook fails, and
// with which exit code: an exec hook that runs the lab's program asking it
// to exit non-zero. Other hooks succeed (the simulated kubelet does not
// play a command the lab's images do not hold, or an HTTP hook).
func postStartExit(c *corev1.Container) (int, bool) {
	if c.Lifecycle == nil || c.Lifecycle.PostStart == nil || c.Lifecycle.PostStart.Exec == nil {
		return 0, false
	}
	if host, _, _ := splitImage(c.Image); host != RegistryHost {
		return 0, false
	}
	cmd := c.Lifecycle.PostStart.Exec.Command
	if len(cmd) == 0 || cmd[0] != workloadPath {
		return 0, false
	}
	o, err := workload.Parse(cmd[1:], func(string) string { return "" })
	if err != nil {
		return 2, true
	}
	return o.Exit, o.Exit > 0
}

// runContainer ends a running container whose exit is due and runs its
// failing probes; otherwise it asks for a sync when the next is due.
func (w *podWorker) runContainer(pod *corev1.Pod, spec *corev1.Container, cr *containerRecord) {
	now := w.a.clock.Now()
	if !cr.exitAt.IsZero() && !now.Before(cr.exitAt) {
		cr.exit(cr.exitAt, cr.out.Exit.Code, cr.out.Exit.Reason)
		return
	}
	if !cr.exitAt.IsZero() {
		w.after(cr.exitAt)
	}
	w.probe(pod, spec, cr, now)
}

// podDesc is format.PodDesc of pkg/kubelet/util/format: name_namespace(uid).
func podDesc(name, namespace string, uid types.UID) string {
	return fmt.Sprintf("%s_%s(%s)", name, namespace, uid)
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
