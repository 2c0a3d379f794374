package kubelet

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
)

// Termination of a deleted pod (pkg/kubelet/kuberuntime/kuberuntime_container.go
// killContainer, pkg/kubelet/kubelet.go SyncTerminatingPod and
// SyncTerminatedPod, pkg/kubelet/status/status_manager.go TerminatePod).
const (
	// defaultGracePeriod is terminationGracePeriodSeconds' API default.
	defaultGracePeriod = 30 * time.Second
	// minimumGracePeriod is what the kubelet leaves a container after its
	// preStop hook, however little of the grace period remains.
	minimumGracePeriod = 2 * time.Second
	// sigkillExitCode is what containerd reports for a process SIGKILLed
	// at the end of the grace period: 128+9.
	sigkillExitCode = 137
	// A container the runtime cannot account for when the pod ends
	// (pkg/kubelet/container/runtime.go, status_manager.go TerminatePod).
	reasonStatusUnknown = "ContainerStatusUnknown"
	msgStatusUnknown    = "The container could not be located when the pod was terminated"
	// pkg/kubelet/status/generate.go: the reasons of Ready,
	// ContainersReady and Initialized once the pod is terminal.
	reasonPodCompleted = "PodCompleted"
	reasonPodFailed    = "PodFailed"
	// pkg/kubelet/types/constants.go: a sandbox that exists but is stopped.
	msgSandboxNotReady = "pod sandbox is not ready"
)

// stop is the kubelet's termination of a deleted pod: a Killing event for
// every running container, each one's stop within the grace period (its
// preStop sleep, then SIGTERM; SIGKILL when the grace period ends first), the
// terminal status with each container's exit, then the final delete (grace
// period 0, UID precondition) that removes the pod from the API. A pod
// deleted with --force leaves the API at once, which cancels ctx and ends the
// wait.
func (w *podWorker) stop(ctx context.Context) {
	pod := w.pod()
	if w.rec != nil {
		if !w.kill(ctx, pod, gracePeriod(pod)) {
			return
		}
		w.writeStatus()
		// The terminal status lands before the pod is removed.
		w.a.status.flush(ctx, w)
		w.a.ipam.release(w.rec.ip)
	}
	err := w.a.client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{
		GracePeriodSeconds: ptr.To[int64](0),
		Preconditions:      metav1.NewUIDPreconditions(string(pod.UID)),
	})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		klog.ErrorS(err, "deleting the pod", "pod", klog.KObj(pod))
	}
}

// stopping is one running container and how and when it ends.
type stopping struct {
	cr   *containerRecord
	at   time.Time
	code int32
}

// kill stops the pod's running containers within grace and waits until the
// last one has exited; it reports false when ctx ended first (the pod is
// gone).
func (w *podWorker) kill(ctx context.Context, pod *corev1.Pod, grace time.Duration) bool {
	now := w.a.clock.Now()
	var stops []stopping
	last := now
	each := func(specs []corev1.Container, recs []*containerRecord, init bool) {
		for i, cr := range recs {
			if cr.phase != containerRunning {
				continue
			}
			spec := &specs[i]
			emit(w.a.events, containerRef(pod, spec, init), reasonKilling, fmt.Sprintf(msgKilling, cr.name))
			after, code := stopTime(spec, cr.out.Stop, grace)
			s := stopping{cr: cr, at: now.Add(after), code: code}
			stops = append(stops, s)
			if s.at.After(last) {
				last = s.at
			}
		}
	}
	each(pod.Spec.InitContainers, w.rec.initContainers, true)
	each(pod.Spec.Containers, w.rec.containers, false)
	if last.After(now) {
		t := w.a.clock.NewTimer(last.Sub(now))
		defer t.Stop()
		select {
		case <-ctx.Done():
			return false
		case <-t.C():
		}
	}
	for _, s := range stops {
		reason := reasonError
		if s.code == 0 {
			reason = reasonCompleted
		}
		s.cr.exit(s.at, s.code, reason)
	}
	w.rec.terminate(podInitialized(pod))
	return true
}

// stopTime is how long after the kill a container is gone and its exit
// code: its preStop sleep (the only hook that takes time in the lab; exec
// and HTTP hooks return at once), then how long it takes to exit on SIGTERM,
// unless the grace period, with at least minimumGracePeriod left after the
// hook, ends first: SIGKILL.
func stopTime(c *corev1.Container, stop Stop, grace time.Duration) (time.Duration, int32) {
	var hook time.Duration
	if l := c.Lifecycle; l != nil && l.PreStop != nil && l.PreStop.Sleep != nil && grace > 0 {
		hook = min(time.Duration(l.PreStop.Sleep.Seconds)*time.Second, grace)
	}
	left := max(grace-hook, minimumGracePeriod)
	if stop.After > left {
		return hook + left, sigkillExitCode
	}
	return hook + stop.After, stop.Code
}

// gracePeriod is the pod's deletion grace period, which the API server set
// from terminationGracePeriodSeconds or the delete's --grace-period.
func gracePeriod(pod *corev1.Pod) time.Duration {
	switch {
	case pod.DeletionGracePeriodSeconds != nil:
		return time.Duration(*pod.DeletionGracePeriodSeconds) * time.Second
	case pod.Spec.TerminationGracePeriodSeconds != nil:
		return time.Duration(*pod.Spec.TerminationGracePeriodSeconds) * time.Second
	}
	return defaultGracePeriod
}

// podInitialized is status_manager.go's hasPodInitialized: no init
// containers, or a container that left waiting, or the last init container
// done.
func podInitialized(pod *corev1.Pod) bool {
	if len(pod.Spec.InitContainers) == 0 {
		return true
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.LastTerminationState.Terminated != nil || cs.State.Waiting == nil {
			return true
		}
	}
	ics := pod.Status.InitContainerStatuses
	if len(ics) == 0 {
		return false
	}
	last := ics[len(ics)-1]
	if c := pod.Spec.InitContainers[len(pod.Spec.InitContainers)-1]; c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
		return last.State.Running != nil && ptr.Deref(last.Started, false)
	}
	return last.State.Terminated != nil && last.State.Terminated.ExitCode == 0
}

// terminate marks the record terminal, as TerminatePod does: the sandbox
// is stopped, and a container that has no exit to report (it waits to be
// started or restarted) is terminated with ContainerStatusUnknown, for
// regular containers once the pod had initialized, for init containers up
// to the last one that ever left waiting.
func (r *podRecord) terminate(initialized bool) {
	r.terminal, r.sandboxReady = true, false
	unknown := func(c *containerRecord) {
		if c.phase == containerExited {
			return
		}
		c.phase, c.exitCode, c.reason, c.message = containerExited, sigkillExitCode, reasonStatusUnknown, msgStatusUnknown
		c.startedAt, c.finishedAt, c.started, c.ready = time.Time{}, time.Time{}, false, false
	}
	if initialized {
		for _, c := range r.containers {
			unknown(c)
		}
	}
	lastStarted := 0
	for i, c := range r.initContainers {
		if c.phase != containerWaiting || c.last != nil {
			lastStarted = i
		}
	}
	for i := 0; i < len(r.initContainers) && i <= lastStarted; i++ {
		unknown(r.initContainers[i])
	}
}

// terminalPhase is getPhase for a terminal pod, then TerminatePod's rule:
// Succeeded when every regular container exited 0, else Failed.
func terminalPhase(r *podRecord) corev1.PodPhase {
	for _, c := range r.containers {
		if c.phase != containerExited || c.exitCode != 0 {
			return corev1.PodFailed
		}
	}
	return corev1.PodSucceeded
}

// terminalConditions are the kubelet's conditions of a terminal pod
// (pkg/kubelet/status/generate.go): the sandbox stopped, Ready and
// ContainersReady False with PodCompleted or PodFailed and no message,
// Initialized True with PodCompleted for a pod that succeeded, or True once
// a regular container ran.
func terminalConditions(r *podRecord, gen int64, phase corev1.PodPhase, conds []corev1.PodCondition) []corev1.PodCondition {
	reason := reasonPodFailed
	if phase == corev1.PodSucceeded {
		reason = reasonPodCompleted
	}
	ran := false
	for _, c := range r.containers {
		ran = ran || c.instances > 0
	}
	out := make([]corev1.PodCondition, 0, len(conds))
	for _, c := range conds {
		switch c.Type {
		case corev1.PodReadyToStartContainers:
			c = condition(c.Type, gen, corev1.ConditionFalse, reasonSandboxNotReady, msgSandboxNotReady)
		case corev1.PodReady, corev1.ContainersReady:
			c = condition(c.Type, gen, corev1.ConditionFalse, reason, "")
		case corev1.PodInitialized:
			switch {
			case phase == corev1.PodSucceeded:
				c = condition(c.Type, gen, corev1.ConditionTrue, reasonPodCompleted, "")
			case ran:
				c = condition(c.Type, gen, corev1.ConditionTrue, "", "")
			}
		}
		out = append(out, c)
	}
	return out
}
