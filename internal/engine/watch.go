package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/internal/capture"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

// WatchSink is where Watch hands what following scopes for ever finds:
// kubectl chain serve's metrics and Events.
type WatchSink interface {
	// Judged takes the last report of every workload followed after a
	// judgement at now, and the snapshots walked again in it.
	Judged(ctx context.Context, reports []chain.Report, walked []*chain.Snapshot, now time.Time)
	// Requests counts n requests of the reader.
	Requests(n int)
	// Error counts one reader error of reason: "unreachable" (the API
	// server was lost) or "forbidden" (a watch was refused).
	Error(reason string)
}

// watcher is what Watch follows: one mirror a scope, and the last
// verdicts.
type watcher struct {
	e       *Engine
	sink    WatchSink
	reader  *kube.Reader
	scopes  []string
	mirrors []*kube.Mirror
	changed chan struct{}
	// outages is how many API server outages were counted.
	outages int
	// waiting says the last judgement found a verdict that time alone
	// may change (progressing, unknown, or broken but not yet terminal):
	// only then does the clock judge again when nothing changed.
	waiting bool
	// reports are the last verdicts, by workload: a judgement walks again
	// only the workloads of the namespaces whose objects changed, and the
	// ones time alone may change.
	reports map[workloadKey]chain.Report
}

// workloadKey names a workload judged.
type workloadKey struct{ namespace, kind, name string }

func keyOf(namespace string, kind chain.Kind, name string) workloadKey {
	return workloadKey{namespace: namespace, kind: string(kind), name: name}
}

// Watch follows the workloads of scopes (namespaces, "" for all of them)
// that the request's Selector matches until ctx ends, with the watches
// --wait -A uses (one read, then no re-list) and the follow loop --wait
// uses: it judges them again whenever their objects change (once a burst
// of changes settles), and every resync while a verdict may change with
// time alone, and hands every judgement to sink.
func (e *Engine) Watch(ctx context.Context, scopes []string, resync time.Duration, sink WatchSink) error {
	client, err := e.NewClient()
	if err != nil {
		return Translate(err)
	}
	w := &watcher{e: e, sink: sink, scopes: scopes, changed: make(chan struct{}, 1),
		reader: &kube.Reader{Client: client, Now: e.Now, MirrorEverything: true}}
	for _, scope := range w.scopes {
		m, err := w.reader.Mirror(ctx, scope, e.Selector, true, w.changed)
		if err != nil {
			return Translate(err)
		}
		w.mirrors = append(w.mirrors, m)
		sink.Requests(m.Requests)
	}
	return e.follow(ctx, w, pace{tick: resync, settle: debounce, what: "the workloads"}, w.changed, nil, false)
}

// ScopeNames says which namespaces scopes are.
func ScopeNames(scopes []string) string {
	if len(scopes) == 1 && scopes[0] == "" {
		return "all namespaces"
	}
	return "namespaces " + strings.Join(scopes, ", ")
}

// debounce is how long serve waits after a change for the rest of its
// burst before it judges again.
const debounce = 200 * time.Millisecond

func (w *watcher) walk(ctx context.Context, now time.Time, fresh bool) (bool, error) {
	// Nothing changed: only a verdict time alone may change calls for a
	// judgement, and none once serve ends.
	if !fresh && (!w.waiting || ctx.Err() != nil) {
		return false, nil
	}
	return false, w.judge(ctx, now)
}

// read has nothing to do: the mirrors apply every change as it comes.
func (w *watcher) read(context.Context) error { return nil }

// finish: serve's verdicts are in its metrics already.
func (w *watcher) finish() error { return nil }

func (w *watcher) clear() {}

// judge walks the workloads the mirrors hold and hands them to the sink:
// all of them the first time and when a whole store was read anew or a
// cluster-scoped object changed; else those of the namespaces whose
// objects changed, and those whose verdict time alone may change. A mirror
// a watch was refused on is read anew.
func (w *watcher) judge(ctx context.Context, now time.Time) error {
	first := w.reports == nil
	if first {
		w.reports = map[workloadKey]chain.Report{}
	}
	var snaps []*chain.Snapshot
	for i, m := range w.mirrors {
		w.drainForbidden(m)
		if m.Stale() {
			fresh, err := w.reader.Mirror(ctx, w.scopes[i], w.e.Selector, true, w.changed)
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				fmt.Fprintf(w.e.notes, "reading %s again: %v\n", ScopeNames(w.scopes[i:i+1]), err)
				continue
			}
			w.mirrors[i], m = fresh, fresh
			w.sink.Requests(fresh.Requests)
		}
		everything, namespaces := m.TakeChanged()
		all := first || everything
		again := func(wl capture.Workload) bool {
			if all || namespaces[wl.Namespace] {
				return true
			}
			r, ok := w.reports[keyOf(wl.Namespace, wl.Kind, wl.Name)]
			return !ok || timeMayChange(r.Verdict)
		}
		// What is walked again replaces what was: a workload of those
		// namespaces that is gone loses its series.
		for k := range w.reports {
			if inScope(w.scopes[i], k.namespace) && (all || namespaces[k.namespace]) {
				delete(w.reports, k)
			}
		}
		t, err := w.e.targetsWhere(m.Bundle(), m.Gaps, m.Requests, again)
		var exit *ExitError
		if errors.As(err, &exit) && exit.Code == ExitNotFound {
			continue // nothing to judge in this scope (yet)
		}
		if err != nil {
			return err
		}
		l, err := t.walk(now, w.e.walkOptions())
		if err != nil {
			return err
		}
		for _, r := range l.Items {
			w.reports[keyOf(r.Namespace, r.Kind, r.Name)] = r
		}
		snaps = append(snaps, t.all()...)
	}
	if n, _ := w.reader.Conn().Ended(); n > w.outages {
		for ; w.outages < n; w.outages++ {
			w.sink.Error("unreachable")
		}
	}
	w.waiting = false
	reports := make([]chain.Report, 0, len(w.reports))
	for _, r := range w.reports {
		w.waiting = w.waiting || timeMayChange(r.Verdict)
		reports = append(reports, r)
	}
	w.sink.Judged(ctx, reports, snaps, now)
	return nil
}

// timeMayChange says time alone may change the verdict: progressing,
// unknown, or broken but not yet terminal (a grace runs out without any
// object changing).
func timeMayChange(v chain.Verdict) bool {
	return v.Health == chain.Progressing || v.Health == chain.Unknown || v.Health == chain.Broken && !v.Terminal
}

// inScope says namespace ns is in scope ("" for all namespaces).
func inScope(scope, ns string) bool { return scope == "" || scope == ns }

// drainForbidden counts and says the watches RBAC refused.
func (w *watcher) drainForbidden(m *kube.Mirror) {
	for {
		select {
		case what := <-m.Forbidden:
			w.sink.Error("forbidden")
			fmt.Fprintf(w.e.notes, "a watch was refused: %s\n", what)
		default:
			return
		}
	}
}
