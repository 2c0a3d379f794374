package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHandlerBeforeHeavyInits checks, from the runtime's own init trace,
// that the SIGTERM handler (package early) is installed before gRPC,
// protobuf and net/http initialize: a SIGTERM in that window would make
// the program, as PID 1, exit 2 instead of 0.
func TestHandlerBeforeHeavyInits(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "chain-workload")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "--exit", "0", "--after", "0s", "--http", "")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	order := map[string]int{}
	for i, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "init" {
			order[f[1]] = i
		}
	}
	early, ok := order["github.com/kubectl-chain/kubectl-chain/lab/cmd/chain-workload/early"]
	if !ok {
		t.Fatalf("package early is not initialized:\n%s", out)
	}
	for _, heavy := range []string{"google.golang.org/grpc", "google.golang.org/protobuf/internal/filedesc", "net/http"} {
		if i, ok := order[heavy]; !ok || i < early {
			t.Errorf("%s initializes before the SIGTERM handler is installed (or not at all)", heavy)
		}
	}
}
