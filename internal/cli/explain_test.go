package cli

import (
	"strings"
	"testing"
)

func TestExplainCommand(t *testing.T) {
	r := runWith(t, nil, "explain", "0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had untolerated taint(s).")
	if r.code != ExitHealthy || !strings.HasPrefix(r.stdout, "InsufficientCPU (node-assignment): 2 of 5 nodes: insufficient cpu\n") || !strings.Contains(r.stdout, "UntoleratedTaint") {
		t.Errorf("code %d, stdout:\n%s", r.code, r.stdout)
	}
	r = runWith(t, nil, "explain", "nothing to see")
	if !strings.Contains(r.stdout, "no known cause") || r.code != ExitUnexplained {
		t.Errorf("code %d, stdout %q", r.code, r.stdout)
	}
	r = runWith(t, nil, "explain", "-o", "json", "nothing to see")
	if r.code != ExitUnexplained || r.stderr != "" {
		t.Errorf("json: code %d, stderr %q", r.code, r.stderr)
	}
	r = runWith(t, nil, "explain")
	if r.code != ExitUsage {
		t.Errorf("no message: code %d", r.code)
	}
}

// TestExplainEvents explains every event of a capture piped in.
func TestExplainEvents(t *testing.T) {
	r := runWith(t, nil, "explain", "-f", snapshotPath("image-not-found.yaml"))
	if r.code != ExitHealthy || !strings.Contains(r.stdout, "ImageNotFound (containers)") || !strings.Contains(r.stdout, "events, ") {
		t.Errorf("code %d, stderr %q, stdout:\n%s", r.code, r.stderr, r.stdout)
	}
}
