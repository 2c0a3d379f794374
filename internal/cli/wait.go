package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/diagnose"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
	"github.com/kubectl-chain/kubectl-chain/render"
)

// minRefetch bounds how often a burst of changes re-reads the snapshot: a
// rollout of many pods changes many objects at once, and one read after the
// burst sees them all.
const minRefetch = 500 * time.Millisecond

// tick re-walks the last snapshot with a fresh clock even when nothing
// changes, so grace windows end on time and the elapsed time moves.
const tick = time.Second

// waiter follows one Deployment's rollout until it is healthy, broken beyond
// hope, or out of time.
type waiter struct {
	o      *Options
	reader *kube.Reader
	start  time.Time
	live   *render.Live
	last   string // the last progress line printed
}

// runWait follows the rollout: watches signal changes, each change re-reads
// the snapshot (the same 4 requests) and re-walks the chain, and the loop
// ends on healthy (exit 0), on a terminal cause (exit 1 at once), or at the
// timeout with the last verdict's code.
func (o *Options) runWait(ctx context.Context, reader *kube.Reader, snap *chain.Snapshot) error {
	w := &waiter{o: o, reader: reader, start: o.now()}
	if o.Output.Format == "text" && o.Output.tty {
		w.live = render.NewLive(o.Out, o.Output.render)
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	changed := make(chan struct{}, 1)
	forbidden := reader.Watch(ctx, snap.Deployment, changed)
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	var (
		lastFetch time.Time
		watchless bool   // a watch is forbidden: re-read on the ticker instead
		failing   string // the re-read error last reported, so it is said once
	)
	for {
		snap.Now = o.now()
		report := diagnose.Walk(snap, diagnose.Options{Grace: o.Grace})
		if done(report) {
			return w.finish(report)
		}
		if err := w.progress(report); err != nil {
			return err
		}
		refetch := false
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				w.clear()
				fmt.Fprintf(o.ErrOut, "timed out after %s waiting for the rollout\n", o.Timeout)
			}
			return w.finish(report)
		case msg := <-forbidden:
			w.clear()
			fmt.Fprintf(o.ErrOut, "%s: re-reading every %s instead\n", msg, pollEvery)
			watchless, refetch = true, true
		case <-ticker.C:
			// Poll while a watch is forbidden or the last re-read failed.
			refetch = (watchless || failing != "") && time.Since(lastFetch) >= pollEvery
		case <-changed:
			refetch = true
		}
		if !refetch {
			continue
		}
		if wait := minRefetch - time.Since(lastFetch); wait > 0 {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				continue
			}
		}
		lastFetch = time.Now()
		next, err := reader.Snapshot(ctx, o.namespace, o.names[0])
		switch {
		case err == nil:
			snap, failing = next, ""
		case ctx.Err() != nil:
			// The timeout: reported on the next turn.
		case final(err):
			w.clear()
			return translate(err)
		default:
			// A control plane restarting or a dropped connection: keep the
			// last snapshot and try again on the next change or tick.
			if msg := translate(err).Error(); msg != failing {
				w.clear()
				fmt.Fprintf(o.ErrOut, "re-reading failed, retrying: %s\n", msg)
				failing = msg
			}
		}
	}
}

// pollEvery is how often the snapshot is re-read when watching is forbidden
// or a re-read failed.
const pollEvery = 2 * time.Second

// final errors end a wait: the Deployment is gone or may no longer be read.
func final(err error) bool {
	var nf *kube.NotFoundError
	var fb *kube.ForbiddenError
	return errors.As(err, &nf) || errors.As(err, &fb)
}

// done says the wait is over: healthy, or broken by a terminal cause.
func done(r *chain.Report) bool {
	return r.Verdict.Health == chain.Healthy || r.Verdict.Health == chain.Broken && r.Verdict.Terminal
}

// progress shows the report while waiting: a redrawn frame on a terminal,
// else one plain line per change (on stderr when stdout carries JSON/YAML).
func (w *waiter) progress(r *chain.Report) error {
	elapsed := w.o.now().Sub(w.start)
	if w.live != nil {
		return w.live.Draw(r, elapsed)
	}
	line := render.Progress(r, 0)
	if line == w.last {
		return nil
	}
	w.last = line
	_, err := fmt.Fprintln(w.o.progressOut(), render.Progress(r, elapsed))
	return err
}

func (w *waiter) clear() {
	if w.live != nil {
		w.live.Clear()
	}
}

// finish prints the final report and returns its verdict for the exit code.
func (w *waiter) finish(r *chain.Report) error {
	w.clear()
	if err := w.o.Output.print(w.o.Out, r); err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("writing the report: %w", err)}
	}
	if r.Verdict.Health != chain.Healthy {
		return &VerdictError{Health: r.Verdict.Health}
	}
	return nil
}
