package engine

import (
	"os/exec"
	"strings"
	"testing"
)

// TestFrontsApart keeps the engine under its fronts and the fronts apart:
// the engine imports no command line (cobra, cli-runtime), no rendering
// (lipgloss, render) and no front; serve and MCP call the engine, never
// the command line.
func TestFrontsApart(t *testing.T) {
	const module = "github.com/kubectl-chain/kubectl-chain/"
	deps := func(pkgs ...string) []string {
		t.Helper()
		out, err := exec.Command("go", append([]string{"list", "-deps"}, pkgs...)...).Output()
		if err != nil {
			t.Fatalf("go list -deps: %v", err)
		}
		return strings.Fields(string(out))
	}
	for _, dep := range deps(module + "internal/engine") {
		for _, banned := range []string{"github.com/spf13/cobra", "k8s.io/cli-runtime/", "github.com/charmbracelet/",
			module + "render", module + "internal/cli", module + "internal/serve", module + "internal/mcp", module + "internal/connect"} {
			if strings.HasPrefix(dep, banned) {
				t.Errorf("the engine imports %s", dep)
			}
		}
	}
	for _, dep := range deps(module+"internal/serve", module+"internal/mcp") {
		if strings.HasPrefix(dep, module+"internal/cli") {
			t.Errorf("serve or mcp imports %s: fronts call the engine", dep)
		}
	}
}
