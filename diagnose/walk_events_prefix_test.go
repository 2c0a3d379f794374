package diagnose

import (
	"testing"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// TestEventMessageFieldPathPrefix: a 2026 kubelet event that starts with
// the container's field path (aquasecurity/kube-bench#2085) decodes as the
// same message without it; other messages are left as they are.
func TestEventMessageFieldPathPrefix(t *testing.T) {
	const pull = `Failed to pull image "registry.example.com/aquasec/kube-bench:v0.15.1": Error response from daemon: manifest for aquasec/kube-bench:v0.15.1 not found: manifest unknown: manifest unknown`
	for _, tc := range []struct{ in, want string }{
		{"spec.containers{kube-bench}: " + pull, pull},
		{"spec.initContainers{init}: " + pull, pull},
		{"(combined from similar events): spec.containers{kube-bench}: " + pull, pull},
		{pull, pull},
		{"Error: spec.containers{x}: kept", "Error: spec.containers{x}: kept"},
	} {
		if got := eventMessage(chain.Event{Message: tc.in}); got != tc.want {
			t.Errorf("eventMessage(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	d, ok := decode.Waiting("Failed", eventMessage(chain.Event{Message: "spec.containers{kube-bench}: " + pull}))
	if !ok || d.Cause != decode.ImageNotFound {
		t.Errorf("decoded %v %+v, want ImageNotFound", ok, d)
	}
}
