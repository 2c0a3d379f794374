package engine

import (
	"context"
	"time"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/diagnose"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

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
	return e.follow(ctx, w, waitPace("the rollout"), changed, forbidden, false)
}

func (w *waiter) walk(_ context.Context, now time.Time, _ bool) (bool, error) {
	w.snap.Now = now
	w.report = diagnose.Walk(w.snap, w.e.walkOptions())
	if done(w.report) {
		return true, nil
	}
	return false, w.e.sink.Progress(one(w.report), true, w.e.now().Sub(w.start))
}

func (w *waiter) read(ctx context.Context) error {
	next, err := w.reader.Read(ctx, w.e.Namespace, w.e.refs[0])
	if err != nil {
		return err
	}
	// The GitOps object that applied a broken revision is read once: a
	// wait re-reads on every change.
	owner := w.snap == nil || w.snap.Applier == nil && w.snap.ApplierNote == ""
	if err := w.e.readBeside(ctx, w.reader, next, owner); err != nil {
		return err
	}
	if !owner {
		next.Applier, next.ApplierNote = w.snap.Applier, w.snap.ApplierNote
	}
	next.Via = w.e.via[w.e.refs[0]]
	w.snap = next
	return nil
}

func (w *waiter) clear() { w.e.sink.Clear() }

// finish hands the final report to the sink, whose error is the run's.
func (w *waiter) finish() error {
	w.clear()
	return w.e.sink.Reports(one(w.report), true)
}
