package diagnose

import (
	"fmt"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// hpaFailing is the autoscaler's condition that says it cannot compute or
// scale, decoded; ok is false when it can. A back-off (AbleToScale False,
// BackoffBoth ...) is the controller waiting on purpose.
func hpaFailing(h *autoscalingv2.HorizontalPodAutoscaler) (decode.Decoded, autoscalingv2.HorizontalPodAutoscalerCondition, bool) {
	for _, c := range h.Status.Conditions {
		failing := c.Type == autoscalingv2.ScalingActive && c.Status == corev1.ConditionFalse && c.Reason != "ScalingDisabled" ||
			c.Type == autoscalingv2.AbleToScale && c.Status == corev1.ConditionFalse && (c.Reason == "FailedGetScale" || c.Reason == "FailedUpdateScale")
		if !failing {
			continue
		}
		d, ok := decode.HPAWords(c.Reason, c.Message)
		if !ok {
			d = decode.Decoded{Cause: decode.HPACannotScale}
		}
		return d, c, true
	}
	return decode.Decoded{}, autoscalingv2.HorizontalPodAutoscalerCondition{}, false
}

// atMaximum is the autoscaler's ScalingLimited condition when it holds the
// workload at maxReplicas.
func atMaximum(h *autoscalingv2.HorizontalPodAutoscaler) (autoscalingv2.HorizontalPodAutoscalerCondition, bool) {
	for _, c := range h.Status.Conditions {
		if c.Type == autoscalingv2.ScalingLimited && c.Status == corev1.ConditionTrue && c.Reason == "TooManyReplicas" {
			return c, true
		}
	}
	return autoscalingv2.HorizontalPodAutoscalerCondition{}, false
}

// autoscalerNotes says on the stored link what the workload's autoscalers
// cannot do: compute a replica count (the workload keeps the replicas it
// has) or go past their maximum while pods are not all ready.
func (w *walker) autoscalerNotes(links []chain.Link) {
	stored := linkByID(links, chain.LinkStored)
	if stored == nil {
		return
	}
	for i := range w.s.Autoscalers {
		h := &w.s.Autoscalers[i]
		if d, c, ok := hpaFailing(h); ok {
			stored.Notes = append(stored.Notes, fmt.Sprintf("HorizontalPodAutoscaler %s cannot scale it (%s): %s False, %s: %s; it stays at %d replicas until this is fixed (kubectl chain hpa/%s)",
				h.Name, d.Cause, c.Type, c.Reason, c.Message, h.Status.CurrentReplicas, h.Name))
			continue
		}
		if c, ok := atMaximum(h); ok && !settled(links) {
			stored.Notes = append(stored.Notes, fmt.Sprintf("HorizontalPodAutoscaler %s is held at its maximum of %d replicas (%s): %s",
				h.Name, h.Spec.MaxReplicas, decode.HPAAtMaximum, c.Message))
		}
	}
}

// autoscalerStatus judges an autoscaler as a resource (hpa/NAME, a
// release's): a condition that says it cannot compute or scale is its
// status link's cause.
func (w *walker) autoscalerStatus(obj *unstructured.Unstructured, ref string) (chain.Link, bool) {
	if w.s.API == nil || w.s.API.Group != "autoscaling" || w.s.API.Kind != "HorizontalPodAutoscaler" {
		return chain.Link{}, false
	}
	var h autoscalingv2.HorizontalPodAutoscaler
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &h); err != nil {
		return chain.Link{}, false
	}
	d, cond, ok := hpaFailing(&h)
	if !ok && len(h.Status.Conditions) == 0 {
		return w.autoscalerEvents(ref)
	}
	if !ok {
		return chain.Link{}, false
	}
	c := &collector{}
	c.add(sighting{d: d, object: ref, since: cond.LastTransitionTime.Time,
		evidence: []chain.Evidence{conditionEvidence(ref, string(cond.Type), string(cond.Status), cond.Reason, cond.Message)}})
	return w.finish(chain.LinkStatus, fmt.Sprintf("%s False: %s", cond.Type, cond.Reason), c, 0), true
}

// kedaGroup is KEDA's API group.
const kedaGroup = "keda.sh"

// scaledObjectWords decodes a KEDA ScaledObject's (or ScaledJob's) Ready
// condition that is not True, which Argo CD's health check reads as
// Degraded: a trigger whose scaler errs leaves the HPA KEDA made without
// its metric, a check that failed leaves nothing to scale.
func scaledObjectWords(obj *unstructured.Unstructured) (decode.Decoded, bool) {
	if obj.GroupVersionKind().Group != kedaGroup {
		return decode.Decoded{}, false
	}
	for _, cd := range objectConditions(obj) {
		if cd.Type == "Ready" && cd.Status != "True" {
			return decode.HPAWords(cd.Reason, cd.Message)
		}
	}
	return decode.Decoded{}, false
}

// vpaStatus judges a VerticalPodAutoscaler as a resource (vpa/NAME): the
// recommender's ConfigUnsupported or NoPodsMatched condition True
// (vertical-pod-autoscaler 1.7.1, pkg/recommender) is its status link's
// cause, where kstatus, reading no condition of these types, would call it
// Current.
func (w *walker) vpaStatus(obj *unstructured.Unstructured, ref string) (chain.Link, bool) {
	if w.s.API == nil || w.s.API.Group != "autoscaling.k8s.io" || w.s.API.Kind != "VerticalPodAutoscaler" {
		return chain.Link{}, false
	}
	for _, cd := range objectConditions(obj) {
		if cd.Status != "True" || cd.Type != "ConfigUnsupported" && cd.Type != "NoPodsMatched" {
			continue
		}
		d, ok := decode.HPAWords(cd.Type, cd.Message)
		if !ok {
			d = decode.Decoded{Cause: decode.VPATargetInvalid}
		}
		d.NextStep = decode.Fill(mustCause(d.Cause).Step, decode.Fields{decode.FieldNamespace: w.s.Namespace})
		c := &collector{}
		c.add(sighting{d: d, object: ref, since: obj.GetCreationTimestamp().Time,
			evidence: []chain.Evidence{conditionEvidence(ref, cd.Type, cd.Status, cd.Reason, cd.Message)}})
		return w.finish(chain.LinkStatus, fmt.Sprintf("%s True", cd.Type), c, 0), true
	}
	return chain.Link{}, false
}

// autoscalerEvents judges an autoscaler whose status holds no condition
// (an autoscaling/v1 object keeps them in an annotation; a thread may show
// describe's events alone) by the controller's newest Warning event that
// says it cannot compute or scale.
func (w *walker) autoscalerEvents(ref string) (chain.Link, bool) {
	for i := len(w.s.Events) - 1; i >= 0; i-- {
		e := w.s.Events[i]
		if e.Type != corev1.EventTypeWarning {
			continue
		}
		d, ok := decode.HPAWords(e.Reason, e.Message)
		if !ok || d.Cause == decode.HPAAtMaximum {
			continue
		}
		c := &collector{}
		c.add(sighting{d: d, object: ref, since: e.First, repeats: e.Count, evidence: []chain.Evidence{eventEvidence(e)}})
		return w.finish(chain.LinkStatus, fmt.Sprintf("no condition; %s: %s", e.Reason, e.Message), c, 0), true
	}
	return chain.Link{}, false
}
