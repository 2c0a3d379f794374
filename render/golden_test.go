package render

import (
	"path/filepath"
	"testing"

	"github.com/kubectl-chain/kubectl-chain/internal/golden"
)

// goldenDir holds the expected outputs; UPDATE_GOLDEN=1 go test ./render
// rewrites them, and the diff is reviewed like code.
var goldenDir = filepath.Join("..", "testdata", "golden", "render")

// checkGolden compares got with the golden file name.
func checkGolden(t *testing.T, name string, got string) {
	t.Helper()
	golden.Check(t, goldenDir, name, got)
}
