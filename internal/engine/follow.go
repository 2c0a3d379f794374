package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

// followed is what the follow loop follows: one target (--wait), several
// (--wait with names, a release, -l, --all or -A), or serve's scopes.
type followed interface {
	// walk judges the last read against now and hands the verdicts to
	// the sink; fresh says something was read since the last walk (the
	// first walk is fresh). done says the follow is over.
	walk(ctx context.Context, now time.Time, fresh bool) (done bool, err error)
	// read re-reads the cluster for the next walk.
	read(ctx context.Context) error
	// finish hands the final verdicts to the sink and returns its error.
	finish() error
	// clear removes a live view before a message is printed.
	clear()
}

// pace is how a follow spends its time.
type pace struct {
	// tick is how often the clock alone calls for a walk: --wait re-walks
	// every second, so grace windows end on time and the elapsed time
	// moves; serve judges again every --resync.
	tick time.Duration
	// settle is how long a read waits after a change for the rest of its
	// burst (serve's), and minRefetch the least time between two reads
	// (--wait's): a rollout of many pods changes many objects at once,
	// and one read after the burst sees them all.
	settle, minRefetch time.Duration
	// what is followed, as the timeout says it.
	what string
}

// Paces of --wait, and the re-reads without watches.
const (
	// tick re-walks the last snapshot with a fresh clock even when nothing
	// changes.
	tick = time.Second
	// minRefetch bounds how often a burst of changes re-reads the snapshot.
	minRefetch = 500 * time.Millisecond
	// pollEvery is how often the snapshot is re-read when watching is
	// forbidden or a re-read failed.
	pollEvery = 2 * time.Second
)

// waitPace is --wait's pace.
func waitPace(what string) pace { return pace{tick: tick, minRefetch: minRefetch, what: what} }

// follow is the one follow loop, of --wait (one target or many, -A
// included) and of serve: watches signal changes on changed, each change
// re-reads (after settle, at most every minRefetch), the clock calls for a
// walk every tick, and the loop ends when f is done, or when ctx ends: at
// the timeout with the last verdict (exit 6 instead when the API server
// does not answer the watches then). While it does not, nothing is
// re-read, stderr says since when, and once it answers the watches resume
// where they left off. With poll set, or once a watch is reported
// forbidden, or while re-reads fail, it re-reads every pollEvery instead
// of waiting for a change.
func (e *Engine) follow(ctx context.Context, f followed, p pace, changed <-chan struct{}, forbidden <-chan string, poll bool) error {
	ticker := time.NewTicker(p.tick)
	defer ticker.Stop()
	var (
		lastFetch time.Time
		failing   string // the re-read error last reported, so it is said once
		notice    = &connNotice{conn: e.conn}
		fresh     = true
	)
	for {
		done, err := f.walk(ctx, e.now(), fresh)
		if err != nil {
			return err
		}
		if done {
			return f.finish()
		}
		fresh = false
		refetch := false
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				f.clear()
				fmt.Fprintf(e.notes, "timed out after %s waiting for %s\n", e.Timeout, p.what)
				if err := notice.unreachable(time.Now()); err != nil {
					return err
				}
			}
			return f.finish()
		case msg := <-forbidden:
			f.clear()
			fmt.Fprintf(e.notes, "%s: re-reading every %s instead\n", msg, pollEvery)
			poll, refetch = true, true
		case <-ticker.C:
			refetch = (poll || failing != "") && time.Since(lastFetch) >= pollEvery
			// After an outage, one re-read: a change may have come while
			// the watches were away, and a re-read may have failed.
			refetch = notice.check(e.notes, f.clear, time.Now()) || refetch
		case <-changed:
			refetch = true
		}
		if since, _ := notice.lost(); !refetch || !since.IsZero() {
			// Nothing to read, or no server to read it from.
			continue
		}
		if wait := max(p.settle, p.minRefetch-time.Since(lastFetch)); wait > 0 {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				continue
			}
		}
		lastFetch = time.Now()
		err = f.read(ctx)
		switch {
		case err == nil:
			failing, fresh = "", true
		case ctx.Err() != nil:
			// The timeout: reported on the next turn.
		case final(err):
			f.clear()
			return Translate(err)
		default:
			// A control plane restarting or a dropped connection: keep the
			// last read and try again on the next change or tick.
			if msg := Translate(err).Error(); msg != failing {
				f.clear()
				fmt.Fprintf(e.notes, "re-reading failed, retrying: %s\n", msg)
				failing = msg
			}
		}
	}
}

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
