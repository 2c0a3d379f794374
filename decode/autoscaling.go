package decode

import (
	"fmt"
	"regexp"
	"strings"

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
	VPATargetInvalid      chain.CauseID = "VPATargetInvalid"
)

var autoscalingCauses = []Cause{
	{ID: HPAMissingRequest, Link: chain.LinkStatus,
		Summary:  "the HorizontalPodAutoscaler cannot compute a replica count: a utilization target needs a resource request that a container of the pods does not set",
		NextStep: "set resources.requests for that resource on every container of the pod template (sidecars too), or target an AverageValue instead of a Utilization",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: HPAMetricsUnavailable, Link: chain.LinkStatus,
		Summary:  "the HorizontalPodAutoscaler cannot get its metrics (no metrics API, metrics-server not ready, a custom or external metric missing), so it does not scale",
		NextStep: "kubectl get apiservices | grep metrics; kubectl top pods -n {NAMESPACE}; for custom and external metrics, the adapter serving them",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: HPACannotScale, Link: chain.LinkStatus,
		Summary:  "the HorizontalPodAutoscaler cannot act on its target: it cannot read or update its scale, or its selector or metric spec is invalid",
		NextStep: "kubectl describe hpa NAME -n {NAMESPACE}: check scaleTargetRef (kind, name, apiVersion) and the controller's RBAC",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: HPAAtMaximum, Link: chain.LinkStatus,
		Summary:  "the HorizontalPodAutoscaler wants more replicas than maxReplicas: it is held at its maximum (a note, not a failure)",
		NextStep: "raise spec.maxReplicas if the load is real, or look at why each pod is so loaded",
		Terminal: TerminalRule{Mode: Transient}},
	{ID: VPATargetInvalid, Link: chain.LinkStatus,
		Summary:  "the VerticalPodAutoscaler cannot use its targetRef: the workload it names does not exist or cannot be read, or is owned by another controller (it must name the topmost one), so no pod matches it and it recommends nothing",
		NextStep: "kubectl describe vpa NAME -n {NAMESPACE}: point spec.targetRef (apiVersion, kind, name) at the workload's topmost controller (the Deployment, not its ReplicaSet; an operator's resource, not the StatefulSet it owns) and check it exists in the namespace",
		Terminal: TerminalRule{Mode: AfterGrace}},
}

// autoscalingReasons are the reasons of the controller's conditions and
// Warning events about an autoscaler that cannot compute or scale.
var autoscalingReasons = []string{"FailedGetResourceMetric", "FailedGetContainerResourceMetric", "FailedGetPodsMetric",
	"FailedGetObjectMetric", "FailedGetExternalMetric", "FailedComputeMetricsReplicas", "FailedGetScale",
	"FailedUpdateScale", "InvalidSelector", "SelectorRequired", "InvalidMetricSourceType", "TooManyReplicas",
	"TriggerError", "PartialTriggerError", "ScaledObjectCheckFailed", "ErrorGettingCurrentReplicas", "NoPodsMatched", "ConfigUnsupported"}

// missingRequestRE is the replica calculator's "missing request for %s"
// (and, since 1.20, "... in container %s of Pod %s"; before, "... on
// container %s in pod %s/%s").
var missingRequestRE = regexp.MustCompile(`missing request for (\w+)(?: (?:in|on) container "?([^" ]+)"? (?:of Pod|in pod) "?([^" ]+)"?)?`)

// metricsWords are the replica calculator's and metrics client's words
// when a metric cannot be read, and the controller's wrapper of them when
// several metrics are computed ("invalid metrics (%v invalid out of %v),
// first error is: %v", kubernetes pkg/controller/podautoscaler/
// horizontal.go), whose first error a UI may cut short.
var metricsWords = []string{"invalid metrics (", "unable to get metrics for resource", "unable to fetch metrics from", "no metrics returned from",
	"unable to get metric", "unable to get external metric", "did not receive metrics for", "failed to get pods metric",
	"failed to get object metric", "failed to get external metric"}

// scaleWords are the controller's AbleToScale False messages ("the HPA
// controller was unable to get the target's current scale: %v", "... to
// update the target scale: %v").
var scaleWords = []string{"the HPA controller was unable to get the target's current scale", "the HPA controller was unable to update the target scale"}

// kedaStep is where a KEDA ScaledObject's cause is read: KEDA serves the
// external metrics its HPA reads, and its operator's log names the
// trigger's error.
const kedaStep = "kubectl describe scaledobject {NAME} -n {NAMESPACE}; the keda-operator's logs name the trigger's error (its server address, query, or TriggerAuthentication)"

// kedaWords decodes KEDA's ScaledObject conditions (v2.20.2,
// pkg/scaling/executor/scale_scaledobjects.go and controllers/keda/
// scaledobject_controller.go): a trigger whose scaler errs (TriggerError
// "Triggers defined in ScaledObject are not working correctly") leaves its
// HPA without the metric; a check that failed (ScaledObjectCheckFailed
// "ScaledObject doesn't have correct scaleTargetRef specification: ...")
// or a target whose replicas cannot be read leaves nothing to scale.
func kedaWords(reason, message string) (Decoded, bool) {
	switch {
	case strings.Contains(message, "defined in ScaledObject are not working correctly"), reason == "TriggerError", reason == "PartialTriggerError",
		// The operator's log when a scaler errs (v2.20.2
		// pkg/scaling/scale_handler.go#L1019 and #L566).
		strings.Contains(message, "error getting scale decision"), strings.Contains(message, "error getting metric for trigger"):
		return Decoded{Cause: HPAMetricsUnavailable, Summary: "KEDA's scaler cannot read its trigger's source, so the ScaledObject's HPA gets no metric: " + rtOneLine(message),
			NextStep: kedaStep}, true
	case strings.Contains(message, "doesn't have correct scaleTargetRef specification"), strings.Contains(message, "Error getting current replicas count for ScaleTarget"),
		reason == "ScaledObjectCheckFailed", reason == "ErrorGettingCurrentReplicas":
		return Decoded{Cause: HPACannotScale, Summary: "KEDA cannot act on the ScaledObject's target: " + rtOneLine(message),
			NextStep: "kubectl describe scaledobject {NAME} -n {NAMESPACE}: check spec.scaleTargetRef (apiVersion, kind, name in the ScaledObject's namespace) and that the kind has a /scale subresource"}, true
	}
	return Decoded{}, false
}

// vpaWords are the VPA recommender's conditions about its target
// (vertical-pod-autoscaler-1.7.1, pkg/recommender/input/cluster_feeder.go
// and model/vpa.go): ConfigUnsupported "Cannot read targetRef. Reason: ..."
// or "The target ... should point to a topmost well-known or scalable
// controller", and NoPodsMatched "No pods match this VPA object".
var vpaWords = []string{"Cannot read targetRef", "should point to a topmost well-known or scalable controller",
	"is a topmost well-known or scalable controller", "No pods match this VPA object"}

// HPAWords decodes the controller's words about an autoscaler, and KEDA's
// and the VPA recommender's about theirs.
func HPAWords(reason, message string) (Decoded, bool) {
	if d, ok := kedaWords(reason, message); ok {
		return d, true
	}
	for _, w := range vpaWords {
		if strings.Contains(message, w) {
			return Decoded{Cause: VPATargetInvalid, Summary: "the VerticalPodAutoscaler's targetRef: " + rtOneLine(message)}, true
		}
	}
	for _, w := range scaleWords {
		if strings.Contains(message, w) {
			return Decoded{Cause: HPACannotScale, Summary: rtOneLine(message)}, true
		}
	}
	if strings.Contains(message, "unable to map kind") {
		// The custom metrics client cannot map an Object metric's
		// describedObject to a resource: the metric's spec names a kind
		// or apiVersion the cluster does not serve.
		return Decoded{Cause: HPACannotScale, Summary: "an Object metric names an object the cluster cannot map: " + rtOneLine(message),
			NextStep: "fix the metric's describedObject (apiVersion with its version, e.g. networking.k8s.io/v1, and kind) in kubectl get hpa NAME -n {NAMESPACE} -o yaml"}, true
	}
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
	case "NoPodsMatched", "ConfigUnsupported":
		return Decoded{Cause: VPATargetInvalid}, true
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
