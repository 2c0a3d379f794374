package kubelet

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// Back-offs and retry periods of the kubelet (pkg/kubelet/kubelet.go) and
// its volume manager (pkg/util/goroutinemap/exponentialbackoff).
const (
	// backOffPeriod: how soon a pod whose sync failed is synced again.
	backOffPeriod = 10 * time.Second
	// syncFrequency: the kubelet's periodic resync of every pod
	// (KubeletConfiguration syncFrequency, default 1m).
	syncFrequency = time.Minute
	// relistDelay: how soon the kubelet's PLEG sees a container the sync
	// started (pkg/kubelet/pleg/generic.go relists every second: half a
	// second on average).
	relistDelay             = 500 * time.Millisecond
	imageBackOffPeriod      = 10 * time.Second
	maxImageBackOff         = 300 * time.Second
	initialCrashLoopBackOff = 10 * time.Second
	maxCrashLoopBackOff     = 300 * time.Second
	initialMountRetry       = 500 * time.Millisecond
	maxMountRetry           = 2*time.Minute + 2*time.Second
)

// newBackOff is flowcontrol's back-off on the agent's clock.
func newBackOff(clk clock.Clock, initial, limit time.Duration) *flowcontrol.Backoff {
	b := flowcontrol.NewBackOff(initial, limit)
	if clk != nil {
		b.Clock = clk
	}
	return b
}

// run is the worker's life: start the pod (or adopt it, when the kubelet
// restarts under running pods), sync it whenever something is due (a
// retry, a back-off ending, a container exiting, a probe), then stop it
// once it is deleted. Updates of the pod only wake it to notice deletion:
// the kubelet's own status writes come back as updates.
func (w *podWorker) run(ctx context.Context) {
	w.behaviour = w.a.behaviourFor(w.pod())
	if !w.adopt(w.pod()) && !w.deleting() {
		w.rec = newPodRecord(w.pod(), w.a.clock.Now())
		w.writeStatus()
		w.sync(ctx)
	}
	for !w.deleting() {
		if ctx.Err() != nil {
			return
		}
		var due <-chan time.Time
		var t clock.Timer
		if at, ok := w.nextDue(); ok {
			// Already due: a timer of the last round may have fired
			// while an update woke the worker.
			if !at.After(w.a.clock.Now()) {
				w.sync(ctx)
				continue
			}
			t = w.a.clock.NewTimer(at.Sub(w.a.clock.Now()))
			due = t.C()
		}
		select {
		case <-ctx.Done():
		case <-w.wake:
		case <-due:
			w.sync(ctx)
		}
		if t != nil {
			t.Stop()
		}
		if ctx.Err() != nil {
			return
		}
	}
	w.stop(ctx)
}

// nextDue reports the pod's status (what the last sync changed, a readiness
// that came due, a status another writer overwrote while an update woke the
// worker) and returns the earliest of the next sync and the next readiness
// promotion.
func (w *podWorker) nextDue() (time.Time, bool) {
	at, ok := w.writeStatus()
	if !w.next.IsZero() && (!ok || w.next.Before(at)) {
		return w.next, true
	}
	return at, ok
}

// after asks for a sync at t at the latest.
func (w *podWorker) after(t time.Time) {
	if w.next.IsZero() || t.Before(w.next) {
		w.next = t
	}
}

// sync is one pass of the kubelet's SyncPod: mount the volumes, create the
// sandbox, then take each container as far as it goes (init containers in
// order, each one done before the next); the worker's loop reports the status.
func (w *podWorker) sync(ctx context.Context) {
	if w.rec == nil || w.rec.terminal || w.deleting() || ctx.Err() != nil {
		return
	}
	w.next = time.Time{}
	pod := w.pod()
	if w.syncVolumes(ctx, pod) && w.syncSandbox(ctx, pod) {
		w.syncContainers(ctx, pod)
		w.checkEviction(ctx, pod)
		w.checkFinished(ctx, pod)
	}
}

// checkFinished ends a pod whose restart policy lets its containers stay
// exited (a Job's, restartPolicy Never or OnFailure): once every regular
// container exited for good, or an init container failed for good, the
// kubelet's getPhase says Succeeded or Failed (pkg/kubelet/kubelet_pods.go)
// and the pod worker terminates the pod: its sidecars are stopped and its
// sandbox with them.
func (w *podWorker) checkFinished(ctx context.Context, pod *corev1.Pod) {
	if pod.Spec.RestartPolicy == corev1.RestartPolicyAlways || pod.Spec.RestartPolicy == "" || w.rec.terminal {
		return
	}
	done := len(w.rec.containers) > 0
	for _, cr := range w.rec.containers {
		if cr.phase != containerExited || restarts(pod, cr) {
			done = false
		}
	}
	for _, cr := range w.rec.initContainers {
		if !cr.sidecar && cr.phase == containerExited && cr.exitCode != 0 && !restarts(pod, cr) {
			done = true
		}
	}
	if done && w.kill(ctx, pod, 0) {
		w.writeStatus()
	}
}

// syncVolumes mounts the pod's volumes; a failed mount is retried with the
// volume manager's exponential back-off, each failure a FailedMount event.
func (w *podWorker) syncVolumes(ctx context.Context, pod *corev1.Pod) bool {
	if w.volumesReady {
		return true
	}
	now := w.a.clock.Now()
	if now.Before(w.mountRetryAt) {
		w.after(w.mountRetryAt)
		return false
	}
	errs := volumeErrors(ctx, w.a.client, pod)
	if len(errs) == 0 {
		w.volumesReady = true
		return true
	}
	for _, e := range errs {
		if e.silent {
			klog.InfoS("Error processing volume", "pod", klog.KObj(pod), "volumeName", e.volume, "err", e.err)
			continue
		}
		warn(w.a.events, podRef(pod), reasonFailedMount, fmt.Sprintf(msgMountSetUp, mountSetUp, e.volume, ": "+e.err))
	}
	w.mountDelay = min(max(2*w.mountDelay, initialMountRetry), maxMountRetry)
	w.mountRetryAt = now.Add(w.mountDelay)
	w.after(w.mountRetryAt)
	return false
}

// syncSandbox creates the pod's sandbox: its IP, or the runtime's error.
func (w *podWorker) syncSandbox(ctx context.Context, pod *corev1.Pod) bool {
	if w.rec.sandboxReady {
		return true
	}
	// Each try is a new sandbox, with an ID of its own.
	w.rec.sandboxTries++
	if msg := w.runtimeHandlerError(ctx, pod, w.rec.sandboxTries); msg != "" {
		warn(w.a.events, podRef(pod), reasonFailedCreatePodSandBox, fmt.Sprintf(msgFailedCreateSandbox, msg))
		w.after(w.a.clock.Now().Add(backOffPeriod))
		return false
	}
	ip, err := w.a.ipam.allocate()
	if err != nil {
		klog.ErrorS(err, "creating the pod sandbox", "pod", klog.KObj(pod))
		w.after(w.a.clock.Now().Add(backOffPeriod))
		return false
	}
	w.rec.ip, w.rec.sandboxReady = ip, true
	return true
}

// syncContainers runs init containers in order, each one initialized before
// the next starts, then every regular container.
func (w *podWorker) syncContainers(ctx context.Context, pod *corev1.Pod) {
	for i := range pod.Spec.InitContainers {
		if w.deleting() || ctx.Err() != nil {
			return
		}
		cr := w.rec.initContainers[i]
		w.syncContainer(ctx, pod, &pod.Spec.InitContainers[i], cr)
		if !cr.initialized() {
			return
		}
	}
	for i := range pod.Spec.Containers {
		if w.deleting() || ctx.Err() != nil {
			return
		}
		w.syncContainer(ctx, pod, &pod.Spec.Containers[i], w.rec.containers[i])
	}
}
