package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kubectl-chain/kubectl-chain/lab/scenarios"
)

// captureDir is where UPDATE_CAPTURES=1 stores each scenario's capture, for
// internal/fixtures to walk without a cluster.
var captureDir = filepath.Join("..", "..", "testdata", "captures")

// checkCapture captures the scenario's Deployment with the real binary,
// walks the file with the real binary and no cluster, and checks the
// verdict is the one the live walk gives, taken right after the capture.
// With UPDATE_CAPTURES=1 the capture replaces testdata/captures/NAME.yaml.
func checkCapture(ctx context.Context, t *testing.T, sc scenarios.Scenario, ns string, want verdict) verdict {
	t.Helper()
	file := filepath.Join(t.TempDir(), sc.Name+".yaml")
	out, err := exec.CommandContext(ctx, chainBin, "capture", sc.Target(), "-n", ns, "--to", file, "--kubeconfig", kubeconfig).CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl-chain capture: %v\n%s", err, out)
	}
	live, liveOut, liveCode, err := diagnose(ctx, sc.Target(), "-n", ns)
	if err != nil {
		t.Fatal(err)
	}
	offline, offOut, offCode, err := diagnose(ctx, "-f", file)
	if err != nil {
		t.Fatal(err)
	}
	if offline != live || offCode != liveCode {
		t.Errorf("from the capture: %+v (exit %d); live: %+v (exit %d)\ncapture:\n%s\nlive:\n%s", offline, offCode, live, liveCode, offOut, liveOut)
	}
	if offline != want {
		t.Errorf("from the capture: %+v, want %+v\n%s", offline, want, offOut)
	}
	if os.Getenv("UPDATE_CAPTURES") == "" || t.Failed() {
		return offline
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(captureDir, sc.Name+".yaml"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return offline
}
