package diagnose

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// rolloutLinks walks an Argo Rollout as a Deployment: stored, then the
// Rollouts controller's own link (spec, abort, pauses), then its current
// ReplicaSet, the pods, their node, containers and readiness.
func (w *walker) rolloutLinks() []chain.Link {
	ro := w.s.Rollout
	if ro == nil {
		return w.notFound(decode.WorkloadNotFound)
	}
	w.ro = ro
	want := replicas(ro.Spec.Replicas)
	own := w.rolloutOwn(ro)
	if len(ro.Undecoded) > 0 {
		own.Notes = append(own.Notes, "read without "+strings.Join(ro.Undecoded, ", ")+": not of the type Argo Rollouts writes")
	}
	links := []chain.Link{w.storedWorkload(ro, rolloutObserved(ro), plural(want, "replica")+" wanted", ""), own}
	links = append(links, w.replicaSet(), w.podsLink(), w.nodeAssignment(), w.containers())
	links = append(links, w.ready(links, w.rolloutReady(ro)))
	w.rolloutDeadline(links)
	return links
}

// rolloutObserved is status.observedGeneration as a number, -1 when it is
// not one (before v0.10 it held a hash): GetRolloutPhase's
// isGenerationObserved.
func rolloutObserved(ro *chain.Rollout) int64 {
	n, err := strconv.ParseInt(ro.Status.ObservedGeneration, 10, 64)
	if err != nil || n > ro.Generation {
		return -1
	}
	return n
}

// rolloutOwn is the Rollouts controller's own state of the rollout, in
// the order GetRolloutPhase reads it: an invalid spec, an abort, a pause.
// The progress deadline is judged once the later links are
// (rolloutDeadline).
func (w *walker) rolloutOwn(ro *chain.Rollout) chain.Link {
	obj := objectName("rollout", ro.Name)
	c := &collector{}
	cond := func(cd *chain.RolloutCondition) []chain.Evidence {
		return []chain.Evidence{conditionEvidence(obj, cd.Type, cd.Status, cd.Reason, cd.Message)}
	}
	if cd := ro.Condition("InvalidSpec"); cd != nil && cd.Status == string(corev1.ConditionTrue) {
		d, _ := decode.RolloutWords("InvalidSpec", cd.Message)
		c.add(sighting{d: d, object: obj, since: cd.LastTransitionTime.Time, evidence: cond(cd)})
	}
	progressing := ro.Condition("Progressing")
	st := ro.Status
	if st.ObservedGeneration == "" && st.Phase == "" && len(st.Conditions) == 0 && st.CurrentPodHash == "" {
		// Nothing written: the Rollouts controller has not seen it (not
		// installed, not running, or scoped to other namespaces). The
		// Deployment controller never acts on a Rollout, so its steps
		// would mislead.
		c.add(sighting{d: decode.Decoded{Cause: decode.RolloutNotReconciled, Progressing: true}, object: obj, since: ro.CreationTimestamp.Time,
			evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "status", Message: "no status: no observedGeneration, phase or condition"}}})
		return w.finish(chain.LinkRollout, "no status: the Rollouts controller has not acted on it", c, 0)
	}
	switch {
	case st.Abort || progressing != nil && progressing.Reason == "RolloutAborted":
		s := sighting{d: decode.Decoded{Cause: decode.RolloutAborted}, object: obj}
		if progressing != nil && progressing.Reason == "RolloutAborted" {
			s.d, _ = decode.RolloutWords(progressing.Reason, progressing.Message)
			s.since, s.evidence = progressing.LastTransitionTime.Time, cond(progressing)
		} else {
			s.evidence = []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "status.abort", Message: "true"}}
		}
		if st.AbortedAt != nil {
			s.since = st.AbortedAt.Time
		}
		s.d.NextStep = fmt.Sprintf("read why the analysis failed: kubectl get analysisrun -n %s -l rollouts-pod-template-hash=%s; once fixed, push a new revision or retry: kubectl argo rollouts retry rollout %s -n %s",
			ro.Namespace, ro.Status.CurrentPodHash, ro.Name, ro.Namespace)
		if run := w.failedRun(ro); run != nil {
			s.d.NextStep = fmt.Sprintf("kubectl describe analysisrun %s -n %s; once fixed, push a new revision or retry: kubectl argo rollouts retry rollout %s -n %s", run.Name, ro.Namespace, ro.Name, ro.Namespace)
			s.evidence = append(s.evidence, chain.Evidence{Source: chain.SourceObjectStatus, Object: "analysisrun/" + run.Name,
				Field: "status", Type: run.Status, Message: run.Message})
		}
		c.add(s)
	case ro.Spec.Paused:
		c.add(sighting{d: decode.Decoded{Cause: decode.RolloutPaused, Summary: "paused by hand (spec.paused)",
			NextStep: fmt.Sprintf("kubectl argo rollouts resume %s -n %s", ro.Name, ro.Namespace)},
			object: obj, evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "spec.paused", Message: "true"}}})
	case len(st.PauseConditions) > 0:
		c.add(w.pauseSighting(ro, obj))
	case st.ControllerPause:
		// IsUnpausing: the pause conditions were cleared (a promote)
		// and the controller has not acted yet.
		c.add(sighting{d: decode.Decoded{Cause: decode.RolloutUnpausing, Progressing: true}, object: obj,
			evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "status.controllerPause", Message: "true, with no pause condition left"}}})
	}
	return w.finish(chain.LinkRollout, rolloutSummary(ro), c, 0)
}

// pauseSighting is the rollout's first pause condition: a timed canary
// pause goes on by itself; any other waits for a person.
func (w *walker) pauseSighting(ro *chain.Rollout, obj string) sighting {
	pc := ro.Status.PauseConditions[0]
	ev := []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "status.pauseConditions", Reason: pc.Reason,
		Message: "since " + pc.StartTime.UTC().Format(time.RFC3339)}}
	promote := fmt.Sprintf("kubectl argo rollouts promote %s -n %s", ro.Name, ro.Namespace)
	s := sighting{object: obj, since: pc.StartTime.Time, evidence: ev}
	switch pc.Reason {
	case "CanaryPauseStep":
		step, at := currentStep(ro)
		if step != nil && step.Pause != nil && step.Pause.Duration != nil {
			s.d = decode.Decoded{Cause: decode.RolloutStepPause, Progressing: true, Summary: fmt.Sprintf("paused at %s, going on by itself", at)}
			s.since = time.Time{}
			return s
		}
		s.d = decode.Decoded{Cause: decode.RolloutPaused, Summary: fmt.Sprintf("paused at %s, waiting for a promotion", at), NextStep: promote + " once the canary is good"}
	case "BlueGreenPause":
		s.d = decode.Decoded{Cause: decode.RolloutPaused, Summary: "the blue-green preview waits for a promotion (autoPromotionEnabled is false)", NextStep: promote + " once the preview is good"}
	case "InconclusiveAnalysisRun", "InconclusiveExperiment":
		s.d = decode.Decoded{Cause: decode.RolloutAnalysisInconclusive}
		if run := w.failedRun(ro); run != nil {
			s.evidence = append(s.evidence, chain.Evidence{Source: chain.SourceObjectStatus, Object: "analysisrun/" + run.Name, Field: "status", Type: run.Status, Message: run.Message})
		}
	default:
		s.d = decode.Decoded{Cause: decode.RolloutPaused, Summary: "paused: " + pc.Reason, NextStep: promote}
	}
	return s
}

// currentStep is the canary step the rollout is at, and "step N/M (what)"
// as the Rollouts plugin counts them.
func currentStep(ro *chain.Rollout) (*chain.CanaryStep, string) {
	if ro.Spec.Strategy.Canary == nil || ro.Status.CurrentStepIndex == nil {
		return nil, "a step"
	}
	steps, i := ro.Spec.Strategy.Canary.Steps, int(*ro.Status.CurrentStepIndex)
	if i < 0 || i >= len(steps) {
		return nil, fmt.Sprintf("step %d/%d", i, len(steps))
	}
	return &steps[i], fmt.Sprintf("step %d/%d (%s)", i+1, len(steps), chain.StepString(steps[i]))
}

// failedRun is the AnalysisRun the rollout recorded as failed, erroring or
// inconclusive, nil when none. An abort clears the status's record (seen
// on the v1.10 controller), so the rollout's newest AnalysisRunFailed or
// AnalysisRunError event names the run then: "Step Analysis Run 'NAME'
// Status New: 'Failed' Previous: 'Running'" (rollout/analysis.go
// emitAnalysisRunStatusChanges).
func (w *walker) failedRun(ro *chain.Rollout) *chain.RolloutAnalysisRunStatus {
	st := ro.Status
	for _, r := range []*chain.RolloutAnalysisRunStatus{st.Canary.CurrentStepAnalysisRunStatus, st.Canary.CurrentBackgroundAnalysisRunStatus,
		st.BlueGreen.PrePromotionAnalysisRunStatus, st.BlueGreen.PostPromotionAnalysisRunStatus} {
		if r != nil && (r.Status == "Failed" || r.Status == "Error" || r.Status == "Inconclusive") {
			return r
		}
	}
	evs := w.s.EventsFor(string(chain.KindRollout), ro.Name, ro.UID)
	for i := len(evs) - 1; i >= 0; i-- {
		e := evs[i]
		if e.Reason != "AnalysisRunFailed" && e.Reason != "AnalysisRunError" && e.Reason != "AnalysisRunInconclusive" {
			continue
		}
		_, rest, ok := strings.Cut(e.Message, "Analysis Run '")
		name, _, ok2 := strings.Cut(rest, "'")
		if ok && ok2 && name != "" {
			return &chain.RolloutAnalysisRunStatus{Name: name, Status: strings.TrimPrefix(e.Reason, "AnalysisRun"), Message: e.Message}
		}
	}
	return nil
}

// rolloutSummary is the controller's phase and message, and the step.
func rolloutSummary(ro *chain.Rollout) string {
	s := "phase " + ro.Status.Phase
	if ro.Status.Phase == "" {
		s = "no phase yet"
	}
	if ro.Status.Message != "" {
		s += ": " + ro.Status.Message
	}
	if ro.Spec.Strategy.Canary != nil && len(ro.Spec.Strategy.Canary.Steps) > 0 && ro.Status.CurrentStepIndex != nil {
		s += fmt.Sprintf("; %d/%d steps done", *ro.Status.CurrentStepIndex, len(ro.Spec.Strategy.Canary.Steps))
	} else if ro.Spec.Strategy.BlueGreen != nil {
		s += "; blue-green"
	}
	return s
}

// rolloutReady is the ready link's rollout: the current ReplicaSet's pods,
// and the Rollouts controller's phase (GetRolloutPhase): done when
// Healthy.
func (w *walker) rolloutReady(ro *chain.Rollout) *rollout {
	want := replicas(ro.Spec.Replicas)
	if w.rs != nil {
		want = replicas(w.rs.Spec.Replicas)
	}
	return &rollout{obj: objectName("rollout", ro.Name), want: want, minReady: ro.Spec.MinReadySeconds,
		status: func() (string, bool, string) {
			ev := fmt.Sprintf("phase %q, replicas %d, updated %d, ready %d, available %d", ro.Status.Phase, ro.Status.Replicas,
				ro.Status.UpdatedReplicas, ro.Status.ReadyReplicas, ro.Status.AvailableReplicas)
			if obs := rolloutObserved(ro); obs >= 0 && obs < ro.Generation {
				return "waiting for rollout spec update to be observed", false, ev
			}
			switch ro.Status.Phase {
			case "Healthy":
				return "the Rollouts controller says Healthy", true, ev
			case "":
				return "the Rollouts controller has not written a phase yet", false, ev
			}
			msg := ro.Status.Message
			if msg == "" {
				msg = "phase " + ro.Status.Phase
			}
			return msg, false, ev
		}}
}

// rolloutDeadline judges the Progressing condition's
// ProgressDeadlineExceeded once the links are: a later broken link is the
// cause, the deadline a note; with none, the deadline is the rollout
// link's cause.
func (w *walker) rolloutDeadline(links []chain.Link) {
	ro := w.ro
	cd := ro.Condition("Progressing")
	own := linkByID(links, chain.LinkRollout)
	if cd == nil || cd.Status != string(corev1.ConditionFalse) || cd.Reason != "ProgressDeadlineExceeded" || own == nil || own.Status == chain.StatusBroken {
		return
	}
	if obs := rolloutObserved(ro); obs >= 0 && obs < ro.Generation {
		return
	}
	for i := range links {
		if links[i].Status == chain.StatusBroken {
			own.Notes = append(own.Notes, "progress deadline exceeded: "+cd.Message)
			return
		}
	}
	obj := objectName("rollout", ro.Name)
	d, ok := decode.RolloutWords(cd.Reason, cd.Message)
	if !ok {
		// "ReplicaSet %q has timed out progressing.", in the Deployment
		// controller's words
		d = decode.ProgressDeadline(cd.Message)
		d.Cause, d.NextStep = decode.RolloutProgressDeadline, ""
	}
	c := &collector{}
	c.add(sighting{d: d, object: obj, since: cd.LastTransitionTime.Time,
		evidence: []chain.Evidence{conditionEvidence(obj, cd.Type, cd.Status, cd.Reason, cd.Message)}})
	l := w.finish(chain.LinkRollout, own.Summary, c, 0)
	l.Notes = own.Notes
	*own = l
}

// ownerConditions are the Deployment's conditions, or a Rollout's in
// their shape: the Rollouts controller writes ReplicaFailure and
// ReplicaSetCreateError with the Deployment controller's words.
func (w *walker) ownerConditions() []appsv1.DeploymentCondition {
	if w.d != nil {
		return w.d.Status.Conditions
	}
	if w.ro == nil {
		return nil
	}
	var out []appsv1.DeploymentCondition
	for _, c := range w.ro.Status.Conditions {
		out = append(out, appsv1.DeploymentCondition{Type: appsv1.DeploymentConditionType(c.Type), Status: corev1.ConditionStatus(c.Status),
			Reason: c.Reason, Message: c.Message, LastTransitionTime: c.LastTransitionTime, LastUpdateTime: c.LastUpdateTime})
	}
	return out
}
