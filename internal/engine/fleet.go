package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// FleetParallel bounds how many contexts of a fleet are read at once.
const FleetParallel = 8

// Member is one kubeconfig context of a fleet run: the request compiled
// for it (its client, mapper and namespace), or why none could be (Err).
type Member struct {
	Context string
	Request Request
	Err     error
}

// RunFleet runs the same request in several contexts at once (at most
// FleetParallel at a time) and hands sink one list of every context's
// reports, each stamped with its context, in the members' order. A context
// that could not be judged (its cluster unreachable or forbidden, the
// target not there) is a report of its own that says why, with the exit
// code a run of it alone would have had; the others are judged all the
// same. With Wait, each context is followed until it is done; one that
// ends broken ends the others' waits (the gate has failed), each then
// reported as it last stood. The run's error is the worst of the
// contexts': broken, then a context not read (cluster, not found, usage),
// then unknown, then progressing.
func RunFleet(ctx context.Context, members []Member, notes io.Writer, sink Sink) error {
	if notes == nil {
		notes = io.Discard
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	f := &fleet{sink: sink, runs: make([]*memberRun, len(members))}
	for i, m := range members {
		f.runs[i] = &memberRun{fleet: f, member: m}
	}
	sem := make(chan struct{}, FleetParallel)
	var wg sync.WaitGroup
	for _, run := range f.runs {
		if run.member.Err != nil {
			run.err = run.member.Err
			continue
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			run.err = New(run.member.Request, &prefixWriter{w: notes, prefix: "context " + run.member.Context + ": ", mu: &f.notesMu}).Run(ctx, run)
			f.mu.Lock()
			// Ended after another context's broken verdict stopped the
			// waits: what it says of itself is that stop, not its cluster.
			run.stopped = f.stopped && run.final == nil
			f.mu.Unlock()
			if run.broken() && run.member.Request.Wait {
				// The gate failed: no other wait can change that.
				f.mu.Lock()
				f.stopped = true
				f.mu.Unlock()
				cancel()
			}
		})
	}
	wg.Wait()
	items, requests, code, why := f.merge()
	err := sink.Reports(chain.NewReportList(items, requests), false)
	if code == ExitHealthy || slices.Index(fleetRank, ExitCode(err)) <= slices.Index(fleetRank, code) {
		return err
	}
	return &ExitError{Code: code, Err: errors.New(why)}
}

// fleetRank orders exit codes by how badly a fleet's gate fails.
var fleetRank = []int{ExitBroken, ExitCluster, ExitNotFound, ExitUsage, ExitUnexplained, ExitUnknown, ExitProgressing, ExitHealthy}

type fleet struct {
	sink  Sink
	runs  []*memberRun
	start time.Time
	mu    sync.Mutex // guards the runs' reports, stopped and the sink's progress
	// stopped says a context's broken verdict ended the others' waits.
	stopped bool
	notesMu sync.Mutex
}

// memberRun is one context's run, and the engine's sink for it.
type memberRun struct {
	fleet  *fleet
	member Member
	// final are its reports once final; last its latest progress;
	// notFound the report of a target that does not exist there.
	final, last *chain.ReportList
	notFound    *chain.Report
	err         error
	// stopped says it ended without a final report after the stop.
	stopped bool
}

func (m *memberRun) stamp(l *chain.ReportList) *chain.ReportList {
	out := *l
	out.Items = slices.Clone(l.Items)
	for i := range out.Items {
		out.Items[i].Context = m.member.Context
	}
	return &out
}

func (m *memberRun) Reports(l *chain.ReportList, _ bool) error {
	m.fleet.mu.Lock()
	defer m.fleet.mu.Unlock()
	m.final = m.stamp(l)
	return nil
}

func (m *memberRun) Progress(l *chain.ReportList, _ bool, elapsed time.Duration) error {
	f := m.fleet
	f.mu.Lock()
	defer f.mu.Unlock()
	m.last = m.stamp(l)
	var all []chain.Report
	for _, r := range f.runs {
		if r.last != nil {
			all = append(all, r.last.Items...)
		}
	}
	return f.sink.Progress(chain.NewReportList(all, 0), false, elapsed)
}

func (m *memberRun) NotFound(r *chain.Report) error {
	m.fleet.mu.Lock()
	defer m.fleet.mu.Unlock()
	c := *r
	c.Context = m.member.Context
	m.notFound = &c
	return nil
}

func (m *memberRun) Clear() {}

// broken says the context's run ended with a broken verdict.
func (m *memberRun) broken() bool {
	m.fleet.mu.Lock()
	defer m.fleet.mu.Unlock()
	return m.final != nil && m.final.Health == chain.Broken
}

// merge is every context's reports in order, what they cost, and the
// worst exit code of a context that was not judged, with why.
func (f *fleet) merge() (items []chain.Report, requests, code int, why string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	code = ExitHealthy
	var whys []string
	for _, m := range f.runs {
		err := m.err
		got := m.final
		if got == nil && m.last != nil && m.stopped {
			// Its wait was ended by another context's broken verdict
			// (however the engine put the end of its context).
			got, err = m.last, nil
		}
		if err == nil && got != nil {
			items = append(items, got.Items...)
			requests += got.Requests
			continue
		}
		c := ExitCode(err)
		if got == nil && m.stopped {
			// Stopped before its first verdict by another context's.
			c, err = ExitUnknown, errors.New("not judged: the wait ended when another context broke")
		}
		if err == nil {
			c, err = ExitUsage, errors.New("the run ended without a report")
		}
		msg := oneLine(err.Error())
		r := chain.Report{Schema: chain.SchemaVersion, Context: m.member.Context, Verdict: chain.Verdict{Health: chain.Unknown, Summary: msg},
			Error: &chain.RunError{Exit: c, Message: msg}}
		if m.notFound != nil {
			r = *m.notFound
			r.Error = &chain.RunError{Exit: c, Message: msg}
		} else if t := m.member.Request.Targets; len(t) == 1 {
			r.Name, r.Namespace = t[0].Name, m.member.Request.Namespace
			if k, ok := chain.KindBySpelling(t[0].Kind); ok {
				r.Kind = k
			} else if t[0].API != nil {
				r.Kind = chain.Kind(t[0].API.Kind)
			}
		}
		items = append(items, r)
		if slices.Index(fleetRank, c) < slices.Index(fleetRank, code) {
			code = c
		}
		whys = append(whys, fmt.Sprintf("context %s: %s", m.member.Context, msg))
	}
	return items, requests, code, strings.Join(whys, "; ")
}

// prefixWriter writes each line with a prefix, one whole line at a time
// (several contexts' notes share one standard error).
type prefixWriter struct {
	w      io.Writer
	prefix string
	mu     *sync.Mutex
	buf    []byte
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			return len(b), nil
		}
		if _, err := fmt.Fprintf(p.w, "%s%s\n", p.prefix, p.buf[:i]); err != nil {
			return 0, err
		}
		p.buf = p.buf[i+1:]
	}
}
