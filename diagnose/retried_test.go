package diagnose

import (
	"testing"
	"time"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// TestRetriedAfterGrace: a Secret volume that does not exist is retried
// by the kubelet at 0.5, 1.5, 3.5, 7.5, 15.5, 31.5 s (0.5 s doubling), as
// the lab's secret-late scenario showed (six FailedMount events over 16 s).
// At 30 s the grace has passed but no failure was seen after it: the
// Secret may have come, and the retry at 31.5 s will mount it, so it is
// not terminal yet; once that retry fails too (the event's last timestamp
// at 31.5 s), it is. A cause without Retried keeps the clock's rule.
func TestRetriedAfterGrace(t *testing.T) {
	start := time.Date(2026, 12, 5, 1, 23, 55, 0, time.UTC)
	grace := 30 * time.Second
	f := &chain.Finding{Cause: decode.VolumeSecretNotFound, Since: start, Last: start.Add(15500 * time.Millisecond)}
	if isTerminal(f, start.Add(30*time.Second), grace) {
		t.Error("terminal at 30 s with no failure seen after the grace: the retry at 31.5 s may mount it")
	}
	f.Last = start.Add(31500 * time.Millisecond)
	if !isTerminal(f, start.Add(32*time.Second), grace) {
		t.Error("not terminal after the retry past the grace failed too")
	}
	if isTerminal(f, start.Add(20*time.Second), grace) {
		t.Error("terminal within the grace")
	}
	// No last time known (a capture without event timestamps): the clock.
	f.Last = time.Time{}
	if !isTerminal(f, start.Add(30*time.Second), grace) {
		t.Error("not terminal after the grace with no last time to go by")
	}
	// ConfigMapNotFound is a container state, judged by the clock alone.
	c := &chain.Finding{Cause: decode.ConfigMapNotFound, Since: start, Last: start.Add(time.Second)}
	if !isTerminal(c, start.Add(30*time.Second), grace) {
		t.Error("a cause without Retried waits for a failure after the grace")
	}
}
