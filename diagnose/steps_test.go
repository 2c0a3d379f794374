package diagnose

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// TestRenderSteps: a finding's next step is rendered once, with the
// namespace, the object walked and the pod the finding names first; a
// field nothing fills is printed as its name and reported.
func TestRenderSteps(t *testing.T) {
	var unfilled []decode.Field
	w := &walker{s: &chain.Snapshot{Namespace: "shop", Name: "web"}, o: Options{Unfilled: func(_ chain.CauseID, f []decode.Field) { unfilled = append(unfilled, f...) }}}
	links := []chain.Link{{Findings: []chain.Finding{
		{NextStep: "kubectl logs {POD} -n {NAMESPACE}; kubectl rollout undo deployment/{NAME}", Objects: []string{"pod/web-1"}},
		{NextStep: "kubectl describe node {NODE}; kubectl get secret NAME -n {NAMESPACE}"},
		{NextStep: "kubectl get service {SERVICE} -o jsonpath='{.spec.ports}'"},
	}}}
	w.renderSteps(links)
	var got []string
	for _, f := range links[0].Findings {
		got = append(got, f.NextStep)
	}
	want := []string{
		"kubectl logs web-1 -n shop; kubectl rollout undo deployment/web",
		"kubectl describe node NODE; kubectl get secret NAME -n shop",
		"kubectl get service SERVICE -o jsonpath='{.spec.ports}'",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("rendered steps (-want +got):\n%s", d)
	}
	// The first step names no node; the second's NODE and the third's
	// SERVICE are unfilled.
	if d := cmp.Diff([]decode.Field{decode.FieldNode, decode.FieldService}, unfilled); d != "" {
		t.Errorf("unfilled (-want +got):\n%s", d)
	}
}
