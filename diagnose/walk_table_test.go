package diagnose

import (
	"testing"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// TestEveryKindHasAWalk: each row of the kinds table has a walk (and a
// workload's, the input that reads its whole chain when it was read
// alone), and its walk of a snapshot without the object names the row's
// first link; a kind without a walk says so instead of walking as
// another kind.
func TestEveryKindHasAWalk(t *testing.T) {
	table := map[chain.Kind]bool{}
	for _, row := range chain.KindTable() {
		table[row.Kind] = true
		if _, ok := walks()[row.Kind]; !ok {
			t.Errorf("%s: no walk", row.Kind)
			continue
		}
		if row.Class == chain.ClassWorkload && aloneInput[row.Kind] == "" {
			t.Errorf("%s: no aloneInput, the kubectl get that reads its whole chain", row.Kind)
		}
		r := Walk(&chain.Snapshot{Kind: row.Kind, Namespace: "ns", Name: "x"}, Options{})
		if len(r.Links) == 0 || r.Links[0].ID != row.Links[0] {
			t.Errorf("%s: links %v, want the chain's first, %s", row.Kind, r.Links, row.Links[0])
		}
	}
	for k := range walks() {
		if !table[k] {
			t.Errorf("walk for %s, which is no row of the kinds table", k)
		}
	}
	w := &walker{s: &chain.Snapshot{Kind: "Widget"}}
	var r chain.Report
	w.walkKind(&r)
	if len(r.Links) != 1 || r.Links[0].Status != chain.StatusUnknown {
		t.Errorf("a kind without a walk: %+v", r.Links)
	}
}
