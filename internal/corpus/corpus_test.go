package corpus

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
	"github.com/kubectl-chain/kubectl-chain/internal/engine"
)

// The corpus's goals: what share of real evidence must get its specific
// cause. Entries that miss are listed by the tests; the goal is all of them.
const (
	minMessages   = 400
	minIncidents  = 60
	minPerKind    = 20   // messages of each kind (Deployment, StatefulSet, DaemonSet, Job, CronJob, Pod)
	goalCause     = 0.97 // with the reason that came with the message, and incidents walked
	goalExplained = 0.95 // the message pasted alone
)

// tally counts hits per family.
type tally struct{ n, cause, alone int }

type report map[string]*tally

func (r report) add(family string, cause, alone bool) {
	t := r[family]
	if t == nil {
		t = &tally{}
		r[family] = t
	}
	t.n++
	if cause {
		t.cause++
	}
	if alone {
		t.alone++
	}
}

func (r report) total() tally {
	var all tally
	for _, t := range r {
		all.n += t.n
		all.cause += t.cause
		all.alone += t.alone
	}
	return all
}

func pct(a, n int) float64 {
	if n == 0 {
		return 0
	}
	return 100 * float64(a) / float64(n)
}

// table prints the tally per family under the two columns' names.
func (r report) table(by, cause, alone string) string {
	var fams []string
	for f := range r {
		fams = append(fams, f)
	}
	sort.Strings(fams)
	w := 16 // wider for a kind's name such as HorizontalPodAutoscaler
	for _, f := range fams {
		w = max(w, len(f))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-*s %8s %14s %14s\n", w, by, "ENTRIES", cause, alone)
	row := func(name string, t tally) {
		fmt.Fprintf(&b, "%-*s %8d %6d %5.1f%% %6d %5.1f%%\n", w, name, t.n, t.cause, pct(t.cause, t.n), t.alone, pct(t.alone, t.n))
	}
	for _, f := range fams {
		row(f, *r[f])
	}
	row("all", r.total())
	return b.String()
}

// first is the cause Explain leads with, "" for none.
func first(ds []decode.Decoded) chain.CauseID {
	if len(ds) == 0 {
		return ""
	}
	return ds[0].Cause
}

// TestMessages explains every real message twice, with the reason that came
// with it and pasted alone, as `kubectl chain explain` does, and prints the
// hit rate per family (go test -v -run TestMessages ./internal/corpus).
func TestMessages(t *testing.T) {
	msgs, err := LoadMessages(Root)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) < minMessages {
		t.Errorf("the corpus has %d messages; it needs at least %d", len(msgs), minMessages)
	}
	r, byKind := report{}, report{}
	for _, m := range msgs {
		if _, ok := decode.Lookup(m.Cause); !ok {
			t.Errorf("%s: cause %q is not in the catalogue", m.ID(), m.Cause)
			continue
		}
		if c, _ := decode.Lookup(m.Cause); c.Link != m.Link {
			t.Errorf("%s: cause %s is on link %s, the entry says %s", m.ID(), m.Cause, c.Link, m.Link)
		}
		withReason := first(decode.Explain(m.Reason, m.Message))
		alone := first(decode.Explain("", m.Message))
		if withReason != m.Cause {
			t.Logf("miss %s (%s): reason %q gives %q, want %s\n    %s", m.ID(), m.Source, m.Reason, withReason, m.Cause, oneLine(m.Message))
		}
		if alone != m.Cause {
			t.Logf("miss %s (%s): message alone gives %q, want %s\n    %s", m.ID(), m.Source, alone, m.Cause, oneLine(m.Message))
		}
		if m.Reason != "" && withReason != "" && alone != "" && withReason != alone {
			t.Errorf("%s: %q with reason %q but %q alone: explain must not depend on the reason when both decode", m.ID(), withReason, m.Reason, alone)
		}
		r.add(m.Family, withReason == m.Cause, alone == m.Cause)
		byKind.add(m.WorkloadKind(), withReason == m.Cause, alone == m.Cause)
	}
	t.Logf("real messages, explained:\n%s", r.table("FAMILY", "CAUSE RIGHT", "MESSAGE ALONE"))
	t.Logf("real messages by kind:\n%s", byKind.table("KIND", "CAUSE RIGHT", "MESSAGE ALONE"))
	// Each kind meets the goals on its own: a kind's evidence must not
	// hide behind the Deployments' numbers.
	for kind, k := range byKind {
		if k.n < minPerKind {
			t.Errorf("kind %s has %d messages; each kind needs at least %d", kind, k.n, minPerKind)
			continue
		}
		if got := float64(k.cause) / float64(k.n); got < goalCause {
			t.Errorf("kind %s: cause right for %.1f%% of its messages; the goal is %.0f%%", kind, 100*got, 100*goalCause)
		}
		if got := float64(k.alone) / float64(k.n); got < goalExplained {
			t.Errorf("kind %s: explain right for %.1f%% of its messages pasted alone; the goal is %.0f%%", kind, 100*got, 100*goalExplained)
		}
	}
	// And each family: the traffic, producer and autoscaler families must
	// not hide behind the kubelet's numbers either.
	for fam, f := range r {
		if got := float64(f.cause) / float64(f.n); got < goalCause {
			t.Errorf("family %s: cause right for %.1f%% of its messages; the goal is %.0f%%", fam, 100*got, 100*goalCause)
		}
		if got := float64(f.alone) / float64(f.n); got < goalExplained {
			t.Errorf("family %s: explain right for %.1f%% of its messages pasted alone; the goal is %.0f%%", fam, 100*got, 100*goalExplained)
		}
	}
	all := r.total()
	if got := float64(all.cause) / float64(all.n); got < goalCause {
		t.Errorf("cause right for %.1f%% of messages; the goal is %.0f%%", 100*got, 100*goalCause)
	}
	if got := float64(all.alone) / float64(all.n); got < goalExplained {
		t.Errorf("explain right for %.1f%% of messages pasted alone; the goal is %.0f%%", 100*got, 100*goalExplained)
	}
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// TestIncidents walks every rebuilt incident as `kubectl chain -f` does and
// checks its first broken (or progressing) link and cause.
func TestIncidents(t *testing.T) {
	incidents, err := LoadIncidents(Root)
	if err != nil {
		t.Fatal(err)
	}
	if len(incidents) < minIncidents {
		t.Errorf("the corpus has %d incidents; it needs at least %d", len(incidents), minIncidents)
	}
	r, byKind := report{}, report{}
	for _, in := range incidents {
		path := filepath.Join(Root, "lists", in.Name+".yaml")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: %v (go run ./testdata/real/gen testdata/real)", in.Name, err)
			continue
		}
		built, err := Build(in)
		if err != nil {
			t.Errorf("%s: %v", in.Name, err)
			continue
		}
		if !bytes.Equal(built, data) {
			t.Errorf("%s is out of date with its spec: go run ./testdata/real/gen testdata/real", path)
		}
		rep, err := walk(path, in)
		if err != nil {
			t.Errorf("%s: %v", in.Name, err)
			continue
		}
		v := rep.Verdict
		ok := v.Link == in.Want.Link && v.Cause == in.Want.Cause
		if in.Want.Health == chain.Healthy {
			ok = v.Health == chain.Healthy
		}
		if !ok {
			t.Logf("miss %s/%s (%s): %s at %s, cause %s; want %s, %s\n    %s", in.Family, in.Name, in.Source, v.Health, v.Link, v.Cause, in.Want.Link, in.Want.Cause, v.Summary)
		}
		r.add(in.Family, ok, ok || v.Link == in.Want.Link)
		byKind.add(reportKind(rep), ok, ok || v.Link == in.Want.Link)
	}
	t.Logf("real incidents, walked:\n%s", r.table("FAMILY", "CAUSE RIGHT", "LINK RIGHT"))
	t.Logf("real incidents by kind:\n%s", byKind.table("KIND", "CAUSE RIGHT", "LINK RIGHT"))
	all := r.total()
	if got := float64(all.cause) / float64(all.n); got < goalCause {
		t.Errorf("link and cause right for %.1f%% of incidents; the goal is %.0f%%", 100*got, 100*goalCause)
	}
	// Each kind and each family on its own, as for the messages: two Job
	// incidents once regressed behind the Deployments' numbers.
	for fam, f := range r {
		if got := float64(f.cause) / float64(f.n); got < goalCause {
			t.Errorf("family %s: link and cause right for %.1f%% of its incidents; the goal is %.0f%%", fam, 100*got, 100*goalCause)
		}
	}
	for kind, k := range byKind {
		if got := float64(k.cause) / float64(k.n); got < goalCause {
			t.Errorf("kind %s: link and cause right for %.1f%% of its incidents; the goal is %.0f%%", kind, 100*got, 100*goalCause)
		}
	}
}

// walk walks a List as `kubectl chain -f LIST` does, its workload or the
// incident's target (kubectl chain -f LIST KIND/NAME; a bare pod named:
// pod/web), through the engine the command line runs.
func walk(path string, in Incident) (*chain.Report, error) {
	target := in.Target
	if target == "" && in.WorkloadKind() == "Pod" {
		target = "pod/" + app
	}
	var targets []engine.Target
	if target != "" {
		var err error
		if targets, err = engine.ParseTargets([]string{target}); err != nil {
			return nil, err
		}
	}
	e := engine.New(engine.Request{Files: []string{path}, Targets: targets, Timeout: engine.DefaultTimeout, Unjudged: engine.UnjudgedNote}, nil)
	var sink reports
	if err := e.Run(context.Background(), &sink); err != nil {
		return nil, err
	}
	if sink.l == nil || len(sink.l.Items) != 1 {
		return nil, fmt.Errorf("walking %s: not one report", path)
	}
	return &sink.l.Items[0], nil
}

// reports keeps what the engine hands a front.
type reports struct{ l *chain.ReportList }

func (r *reports) Reports(l *chain.ReportList, _ bool) error { r.l = l; return nil }
func (r *reports) Progress(*chain.ReportList, bool, time.Duration) error {
	return nil
}
func (r *reports) NotFound(*chain.Report) error { return nil }
func (r *reports) Clear()                       {}

// reportKind is the kind of what a walk judged: its workload's, or its
// target's (HorizontalPodAutoscaler, Certificate, Service ...).
func reportKind(r *chain.Report) string {
	if r.API != nil {
		return r.API.Kind
	}
	return string(r.Kind)
}

// TestListsHaveSpecs keeps Lists whose spec was removed out of the corpus.
func TestListsHaveSpecs(t *testing.T) {
	incidents, err := LoadIncidents(Root)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, in := range incidents {
		names[in.Name+".yaml"] = true
	}
	paths, _ := filepath.Glob(filepath.Join(Root, "lists", "*.yaml"))
	for _, p := range paths {
		if !names[filepath.Base(p)] {
			t.Errorf("%s has no spec in incidents/: remove it or go run ./testdata/real/gen testdata/real", p)
		}
	}
}
