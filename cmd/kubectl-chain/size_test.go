package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// sizeBudget is the budget for the kubectl-chain binary: 60 MB, and 4
// more for Argo CD's health catalogue, which it embeds (measured: 34.3 MB
// without it, 37.0 MB with it).
const sizeBudget = 64 << 20

// buildRelease builds the binary as the release does (goreleaser: CGO off,
// -trimpath, -s -w) and returns its size in bytes.
func buildRelease(tb testing.TB) int64 {
	tb.Helper()
	out := filepath.Join(tb.TempDir(), "kubectl-chain")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build: %v\n%s", err, b)
	}
	fi, err := os.Stat(out)
	if err != nil {
		tb.Fatal(err)
	}
	return fi.Size()
}

// TestBinarySize fails when the release binary outgrows its budget. Size is
// deterministic for one toolchain, so this is a check, not a timed test.
func TestBinarySize(t *testing.T) {
	size := buildRelease(t)
	t.Logf("kubectl-chain release binary: %.1f MB (budget %d MB)", float64(size)/(1<<20), sizeBudget>>20)
	if size > sizeBudget {
		t.Errorf("kubectl-chain is %.1f MB, over the %d MB budget: look for a new heavy import (go list -deps ./cmd/kubectl-chain)", float64(size)/(1<<20), sizeBudget>>20)
	}
}

// BenchmarkBinarySize prints the release binary's size:
// go test ./cmd/kubectl-chain -bench BinarySize -run XXX -benchtime 1x
func BenchmarkBinarySize(b *testing.B) {
	var size int64
	for i := 0; i < b.N; i++ {
		size = buildRelease(b)
	}
	b.ReportMetric(float64(size)/(1<<20), "MB")
}

// TestNoLabDependencies keeps what only the lab needs out of the diagnosis
// binary: the Kubernetes components (the kubelet of real nodes among them),
// kind, the provisioner library, the registry and image library, the real
// nodes' and the program's code.
func TestNoLabDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"k8s.io/kubernetes/", "sigs.k8s.io/kind/", "sigs.k8s.io/sig-storage-lib-external-provisioner/",
			"github.com/google/go-containerregistry/", "github.com/containerd/containerd/", "github.com/opencontainers/runc/",
			"github.com/kubectl-chain/kubectl-chain/lab/", "github.com/kubectl-chain/kubectl-chain/lab/workload"} {
			if strings.HasPrefix(dep, banned) {
				t.Errorf("kubectl-chain imports %s: only kubectl-chain-lab may", dep)
			}
		}
	}
}
