package engine

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

// TestConnNotice: the outage is said once with since when and why, the
// return once with how long it lasted (and asks for one re-read), and a
// timeout during an outage is exit 6 naming it; none while it answers.
func TestConnNotice(t *testing.T) {
	var conn kube.Conn
	var out bytes.Buffer
	n := &connNotice{conn: &conn}
	cleared := 0
	clear := func() { cleared++ }
	start := time.Date(2026, 12, 5, 1, 42, 10, 0, time.Local)
	if n.check(&out, clear, start) || out.Len() != 0 || n.unreachable(start) != nil {
		t.Fatalf("said %q or gave an error with the server answering", out.String())
	}
	why := "Get \"https://127.0.0.1:6443/api/v1/namespaces/x/pods?watch=true\": dial tcp 127.0.0.1:6443: connect: connection refused"
	conn.SetLost(start, why)
	n.check(&out, clear, start.Add(time.Second))
	n.check(&out, clear, start.Add(2*time.Second))
	want := "lost the connection to the API server at 01:42:10 (" + why + "): still waiting; the watches resume where they left off when it answers\n"
	if out.String() != want {
		t.Errorf("said %q, want once %q", out.String(), want)
	}
	err := n.unreachable(start.Add(30 * time.Second))
	if exitCode(err) != ExitCluster || !strings.Contains(err.Error(), "has not answered since 01:42:10 (30s ago)") || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("timeout during the outage: code %d, %v", exitCode(err), err)
	}
	out.Reset()
	conn.SetLost(time.Time{}, "")
	if !n.check(&out, clear, start.Add(12*time.Second)) {
		t.Error("the return did not ask for a re-read")
	}
	if got := out.String(); got != "the API server answers again, after 12s without it: following on\n" {
		t.Errorf("on return said %q", got)
	}
	if n.check(&out, clear, start.Add(13*time.Second)) || cleared != 2 {
		t.Errorf("the return was said again, or the live view cleared %d times (want 2)", cleared)
	}

	// An outage that begins and ends between two looks is said once over.
	out.Reset()
	conn.SetLost(start.Add(20*time.Second), "EOF")
	conn.SetAnswered()
	if !n.check(&out, clear, start.Add(22*time.Second)) {
		t.Error("a short outage did not ask for a re-read")
	}
	if got := out.String(); !strings.HasPrefix(got, "lost the connection to the API server at 01:42:30 (EOF) for ") || !strings.HasSuffix(got, ": following on\n") {
		t.Errorf("a short outage: said %q", got)
	}
	out.Reset()
	if n.check(&out, clear, start.Add(23*time.Second)) || out.Len() != 0 {
		t.Errorf("the short outage was said again: %q", out.String())
	}
}
