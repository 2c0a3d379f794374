package kubelet

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// promoteReady marks started and ready the containers whose first startup
// and readiness probes are due (a healthy probe passes on its first run,
// after initialDelaySeconds) and returns when the next one is due. A
// container whose readiness probe fails is never promoted.
func (w *podWorker) promoteReady() (time.Time, bool) {
	if w.rec == nil {
		return time.Time{}, false
	}
	pod := w.pod()
	specs := map[string]*corev1.Container{}
	for i := range pod.Spec.InitContainers {
		specs[pod.Spec.InitContainers[i].Name] = &pod.Spec.InitContainers[i]
	}
	for i := range pod.Spec.Containers {
		specs[pod.Spec.Containers[i].Name] = &pod.Spec.Containers[i]
	}
	now := w.a.clock.Now()
	var next time.Time
	found := false
	for _, cr := range w.rec.readyCandidates() {
		spec := specs[cr.name]
		if spec == nil || cr.phase != containerRunning || (cr.started && cr.ready) {
			continue
		}
		at := cr.startedAt.Add(probeDelay(spec.StartupProbe) + probeDelay(spec.ReadinessProbe))
		if !now.Before(at) {
			cr.started = true
			cr.ready = !readinessFails(spec, cr)
			continue
		}
		if !found || at.Before(next) {
			next, found = at, true
		}
	}
	return next, found
}

func probeDelay(p *corev1.Probe) time.Duration {
	if p == nil {
		return 0
	}
	return time.Duration(p.InitialDelaySeconds) * time.Second
}

// probePeriod and failureThreshold apply the API defaults (10 s, 3) to
// probes built without defaulting (tests).
func probePeriod(p *corev1.Probe) time.Duration {
	if p.PeriodSeconds <= 0 {
		return 10 * time.Second
	}
	return time.Duration(p.PeriodSeconds) * time.Second
}

func failureThreshold(p *corev1.Probe) int32 {
	if p.FailureThreshold <= 0 {
		return 3
	}
	return p.FailureThreshold
}

// readinessFails: only HTTP probes are simulated failing, answering 503.
func readinessFails(spec *corev1.Container, cr *containerRecord) bool {
	return cr.out.ReadinessFails && spec.ReadinessProbe != nil && spec.ReadinessProbe.HTTPGet != nil
}

func livenessFails(spec *corev1.Container, cr *containerRecord) bool {
	return cr.out.LivenessFails && spec.LivenessProbe != nil && spec.LivenessProbe.HTTPGet != nil
}

// probe runs the container's failing probes that are due, as the kubelet's
// probe workers do every periodSeconds: each failure is an Unhealthy event
// (pkg/kubelet/prober/prober.go); failureThreshold liveness failures in a
// row make the kubelet kill the container (Killing "Container %s failed
// liveness probe, will be restarted"), which then restarts.
func (w *podWorker) probe(pod *corev1.Pod, spec *corev1.Container, cr *containerRecord, now time.Time) {
	ref := containerRef(pod, spec, cr.init)
	failed := fmt.Sprintf(msgHTTPStatus, failingProbeCode)
	if readinessFails(spec, cr) {
		if !now.Before(cr.nextReadiness) {
			warn(w.a.events, ref, reasonUnhealthy, fmt.Sprintf(msgProbeFailed, probeReadiness, failed))
			cr.ready = false
			cr.nextReadiness = now.Add(probePeriod(spec.ReadinessProbe))
		}
		w.after(cr.nextReadiness)
	}
	if livenessFails(spec, cr) {
		if !now.Before(cr.nextLiveness) {
			warn(w.a.events, ref, reasonUnhealthy, fmt.Sprintf(msgProbeFailed, probeLiveness, failed))
			cr.livenessFailures++
			cr.nextLiveness = now.Add(probePeriod(spec.LivenessProbe))
			if cr.livenessFailures >= failureThreshold(spec.LivenessProbe) {
				emit(w.a.events, ref, reasonKilling, fmt.Sprintf(msgWillBeRestarted, fmt.Sprintf(msgFailedLiveness, spec.Name)))
				// Killed after the grace period: SIGKILL's 128+9, which
				// containerd reports with its non-zero reason.
				cr.exit(now, 137, reasonError)
				return
			}
		}
		w.after(cr.nextLiveness)
	}
}
