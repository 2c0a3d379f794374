package decode

import (
	"testing"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

func TestRolloutWords(t *testing.T) {
	for msg, want := range map[string]chain.CauseID{
		"RolloutAborted: Rollout aborted update to revision 216":                                                                                          RolloutAborted,
		`ProgressDeadlineExceeded: ReplicaSet "public-satellite-pools-managed-satellite-envoy-v2-6f9df7c4bf" has timed out progressing.`:                  RolloutProgressDeadline,
		`InvalidSpec: The Rollout "r" is invalid: spec.strategy.canary.steps[2].analysis.templates: Invalid value: "at": AnalysisTemplate 'at' not found`: RolloutInvalidSpec,
		`ReplicaSet "web-1" has timed out progressing.`:                                                                                                   "", // a Deployment's words too
	} {
		d, ok := RolloutWords("", msg)
		if ok != (want != "") || d.Cause != want {
			t.Errorf("RolloutWords(%q) = %s, %v; want %s", msg, d.Cause, ok, want)
		}
	}
}

// TestRolloutWordsAnalysis: real messages of Argo Rollouts that name their
// cause in words RolloutWords first missed.
func TestRolloutWordsAnalysis(t *testing.T) {
	for _, c := range []struct {
		reason, msg string
		want        chain.CauseID
	}{
		// https://github.com/argoproj/argo-rollouts/issues/1152 (v1.0: no revision)
		{"", "RolloutAborted: Rollout is aborted", RolloutAborted},
		// https://github.com/argoproj/argo-rollouts/issues/457
		{"RolloutAborted", "Rollout is aborted", RolloutAborted},
		// https://github.com/argoproj/argo-rollouts/issues/3414 (retyped, no period)
		{"", `ProgressDeadlineExceeded: ReplicaSet "xxx" has timed out progressing`, RolloutProgressDeadline},
		// https://github.com/zimmertr/Kubernetes-Manifests/pull/416 (wrapped)
		{"", "InvalidSpec: The Rollout \"bluebird\" is invalid: spec.strategy.trafficRouting:\nRequired value: SetCanaryScale requires TrafficRouting to be set", RolloutInvalidSpec},
		// https://github.com/argoproj/argo-rollouts/pull/729 (the plugin's Errors line)
		{"", `metric "web" assessed Failed due to failed (1) > failureLimit (0)`, AnalysisMetricFailed},
		// https://github.com/argoproj/argo-rollouts/issues/3008
		{"", `Metric "datadog-metrics" assessed Failed due to failed (1) > failureLimit (0)`, AnalysisMetricFailed},
		// https://github.com/argoproj/argo-rollouts/issues/2258 (no metric name, wrapped)
		{"", "Metric assessed Error due to consecutiveErrors (5) >\nconsecutiveErrorLimit (4): \"Error Message: Metric assessed Error due to", AnalysisMetricError},
		// https://github.com/argoproj/argo-rollouts/issues/2158
		{"MetricFailed", "Metric 'webmetric' Completed. Result: Failed", AnalysisMetricFailed},
		// https://github.com/argoproj/argo-rollouts/issues/1411 (before v1.1)
		{"", "metric 'router-error-rate-nsfSXCCn' completed Failed", AnalysisMetricFailed},
		// https://github.com/argoproj/argo-rollouts/issues/1389 (kubectl argo rollouts status)
		{"", "Paused - BlueGreenPause", RolloutPaused},
	} {
		d, ok := RolloutWords(c.reason, c.msg)
		if !ok || d.Cause != c.want {
			t.Errorf("RolloutWords(%q, %q) = %s, %v; want %s", c.reason, c.msg, d.Cause, ok, c.want)
		}
		if got := Explain("", c.msg); len(got) == 0 || got[0].Cause != c.want {
			t.Errorf("Explain(%q) = %v; want %s first", c.msg, got, c.want)
		}
	}
	// A canary pause step says nothing of whether it has a duration.
	if d, ok := RolloutWords("", "Paused - CanaryPauseStep"); ok {
		t.Errorf("RolloutWords(Paused - CanaryPauseStep) = %s; want nothing", d.Cause)
	}
}
