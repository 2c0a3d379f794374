package diagnose

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// An Argo Rollouts AnalysisRun fails when one of its metrics does: its
// measurements breached the metric's failure condition past its
// failureLimit (Failed), or its provider could not measure past its
// consecutiveErrorLimit (Error). An Experiment fails when one of its
// analyses does. The catalogue's checks say only "Analysis run failed";
// these name the metric, or the analysis and its run.
const (
	AnalysisMetricFailed     chain.CauseID = "AnalysisMetricFailed"
	AnalysisMetricError      chain.CauseID = "AnalysisMetricError"
	ExperimentAnalysisFailed chain.CauseID = "ExperimentAnalysisFailed"
)

var analysisCauses = []Cause{
	{ID: AnalysisMetricFailed, Link: chain.LinkStatus,
		Summary:  "a metric of the AnalysisRun failed: its measurements breached the metric's failure condition (or missed its success condition) more often than its failureLimit allows",
		NextStep: "read the metric's measurements: kubectl get analysisrun NAME -n NAMESPACE -o jsonpath='{.status.metricResults}'; a bad release is fixed in the release, a wrong condition in the AnalysisTemplate; then retry the rollout (kubectl argo rollouts retry rollout ROLLOUT -n NAMESPACE)",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: AnalysisMetricError, Link: chain.LinkStatus,
		Summary:  "a metric of the AnalysisRun could not be measured: its provider (a query, a job, a web call) erred more often in a row than its consecutiveErrorLimit allows",
		NextStep: "the measurement's message says why the provider failed: fix its address, query or credentials in the AnalysisTemplate (kubectl get analysisrun NAME -n NAMESPACE -o jsonpath='{.status.metricResults}'), then retry the rollout",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: ExperimentAnalysisFailed, Link: chain.LinkStatus,
		Summary:  "an analysis of the Experiment failed or erred, which ends the Experiment",
		NextStep: "walk its AnalysisRun for the metric: kubectl chain analysisrun.argoproj.io/RUN -n NAMESPACE",
		Terminal: TerminalRule{Mode: Immediate}},
}

// analysisFailure names what failed a Degraded AnalysisRun or Experiment,
// false for any other object or when its status names nothing.
func analysisFailure(obj *unstructured.Unstructured, ref string) (Decoded, chain.Evidence, bool) {
	if obj.GroupVersionKind().Group != chain.RolloutGroup {
		return Decoded{}, chain.Evidence{}, false
	}
	switch obj.GetKind() {
	case "AnalysisRun":
		if m := firstFailed(obj, "metricResults"); m != nil {
			phase, name := str(m, "phase"), str(m, "name")
			counts := fmt.Sprintf("measurements: %d failed, %d erred, %d successful, %d inconclusive",
				num(m, "failed"), num(m, "error"), num(m, "successful"), num(m, "inconclusive"))
			last := ""
			if ms, _ := m["measurements"].([]any); len(ms) > 0 {
				lm, _ := ms[len(ms)-1].(map[string]any)
				last = "; last measurement " + str(lm, "phase")
				if v := str(lm, "value"); v != "" {
					last += ", value " + v
				}
				if msg := str(lm, "message"); msg != "" {
					last += ": " + msg
				}
			}
			msg := counts + last
			if s := str(m, "message"); s != "" {
				msg = s + "; " + msg
			}
			cause := AnalysisMetricFailed
			if phase == "Error" {
				cause = AnalysisMetricError
			}
			d := Decoded{Cause: cause, Summary: fmt.Sprintf("%s: metric %q %s (%s)", ref, name, phase, msg),
				NextStep: strings.NewReplacer(NamespacePlaceholder, obj.GetNamespace(), "NAME", obj.GetName()).Replace(mustCause(cause).NextStep)}
			return d, chain.Evidence{Source: chain.SourceObjectStatus, Object: ref, Field: fmt.Sprintf("status.metricResults[%s]", name), Reason: phase, Message: msg}, true
		}
	case "Experiment":
		if m := firstFailed(obj, "analysisRuns"); m != nil {
			phase, name, run := str(m, "phase"), str(m, "name"), str(m, "analysisRun")
			d := Decoded{Cause: ExperimentAnalysisFailed,
				Summary:  fmt.Sprintf("%s: analysis %q %s (AnalysisRun %s)%s", ref, name, phase, run, colonMessage(str(m, "message"))),
				NextStep: strings.NewReplacer(NamespacePlaceholder, obj.GetNamespace(), "RUN", run).Replace(mustCause(ExperimentAnalysisFailed).NextStep)}
			return d, chain.Evidence{Source: chain.SourceObjectStatus, Object: ref, Field: fmt.Sprintf("status.analysisRuns[%s]", name), Reason: phase, Message: str(m, "message")}, true
		}
	}
	return Decoded{}, chain.Evidence{}, false
}

// firstFailed is the first entry of status.FIELD whose phase is Failed or
// Error, nil when none is.
func firstFailed(obj *unstructured.Unstructured, field string) map[string]any {
	list, _, _ := unstructured.NestedSlice(obj.Object, "status", field)
	for _, raw := range list {
		if m, _ := raw.(map[string]any); str(m, "phase") == "Failed" || str(m, "phase") == "Error" {
			return m
		}
	}
	return nil
}

// str is a string field of a decoded object's map, "" when absent.
func str(m map[string]any, k string) string { s, _ := m[k].(string); return s }

// num is an integer field of a decoded object's map, 0 when absent.
func num(m map[string]any, k string) int64 {
	switch n := m[k].(type) {
	case int64:
		return n
	case float64:
		return int64(n)
	}
	return 0
}
