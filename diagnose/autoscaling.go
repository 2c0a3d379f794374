package diagnose

import (
	"fmt"
	"regexp"
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// What the HorizontalPodAutoscaler controller says of an autoscaler that
// cannot do its job (pkg/controller/podautoscaler/horizontal.go, v1.37):
// ScalingActive False when it cannot compute a replica count, AbleToScale
// False when it cannot read or write its target's scale, ScalingLimited
// True when the count it computed is past maxReplicas. On a workload's
// chain they are notes on stored (the workload runs the replicas it has);
// on the autoscaler itself (hpa/NAME, a release's) the first two are its
// status link's cause, which kstatus, reading no condition of these types,
// would call Current.
const (
	HPAMissingRequest     chain.CauseID = "HPAMissingRequest"
	HPAMetricsUnavailable chain.CauseID = "HPAMetricsUnavailable"
	HPACannotScale        chain.CauseID = "HPACannotScale"
	HPAAtMaximum          chain.CauseID = "HPAAtMaximum"
)

var autoscalingCauses = []Cause{
	{ID: HPAMissingRequest, Link: chain.LinkStatus,
		Summary:  "the HorizontalPodAutoscaler cannot compute a replica count: a utilization target needs a resource request that a container of the pods does not set",
		NextStep: "set resources.requests for that resource on every container of the pod template (sidecars too), or target an AverageValue instead of a Utilization",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: HPAMetricsUnavailable, Link: chain.LinkStatus,
		Summary:  "the HorizontalPodAutoscaler cannot get its metrics (no metrics API, metrics-server not ready, a custom or external metric missing), so it does not scale",
		NextStep: "kubectl get apiservices | grep metrics; kubectl top pods -n NAMESPACE; for custom and external metrics, the adapter serving them",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: HPACannotScale, Link: chain.LinkStatus,
		Summary:  "the HorizontalPodAutoscaler cannot act on its target: it cannot read or update its scale, or its selector or metric spec is invalid",
		NextStep: "kubectl describe hpa NAME -n NAMESPACE: check scaleTargetRef (kind, name, apiVersion) and the controller's RBAC",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: HPAAtMaximum, Link: chain.LinkStatus,
		Summary:  "the HorizontalPodAutoscaler wants more replicas than maxReplicas: it is held at its maximum (a note, not a failure)",
		NextStep: "raise spec.maxReplicas if the load is real, or look at why each pod is so loaded",
		Terminal: TerminalRule{Mode: Transient}},
}

// autoscalingReasons are the reasons of the controller's conditions and
// Warning events about an autoscaler that cannot compute or scale.
var autoscalingReasons = []string{"FailedGetResourceMetric", "FailedGetContainerResourceMetric", "FailedGetPodsMetric",
	"FailedGetObjectMetric", "FailedGetExternalMetric", "FailedComputeMetricsReplicas", "FailedGetScale",
	"FailedUpdateScale", "InvalidSelector", "SelectorRequired", "InvalidMetricSourceType", "TooManyReplicas"}

// missingRequestRE is the replica calculator's "missing request for %s"
// (and, since 1.20, "... in container %s of Pod %s").
var missingRequestRE = regexp.MustCompile(`missing request for (\w+)(?: in container "?([^" ]+)"? of Pod "?([^" ]+)"?)?`)

// metricsWords are the replica calculator's and metrics client's words
// when a metric cannot be read.
var metricsWords = []string{"unable to get metrics for resource", "unable to fetch metrics from", "no metrics returned from",
	"unable to get metric", "unable to get external metric", "did not receive metrics for", "failed to get pods metric",
	"failed to get object metric", "failed to get external metric"}

// HPAWords decodes the controller's words about an autoscaler.
func HPAWords(reason, message string) (Decoded, bool) {
	if m := missingRequestRE.FindStringSubmatch(message); m != nil {
		d := Decoded{Cause: HPAMissingRequest, Summary: fmt.Sprintf("missing request for %s: the autoscaler cannot compute a %s utilization", m[1], m[1]),
			Details: []chain.Detail{{Key: "resource", Value: m[1]}}}
		if m[2] != "" {
			d.Summary = fmt.Sprintf("container %q has no %s request: the autoscaler cannot compute a %s utilization", m[2], m[1], m[1])
			d.Details = append(d.Details, chain.Detail{Key: "container", Value: m[2]}, chain.Detail{Key: "pod", Value: m[3]})
		}
		return d, true
	}
	for _, w := range metricsWords {
		if strings.Contains(message, w) {
			d := Decoded{Cause: HPAMetricsUnavailable}
			if strings.Contains(message, "could not find the requested resource (get pods.metrics.k8s.io)") {
				d.Summary = "no resource metrics API is served (metrics-server is not installed): the autoscaler cannot read CPU or memory"
				d.NextStep = "install metrics-server, or check its APIService: kubectl get apiservice v1beta1.metrics.k8s.io"
			}
			return d, true
		}
	}
	switch reason {
	case "FailedGetScale", "FailedUpdateScale", "InvalidSelector", "SelectorRequired", "InvalidMetricSourceType":
		return Decoded{Cause: HPACannotScale}, true
	case "TooManyReplicas":
		return Decoded{Cause: HPAAtMaximum}, true
	case "FailedGetResourceMetric", "FailedGetContainerResourceMetric", "FailedGetPodsMetric", "FailedGetObjectMetric", "FailedGetExternalMetric", "FailedComputeMetricsReplicas":
		return Decoded{Cause: HPAMetricsUnavailable}, true
	}
	return Decoded{}, false
}

func explainAutoscaling(reason, message string) []Decoded {
	if d, ok := HPAWords(reason, message); ok {
		return []Decoded{d}
	}
	return nil
}

// hpaFailing is the autoscaler's condition that says it cannot compute or
// scale, decoded; ok is false when it can. A back-off (AbleToScale False,
// BackoffBoth ...) is the controller waiting on purpose.
func hpaFailing(h *autoscalingv2.HorizontalPodAutoscaler) (Decoded, autoscalingv2.HorizontalPodAutoscalerCondition, bool) {
	for _, c := range h.Status.Conditions {
		failing := c.Type == autoscalingv2.ScalingActive && c.Status == corev1.ConditionFalse && c.Reason != "ScalingDisabled" ||
			c.Type == autoscalingv2.AbleToScale && c.Status == corev1.ConditionFalse && (c.Reason == "FailedGetScale" || c.Reason == "FailedUpdateScale")
		if !failing {
			continue
		}
		d, ok := HPAWords(c.Reason, c.Message)
		if !ok {
			d = Decoded{Cause: HPACannotScale}
		}
		return d, c, true
	}
	return Decoded{}, autoscalingv2.HorizontalPodAutoscalerCondition{}, false
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
				h.Name, h.Spec.MaxReplicas, HPAAtMaximum, c.Message))
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
	if !ok {
		return chain.Link{}, false
	}
	c := &collector{}
	c.add(sighting{d: d, object: ref, since: cond.LastTransitionTime.Time,
		evidence: []chain.Evidence{conditionEvidence(ref, string(cond.Type), string(cond.Status), cond.Reason, cond.Message)}})
	return w.finish(chain.LinkStatus, fmt.Sprintf("%s False: %s", cond.Type, cond.Reason), c, 0), true
}
