package diagnose

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCorePure keeps the chain, its decoders and its walks pure: no client
// (client-go, cli-runtime), no command line (cobra), no rendering
// (lipgloss), nothing of the project's internal packages but
// internal/health, the runner of the community's health checks the
// any-kind walk judges by (pure too: the same bans hold for what it
// imports). They take a snapshot and return a report; reading the cluster
// and printing are the callers'. (decode's TestLeaf keeps the decoders
// apart from the walks.)
func TestCorePure(t *testing.T) {
	const module = "github.com/kubectl-chain/kubectl-chain/"
	out, err := exec.Command("go", "list", "-deps", module+"chain", module+"decode", module+"diagnose").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == module+"internal/health" {
			continue
		}
		for _, banned := range []string{"k8s.io/client-go/", "k8s.io/cli-runtime/", "github.com/spf13/cobra", "github.com/charmbracelet/",
			module + "internal/", module + "render", module + "cmd/"} {
			if strings.HasPrefix(dep, banned) {
				t.Errorf("chain, decode or diagnose imports %s: the core must stay pure", dep)
			}
		}
	}
}
