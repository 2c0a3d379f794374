package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubectl-chain/kubectl-chain/decode"
	"github.com/kubectl-chain/kubectl-chain/render"
)

// TestReadmeCausesInSync keeps the causes page's table (docs/causes.md) equal to what
// `kubectl chain causes -o markdown` prints, so the docs cannot drift from
// the code. UPDATE_GOLDEN=1 rewrites the table.
func TestReadmeCausesInSync(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "causes.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const start, end = "<!-- causes:start -->\n", "<!-- causes:end -->"
	doc := string(data)
	i, j := strings.Index(doc, start), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("docs/causes.md has no %q ... %q section", start, end)
	}
	var table bytes.Buffer
	if err := render.CausesMarkdown(&table, decode.Catalogue()); err != nil {
		t.Fatal(err)
	}
	got := doc[i+len(start) : j]
	if os.Getenv("UPDATE_GOLDEN") != "" {
		doc = doc[:i+len(start)] + table.String() + doc[j:]
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if diff := cmp.Diff(table.String(), got); diff != "" {
		t.Errorf("docs/causes.md's causes table is out of date; run UPDATE_GOLDEN=1 go test ./internal/cli (-want +got):\n%s", diff)
	}
}

// TestCausesCommand runs `kubectl chain causes -o json` and checks it lists
// the whole catalogue with unique IDs.
func TestCausesCommand(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "default")
	r := runWith(t, nil, "causes", "-o", "json")
	if r.code != ExitHealthy {
		t.Fatalf("code %d, stderr %s", r.code, r.stderr)
	}
	var causes []decode.Cause
	decodeJSON(t, r.stdout, &causes)
	if len(causes) != len(decode.Catalogue()) {
		t.Errorf("%d causes printed, catalogue has %d", len(causes), len(decode.Catalogue()))
	}
	seen := map[string]bool{}
	for _, c := range causes {
		if seen[string(c.ID)] {
			t.Errorf("cause %s listed twice", c.ID)
		}
		seen[string(c.ID)] = true
		if c.Summary == "" || c.NextStep == "" || c.Terminal.Mode == "" {
			t.Errorf("cause %s lacks a summary, next step or terminal rule: %+v", c.ID, c)
		}
	}
}
