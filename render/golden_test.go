package render

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// goldenDir holds the expected outputs; UPDATE_GOLDEN=1 go test ./render
// rewrites them, and the diff is reviewed like code.
var goldenDir = filepath.Join("..", "testdata", "golden", "render")

// checkGolden compares got with the golden file name as a whole.
func checkGolden(t *testing.T, name string, got string) {
	t.Helper()
	path := filepath.Join(goldenDir, name)
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.MkdirAll(goldenDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden (run UPDATE_GOLDEN=1 go test ./render): %v", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, diff)
	}
}
