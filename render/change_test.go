package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// TestMarkdownChange: what changed goes into a pull request comment as a
// diff block ("-" the revision that ran ready, "+" the one rolling out)
// and the rollback command; a first revision says there is nothing to
// compare.
func TestMarkdownChange(t *testing.T) {
	r := brokenContainersReport()
	var b bytes.Buffer
	if err := Markdown(&b, &chain.ReportList{Health: chain.Broken, Items: []chain.Report{*r}}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"```diff\n- containers[log-shipper].args: [\"--to\",\"stdout\"]\n+ containers[log-shipper].args: [\"--to\",\"udp://logs:514\"]\n" +
			"- containers[web].image: \"registry.lab.internal/web:v3\"\n+ containers[web].image: \"registry.lab.internal/web:v9\"\n```",
		"**Rollback:** `kubectl rollout undo deploy/web -n prod --to-revision=3`",
		"revision 3 (web-5b7c9d8f4, last ran ready) -> revision 4 (web-6d4f8b9c7), 2 field(s)",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, b.String())
		}
	}
	r.Change = &chain.Change{Kind: chain.ChangeFirstRevision, To: "1", ToName: "web-6d4f8b9c7", Note: "first revision: nothing to compare"}
	b.Reset()
	if err := Markdown(&b, &chain.ReportList{Health: chain.Broken, Items: []chain.Report{*r}}); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); !strings.Contains(s, "**What changed:** first revision: nothing to compare") || strings.Contains(s, "```diff") || strings.Contains(s, "Rollback") {
		t.Errorf("first revision:\n%s", s)
	}
}
