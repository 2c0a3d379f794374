package diagnose

import (
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// rollout is what the ready link judges a workload's pods against: how
// many should be ready, for how long, and the kind's rollout status by
// kubectl rollout status's rules.
type rollout struct {
	obj      string // "deployment/web"
	want     int32
	minReady int32
	// status says what the rollout still waits for, done when it waits for
	// nothing; evidence is the status fields it read.
	status func() (msg string, done bool, evidence string)
}

// deploymentRollout is a Deployment's rollout: out of what the current
// ReplicaSet wants, not of the pods that happen to run ("3/3 ready" while
// 5 are wanted would read healthy).
func (w *walker) deploymentRollout() *rollout {
	if w.d == nil {
		return nil
	}
	want := replicas(w.d.Spec.Replicas)
	if w.rs != nil {
		want = replicas(w.rs.Spec.Replicas)
	}
	return &rollout{obj: objectName("deployment", w.d.Name), want: want, minReady: w.d.Spec.MinReadySeconds,
		status: func() (string, bool, string) {
			msg, done := rolloutStatus(w.d)
			return msg, done, fmt.Sprintf("replicas %d, updated %d, ready %d, available %d", w.d.Status.Replicas,
				w.d.Status.UpdatedReplicas, w.d.Status.ReadyReplicas, w.d.Status.AvailableReplicas)
		}}
}

// ready: the pods pass their readiness probes and the rollout is complete by
// the rules of `kubectl rollout status`. before are the links judged so far.
func (w *walker) ready(before []chain.Link, ro *rollout) chain.Link {
	if ro == nil {
		return notReached(chain.LinkReady, "no "+strings.ToLower(string(w.s.KindOf())))
	}
	var runningPods []*corev1.Pod
	for _, p := range w.pods {
		if p.Spec.NodeName != "" && p.Status.Phase == corev1.PodRunning && allRunning(p) {
			runningPods = append(runningPods, p)
		}
	}
	// With no pod running, an earlier link that is not ok says why. With
	// every earlier link ok or not reached (a maxSurge 0 rollout whose new
	// ReplicaSet is still at 0 replicas), only the rollout status can
	// tell: the verdict must never be healthy while it would still wait.
	if len(runningPods) == 0 && ro.want > 0 && !settled(before) {
		return notReached(chain.LinkReady, "no pod runs all its containers")
	}
	c := &collector{}
	ready, available := 0, 0
	minReady := time.Duration(ro.minReady) * time.Second
	for _, p := range runningPods {
		cond := podCondition(p, corev1.PodReady)
		obj := objectName("pod", p.Name)
		if cond != nil && cond.Status == corev1.ConditionTrue {
			ready++
			if w.s.Now.Sub(cond.LastTransitionTime.Time) >= minReady {
				available++
			} else {
				c.add(sighting{d: decode.Decoded{Cause: decode.MinReadySeconds, Progressing: true,
					Summary: fmt.Sprintf("ready for less than minReadySeconds (%ds)", ro.minReady)},
					object: obj, since: cond.LastTransitionTime.Time,
					evidence: []chain.Evidence{conditionEvidence(obj, string(cond.Type), string(cond.Status), cond.Reason, cond.Message)}})
			}
			continue
		}
		w.notReady(c, p, cond)
	}
	summary := fmt.Sprintf("%d/%d pods ready", ready, ro.want)
	if minReady > 0 {
		summary += fmt.Sprintf(", %d available after minReadySeconds %ds", available, ro.minReady)
	}
	if c.empty() {
		if msg, done, ev := ro.status(); done {
			summary += "; " + msg
		} else {
			c.add(sighting{d: decode.Decoded{Cause: decode.RolloutInProgress, Progressing: true, Summary: msg}, object: ro.obj,
				evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: ro.obj, Field: "status", Message: ev}}})
		}
	}
	return w.stalled(w.finish(chain.LinkReady, summary, c, len(runningPods)))
}

// NoDeadlineWindow is how long a pod of a kind without a progress
// deadline (a StatefulSet's, a DaemonSet's, a bare pod) may stay not
// Ready before the ready link is broken: the Deployment's default
// progressDeadlineSeconds, so that a probe failing for hours ends a
// `--wait` as it would for a Deployment instead of running to --timeout.
const NoDeadlineWindow = 600 * time.Second

// stalled makes a not-Ready pod of a kind without a progress deadline (a
// failing readiness probe: broken but not terminal; no probe failure
// seen: progressing) a terminal failure once it has lasted
// NoDeadlineWindow, the wait named.
// A Deployment's or Rollout's progress deadline judges its own.
func (w *walker) stalled(l chain.Link) chain.Link {
	if row, ok := chain.RowOf(w.s.KindOf()); !ok || row.Deadline {
		return l
	}
	for i := range l.Findings {
		f := &l.Findings[i]
		if f.Cause != decode.ReadinessProbeFailed && f.Cause != decode.PodNotReady || f.Terminal || f.Since.IsZero() {
			continue
		}
		if long := w.s.Now.Sub(f.Since); long >= NoDeadlineWindow {
			f.Progressing, f.Terminal = false, true
			f.Summary += fmt.Sprintf("; not ready for %s, past %s (a %s has no progress deadline; kubectl chain gives it a Deployment's default)",
				long.Round(time.Second), NoDeadlineWindow, strings.ToLower(string(w.s.KindOf())))
			l.Status = chain.StatusBroken
		}
	}
	return l
}

// settled says no link so far is broken, progressing or unknown.
func settled(links []chain.Link) bool {
	for _, l := range links {
		switch l.Status {
		case chain.StatusBroken, chain.StatusProgressing, chain.StatusUnknown:
			return false
		}
	}
	return true
}

// notReady explains a running pod that is not Ready: its newest failed
// readiness (or startup) probe, else a plain wait.
func (w *walker) notReady(c *collector, p *corev1.Pod, cond *corev1.PodCondition) {
	obj := objectName("pod", p.Name)
	evs := w.s.EventsFor("Pod", p.Name, p.UID)
	for i := len(evs) - 1; i >= 0; i-- {
		e := evs[i]
		if d, ok := decode.Probe(e.Reason, eventMessage(e)); ok && (d.Cause == decode.ReadinessProbeFailed || d.Cause == decode.StartupProbeFailed) {
			s := sighting{d: d, object: obj, since: e.First, repeats: e.Count, evidence: []chain.Evidence{eventEvidence(e)}}
			if d.Cause == decode.StartupProbeFailed {
				// Failing the startup probe is how a slow starter starts
				// (failureThreshold 30 is the documented pattern): it
				// matters once it has killed the container, and each
				// kill is a restart.
				s.repeats = restartsOf(p, e.FieldPath)
				s.d.Progressing = s.repeats == 0
			}
			c.add(s)
			return
		}
	}
	s := sighting{d: decode.Decoded{Cause: decode.PodNotReady, Progressing: true}, object: obj}
	if cond != nil {
		s.since = cond.LastTransitionTime.Time
		s.evidence = []chain.Evidence{conditionEvidence(obj, string(cond.Type), string(cond.Status), cond.Reason, cond.Message)}
	} else {
		s.evidence = []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "status.conditions", Message: "no Ready condition"}}
	}
	c.add(s)
}

// rolloutStatus applies kubectl rollout status's rules
// (k8s.io/kubectl/pkg/polymorphichelpers/rollout_status.go) to the
// Deployment's status and says what the rollout still waits for.
func rolloutStatus(d *appsv1.Deployment) (string, bool) {
	want := replicas(d.Spec.Replicas)
	st := d.Status
	switch {
	case st.ObservedGeneration < d.Generation:
		return "waiting for the Deployment controller to observe the spec", false
	case st.UpdatedReplicas < want:
		return fmt.Sprintf("%d out of %d new replicas have been updated", st.UpdatedReplicas, want), false
	case st.Replicas > st.UpdatedReplicas:
		return fmt.Sprintf("%d old replicas are pending termination", st.Replicas-st.UpdatedReplicas), false
	case st.AvailableReplicas < st.UpdatedReplicas:
		return fmt.Sprintf("%d of %d updated replicas are available", st.AvailableReplicas, st.UpdatedReplicas), false
	}
	return "rollout complete", true
}

// restartsOf is the restart count of the container an event's field path
// names ("spec.containers{web}", "spec.initContainers{proxy}"); with no
// such container, the most any container restarted.
func restartsOf(p *corev1.Pod, fieldPath string) int32 {
	var most int32
	for _, group := range []struct {
		path string
		sts  []corev1.ContainerStatus
	}{{"spec.initContainers", p.Status.InitContainerStatuses}, {"spec.containers", p.Status.ContainerStatuses}} {
		for _, st := range group.sts {
			if fieldPath == group.path+"{"+st.Name+"}" {
				return st.RestartCount
			}
			most = max(most, st.RestartCount)
		}
	}
	return most
}

func allRunning(p *corev1.Pod) bool {
	if len(p.Status.ContainerStatuses) == 0 {
		return false
	}
	for _, st := range p.Status.ContainerStatuses {
		if st.State.Running == nil {
			return false
		}
	}
	return true
}

func podCondition(p *corev1.Pod, t corev1.PodConditionType) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == t {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}
