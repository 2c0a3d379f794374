package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/lab/scenarios"
)

// checkChange holds a scenario's report to what changed (issue 23): a
// scenario whose second step broke a revision that ran ready names the
// fields it changed and the rollback to that revision; one of a single
// step has nothing to compare (or, its revision having run ready, no
// template change); a healthy one and kinds without revisions none.
func checkChange(t *testing.T, sc scenarios.Scenario, out []byte) {
	t.Helper()
	var r chain.Report
	if err := json.Unmarshal(out, &r); err != nil {
		t.Errorf("decoding the report: %v", err)
		return
	}
	c := r.Change
	revisions := map[chain.Kind]bool{chain.KindDeployment: true, chain.KindStatefulSet: true, chain.KindDaemonSet: true}
	if sc.Health == chain.Healthy || !revisions[sc.KindOf()] {
		if c != nil {
			t.Errorf("a %s %s reports a change: %+v", sc.Health, sc.KindOf(), *c)
		}
		return
	}
	if c == nil {
		t.Errorf("a %s %s reports no change", sc.Health, sc.KindOf())
		return
	}
	if sc.Changed == nil {
		if sc.Then == "" && c.Kind != chain.ChangeFirstRevision && c.Kind != chain.ChangeReplicasOnly {
			t.Errorf("one step, yet change %+v; want %s or %s", *c, chain.ChangeFirstRevision, chain.ChangeReplicasOnly)
		}
		return
	}
	var fields []string
	for _, f := range c.Fields {
		fields = append(fields, f.Field)
	}
	want := "kubectl rollout undo " + map[chain.Kind]string{chain.KindDeployment: "deploy", chain.KindStatefulSet: "sts", chain.KindDaemonSet: "ds"}[sc.KindOf()] +
		"/web -n " + r.Namespace + " --to-revision=" + c.From
	if c.Kind != chain.ChangeTemplate || strings.Join(fields, ",") != strings.Join(sc.Changed, ",") || !c.HealthKnown || c.Rollback != want {
		t.Errorf("change %+v; want fields %v from a revision that ran ready, rollback %q", *c, sc.Changed, want)
	}
}
