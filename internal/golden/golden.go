// Package golden compares test output with golden files. The expected output
// is a file reviewed like code: UPDATE_GOLDEN=1 rewrites it and the diff shows
// what changed.
package golden

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
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
