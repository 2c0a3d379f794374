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
