package decode

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLeaf keeps decode a leaf: of the project's packages it imports chain
// alone. The walks (diagnose) import the decoders, never the other way
// round, so a decoder stays a pure function of what a component wrote that
// explain, a paste and the walk all share; nothing internal reaches it
// either (not even internal/health, which only the walk needs).
func TestLeaf(t *testing.T) {
	const module = "github.com/kubectl-chain/kubectl-chain"
	out, err := exec.Command("go", "list", "-deps", module+"/decode").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, module+"/") && dep != module+"/chain" && dep != module+"/decode" {
			t.Errorf("decode imports %s: only chain may be imported, the walks import decode", dep)
		}
	}
}
