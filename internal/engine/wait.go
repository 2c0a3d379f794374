package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/diagnose"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

// minRefetch bounds how often a burst of changes re-reads the snapshot: a
// rollout of many pods changes many objects at once, and one read after the
// burst sees them all.
const minRefetch = 500 * time.Millisecond

// tick re-walks the last snapshot with a fresh clock even when nothing
// changes, so grace windows end on time and the elapsed time moves.
const tick = time.Second

// rollout is what a wait follows: one Deployment or several.
type rollout interface {
	// walk judges the last read against now, shows the progress, and says
	// whether the wait is over.
	walk(now time.Time) (done bool, err error)
	// read re-reads the cluster for the next walk.
	read(ctx context.Context) error
	// finish hands the final report(s) to the sink and returns its error.
	finish() error
	// clear removes a live view before a message is printed.
	clear()
}

// follow waits on r: watches signal changes on changed, each change re-reads
// (at most every minRefetch), the chain is re-walked every tick, and the
// loop ends when r is done, or at the timeout with the last verdict (exit
// 6 instead when the API server does not answer the watches then). While
// it does not, nothing is re-read, stderr says since when, and once it
// answers the watches resume where they left off. With poll set, or once a watch is reported forbidden, or while re-reads fail,
// it re-reads every pollEvery instead of waiting for a change.
func (e *Engine) follow(ctx context.Context, r rollout, what string, changed <-chan struct{}, forbidden <-chan string, poll bool) error {
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	var (
		lastFetch time.Time
		failing   string // the re-read error last reported, so it is said once
		notice    = &connNotice{conn: e.conn}
	)
	for {
		done, err := r.walk(e.now())
		if err != nil {
			return err
		}
		if done {
			return r.finish()
		}
		refetch := false
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				r.clear()
				fmt.Fprintf(e.notes, "timed out after %s waiting for %s\n", e.Timeout, what)
				if err := notice.unreachable(time.Now()); err != nil {
					return err
				}
			}
			return r.finish()
		case msg := <-forbidden:
			r.clear()
			fmt.Fprintf(e.notes, "%s: re-reading every %s instead\n", msg, pollEvery)
			poll, refetch = true, true
		case <-ticker.C:
			refetch = (poll || failing != "") && time.Since(lastFetch) >= pollEvery
			// After an outage, one re-read: a change may have come while
			// the watches were away, and a re-read may have failed.
			refetch = notice.check(e.notes, r.clear, time.Now()) || refetch
		case <-changed:
			refetch = true
		}
		if since, _ := notice.lost(); !refetch || !since.IsZero() {
			// Nothing to read, or no server to read it from.
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
		err = r.read(ctx)
		switch {
		case err == nil:
			failing = ""
		case ctx.Err() != nil:
			// The timeout: reported on the next turn.
		case final(err):
			r.clear()
			return Translate(err)
		default:
			// A control plane restarting or a dropped connection: keep the
			// last read and try again on the next change or tick.
			if msg := Translate(err).Error(); msg != failing {
				r.clear()
				fmt.Fprintf(e.notes, "re-reading failed, retrying: %s\n", msg)
				failing = msg
			}
		}
	}
}

// waiter follows one Deployment's rollout until it is healthy, broken beyond
// hope, or out of time.
type waiter struct {
	e      *Engine
	reader *kube.Reader
	snap   *chain.Snapshot
	report *chain.Report // the last walk's
	start  time.Time
}

// runWait follows one rollout with watches on its narrow scopes: it ends on
// healthy (exit 0), on a terminal cause (exit 1 at once), or at the timeout
// with the last verdict's code.
func (e *Engine) runWait(ctx context.Context, reader *kube.Reader, snap *chain.Snapshot) error {
	w := &waiter{e: e, reader: reader, snap: snap, start: e.now()}
	ctx, cancel := context.WithTimeout(ctx, e.Timeout)
	defer cancel()
	changed := make(chan struct{}, 1)
	forbidden := reader.Watch(ctx, snap, changed)
	e.conn = reader.Conn()
	return e.follow(ctx, w, "the rollout", changed, forbidden, false)
}

func (w *waiter) walk(now time.Time) (bool, error) {
	w.snap.Now = now
	w.report = diagnose.Walk(w.snap, w.e.walkOptions())
	if done(w.report) {
		return true, nil
	}
	return false, w.e.sink.Progress(one(w.report), true, w.e.now().Sub(w.start))
}

func (w *waiter) read(ctx context.Context) error {
	next, err := w.reader.Read(ctx, w.e.Namespace, w.e.refs[0])
	if err == nil {
		err = w.e.readProducers(ctx, w.reader, next)
	}
	if err == nil {
		next.Via = w.e.via[w.e.refs[0]]
		w.snap = next
	}
	return err
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

func (w *waiter) clear() { w.e.sink.Clear() }

// finish hands the final report to the sink, whose error is the run's.
func (w *waiter) finish() error {
	w.clear()
	return w.e.sink.Reports(one(w.report), true)
}
