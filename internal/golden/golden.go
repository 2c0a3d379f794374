// Package golden compares test output with golden files. The expected output
// is a file reviewed like code: UPDATE_GOLDEN=1 rewrites it and the diff shows
// what changed.
package golden

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// Check compares got with the golden file dir/name as a whole, or rewrites
// the file when UPDATE_GOLDEN is set.
func Check(t testing.TB, dir, name, got string) {
	t.Helper()
	path := filepath.Join(dir, name)
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (UPDATE_GOLDEN=1 go test writes it): %v", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch; if intended, rerun with UPDATE_GOLDEN=1 and review the diff (-want +got):\n%s", name, diff)
	}
}

// halfReplaced is what a placeholder leaves when a shorter one was
// replaced inside it: NAME inside NAMESPACE ("test-certSPACE"), SVC inside
// SVC_NAMESPACE, SERVICE inside SERVICEACCOUNT.
var halfReplaced = regexp.MustCompile(`[a-z0-9](SPACE|_NAMESPACE|ACCOUNT)\b`)

// NextSteps fails when a next step of the report shows a half-replaced
// placeholder.
func NextSteps(t testing.TB, label string, r *chain.Report) {
	t.Helper()
	steps := []string{r.Verdict.NextStep}
	for _, l := range r.Links {
		for _, f := range l.Findings {
			steps = append(steps, f.NextStep)
		}
	}
	for _, s := range steps {
		if m := halfReplaced.FindString(s); m != "" {
			t.Errorf("%s: a next step shows a half-replaced placeholder (%q): %s", label, m, s)
		}
	}
}

// Filled is a walk's Unfilled hook (diagnose.Options) that fails the test
// on a next step rendered with a field the walk could not fill: every
// cause's step, for every fixture and capture, names the real pod, node,
// namespace and objects.
func Filled(t testing.TB, label string) func(chain.CauseID, []decode.Field) {
	return func(cause chain.CauseID, fields []decode.Field) {
		t.Helper()
		t.Errorf("%s: the next step of %s leaves %v unfilled", label, cause, fields)
	}
}
