package engine

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// collect is a sink that keeps what it is handed.
type collect struct {
	list     *chain.ReportList
	progress int
}

func (c *collect) Reports(l *chain.ReportList, _ bool) error {
	c.list = l
	if l.Health != chain.Healthy {
		return &VerdictError{Health: l.Health}
	}
	return nil
}
func (c *collect) Progress(*chain.ReportList, bool, time.Duration) error { c.progress++; return nil }
func (c *collect) NotFound(*chain.Report) error                          { return nil }
func (c *collect) Clear()                                                {}

// TestRunFleet: each context's reports come stamped with it, in the
// members' order; a context that could not be read is a row that says why
// with its own exit code, and the others are judged all the same; the run
// exits with the worst: broken before a cluster not read, a cluster not
// read before healthy.
func TestRunFleet(t *testing.T) {
	capture := func(name string) Request {
		return Request{Files: []string{filepath.Join("..", "..", "testdata", "captures", name)}, Grace: time.Minute, Timeout: time.Minute}
	}
	down := &ExitError{Code: ExitCluster, Err: errors.New(`cannot reach the cluster at https://127.0.0.1:1: connection refused`)}
	members := []Member{
		{Context: "staging", Request: capture("healthy.yaml")},
		{Context: "prod-eu", Request: capture("image-not-found.yaml")},
		{Context: "prod-us", Err: down},
	}
	var notes bytes.Buffer
	sink := &collect{}
	err := RunFleet(context.Background(), members, &notes, sink)
	if ExitCode(err) != ExitBroken {
		t.Errorf("exit %d (%v), want %d: broken is the worst", ExitCode(err), err, ExitBroken)
	}
	if sink.list == nil || len(sink.list.Items) != 3 {
		t.Fatalf("reports %+v, want one per context", sink.list)
	}
	got := sink.list.Items
	for i, want := range []struct {
		context string
		health  chain.Health
		exit    int
	}{{"staging", chain.Healthy, 0}, {"prod-eu", chain.Broken, 0}, {"prod-us", chain.Unknown, ExitCluster}} {
		r := got[i]
		exit := 0
		if r.Error != nil {
			exit = r.Error.Exit
		}
		if r.Context != want.context || r.Verdict.Health != want.health || exit != want.exit {
			t.Errorf("row %d: %s %s exit %d, want %s %s exit %d", i, r.Context, r.Verdict.Health, exit, want.context, want.health, want.exit)
		}
	}
	if !strings.Contains(got[2].Verdict.Summary, "connection refused") {
		t.Errorf("the unreachable context says %q, want the connection's error", got[2].Verdict.Summary)
	}

	// Without the broken context, the unread one decides: exit 6, and the
	// error names it.
	sink = &collect{}
	err = RunFleet(context.Background(), []Member{members[0], members[2]}, &notes, sink)
	if ExitCode(err) != ExitCluster || !strings.Contains(err.Error(), "context prod-us: ") {
		t.Errorf("healthy and unreachable: exit %d (%v), want %d naming prod-us", ExitCode(err), err, ExitCluster)
	}
	if len(sink.list.Items) != 2 || sink.list.Items[0].Verdict.Health != chain.Healthy {
		t.Errorf("reports %+v, want staging healthy and prod-us's row", sink.list.Items)
	}

	// All healthy: exit 0.
	if err := RunFleet(context.Background(), []Member{members[0], {Context: "dr", Request: capture("healthy.yaml")}}, nil, &collect{}); err != nil {
		t.Errorf("all healthy: %v", err)
	}
}

// TestPrefixWriter: several contexts' notes share standard error a whole
// line at a time, each line naming its context.
func TestPrefixWriter(t *testing.T) {
	var out bytes.Buffer
	p := &prefixWriter{w: &out, prefix: "context a: ", mu: new(sync.Mutex)}
	p.Write([]byte("one\ntw"))
	p.Write([]byte("o\n"))
	if out.String() != "context a: one\ncontext a: two\n" {
		t.Errorf("wrote %q", out.String())
	}
}
