package diagnose

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// analysisFailure names what failed a Degraded AnalysisRun or Experiment,
// false for any other object or when its status names nothing.
func analysisFailure(obj *unstructured.Unstructured, ref string) (decode.Decoded, chain.Evidence, bool) {
	if obj.GroupVersionKind().Group != chain.RolloutGroup {
		return decode.Decoded{}, chain.Evidence{}, false
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
			cause := decode.AnalysisMetricFailed
			if phase == "Error" {
				cause = decode.AnalysisMetricError
			}
			d := decode.Decoded{Cause: cause, Summary: fmt.Sprintf("%s: metric %q %s (%s)", ref, name, phase, msg),
				NextStep: decode.Fill(mustCause(cause).Step, decode.Fields{decode.FieldNamespace: obj.GetNamespace(), decode.FieldName: obj.GetName()})}
			return d, chain.Evidence{Source: chain.SourceObjectStatus, Object: ref, Field: fmt.Sprintf("status.metricResults[%s]", name), Reason: phase, Message: msg}, true
		}
	case "Experiment":
		if m := firstFailed(obj, "analysisRuns"); m != nil {
			phase, name, run := str(m, "phase"), str(m, "name"), str(m, "analysisRun")
			d := decode.Decoded{Cause: decode.ExperimentAnalysisFailed,
				Summary:  fmt.Sprintf("%s: analysis %q %s (AnalysisRun %s)%s", ref, name, phase, run, colonMessage(str(m, "message"))),
				NextStep: decode.Fill(mustCause(decode.ExperimentAnalysisFailed).Step, decode.Fields{decode.FieldNamespace: obj.GetNamespace(), decode.FieldRun: run})}
			return d, chain.Evidence{Source: chain.SourceObjectStatus, Object: ref, Field: fmt.Sprintf("status.analysisRuns[%s]", name), Reason: phase, Message: str(m, "message")}, true
		}
	}
	return decode.Decoded{}, chain.Evidence{}, false
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
