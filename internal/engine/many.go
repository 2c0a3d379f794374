package engine

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/diagnose"
	"github.com/kubectl-chain/kubectl-chain/internal/capture"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

// many says the command judges several workloads: more than one name, a
// label selector, --all or --all-namespaces.
func (e *Engine) many() bool {
	return len(e.refs) > 1 || e.All || e.Selector != "" || e.AllNamespaces || e.release != nil
}

// targets is one read of every workload judged, from any source.
type targets struct {
	snaps    []*chain.Snapshot
	requests int
}

// walk judges every snapshot against now, or, when now is zero, at the
// snapshot's own time (a capture's).
func (t *targets) walk(now time.Time, opts diagnose.Options) *chain.ReportList {
	reports := make([]chain.Report, 0, len(t.snaps))
	for _, s := range t.snaps {
		if !now.IsZero() {
			s.Now = now
		}
		reports = append(reports, *diagnose.Walk(s, opts))
	}
	return chain.NewReportList(reports, t.requests)
}

// readTargets reads every target. Named targets cost 4 requests each; a
// selector, --all or -A reads the scope with one paged list per kind, so the
// cost does not grow with the number of Deployments.
func (e *Engine) readTargets(ctx context.Context, reader *kube.Reader) (*targets, error) {
	if e.release != nil {
		return e.readRelease(ctx, reader)
	}
	t := &targets{}
	if len(e.refs) > 0 {
		for _, ref := range e.refs {
			snap, err := reader.Read(ctx, e.Namespace, ref)
			if err != nil {
				return nil, err
			}
			t.requests += snap.Requests
			snap.Via = e.via[ref]
			t.snaps = append(t.snaps, snap)
		}
		return t, nil
	}
	bundle, gaps, requests, err := reader.Many(ctx, e.scope(), e.Selector)
	if err != nil {
		return nil, err
	}
	return e.targetsOf(bundle, gaps, requests)
}

// targetsOf are the workloads of a bundle read for a selector, --all or
// -A.
func (e *Engine) targetsOf(bundle *capture.Bundle, gaps []chain.Gap, requests int) (*targets, error) {
	return e.targetsWhere(bundle, gaps, requests, nil)
}

// targetsWhere is targetsOf of the workloads keep keeps (all when nil):
// serve judges again only those whose objects changed.
func (e *Engine) targetsWhere(bundle *capture.Bundle, gaps []chain.Gap, requests int, keep func(capture.Workload) bool) (*targets, error) {
	t := &targets{requests: requests}
	// Namespace, kind, then name, whatever order the API server listed
	// them in.
	for _, w := range sortedWorkloads(bundle, "", bundle.Traffic("")...) {
		if keep != nil && !keep(w) {
			continue
		}
		if chain.IsTraffic(w.Kind) && !e.selects(w.Object.GetLabels()) {
			continue // Gateways and Services are listed whole
		}
		snap, err := bundle.Read(w.Namespace, w.Ref)
		if err != nil {
			return nil, err
		}
		if w.Kind == chain.KindJob && !e.selects(snap.Job.Labels) {
			continue // Jobs are listed whole, for the CronJobs' sake
		}
		snap.Gaps = append(snap.Gaps, gaps...)
		if bundle.EventsTargeted {
			snap.EventsOf = chain.EventTargets(snap)
		}
		t.snaps = append(t.snaps, snap)
	}
	if len(t.snaps) == 0 {
		where := "namespace " + e.Namespace
		if e.AllNamespaces {
			where = "any namespace"
		}
		if e.Selector != "" {
			where += " matching " + e.Selector
		}
		return nil, &ExitError{Code: ExitNotFound, Err: fmt.Errorf("no Deployments, StatefulSets, DaemonSets, Jobs, CronJobs, Argo Rollouts, Ingresses, Gateways or routes in %s", where)}
	}
	return t, nil
}

// sortedWorkloads are the bundle's workloads of namespace ("" for all),
// with more (its traffic objects), by namespace, kind and name, whatever
// order they were listed or written in.
func sortedWorkloads(b *capture.Bundle, namespace string, more ...capture.Workload) []capture.Workload {
	all := append(b.Workloads(namespace), more...)
	order := append(slices.Clone(chain.Kinds), chain.TrafficKinds()...)
	slices.SortFunc(all, func(a, b capture.Workload) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), cmp.Compare(slices.Index(order, a.Kind), slices.Index(order, b.Kind)),
			strings.Compare(a.Name, b.Name))
	})
	return all
}

// scope is the namespace read: "" for all namespaces.
func (e *Engine) scope() string {
	if e.AllNamespaces {
		return ""
	}
	return e.Namespace
}

// followMany follows several targets until each is healthy or terminally
// broken, or the timeout. A selector, --all or -A is followed by a mirror
// of its scope: the watches its first read opened stay open and every
// change is applied to what was read, so following costs no request after
// the first read, whatever the cluster's size. Named workloads are
// followed with watches on their namespace, re-read on each change; a
// release over several namespaces is re-read every pollEvery.
func (e *Engine) followMany(ctx context.Context, reader *kube.Reader, t *targets) error {
	ctx, cancel := context.WithTimeout(ctx, e.Timeout)
	defer cancel()
	m := &manyWaiter{e: e, reader: reader, targets: t, start: e.now()}
	e.conn = reader.Conn()
	changed := make(chan struct{}, 1)
	var forbidden <-chan string
	ns, refs, poll := e.Namespace, e.refs, false
	switch r := e.release; {
	case r != nil:
		// One namespace is watched; a release over several is re-read.
		ns, refs, poll = r.namespaces[0], r.refs[r.namespaces[0]], len(r.namespaces) > 1
	case e.mirror != nil:
		m.mirror = e.mirror
		return e.follow(ctx, m, "the rollouts", e.changed, e.mirror.Forbidden, false)
	}
	if !poll {
		forbidden = reader.WatchNamespace(ctx, ns, e.Selector, refs, changed)
	}
	return e.follow(ctx, m, "the rollouts", changed, forbidden, poll)
}

// manyWaiter follows several rollouts, handing the sink their progress at
// every walk.
type manyWaiter struct {
	e       *Engine
	reader  *kube.Reader
	targets *targets
	// mirror, when set, holds the scope current: reading it costs no
	// request.
	mirror *kube.Mirror
	list   *chain.ReportList // the last walk's
	start  time.Time
}

func (m *manyWaiter) walk(now time.Time) (bool, error) {
	m.list = m.targets.walk(now, m.e.walkOptions())
	if allDone(m.list) || anyHopeless(m.list) {
		return true, nil
	}
	return false, m.e.sink.Progress(m.list, false, now.Sub(m.start))
}

func (m *manyWaiter) read(ctx context.Context) error {
	if m.mirror != nil && !m.mirror.Stale() {
		t, err := m.e.targetsOf(m.mirror.Bundle(), m.mirror.Gaps, m.targets.requests)
		if err == nil {
			m.targets = t
		}
		return err
	}
	t, err := m.e.readTargets(ctx, m.reader)
	if err == nil {
		m.targets = t
	}
	return err
}

func (m *manyWaiter) finish() error { return m.e.sink.Reports(m.list, false) }

func (m *manyWaiter) clear() { m.e.sink.Clear() }

// anyHopeless says one of them is terminally broken: the gate's verdict
// is broken whatever the others do, so waiting for them would only hold
// it to its timeout (a release whose Deployment cannot pull while a
// claim beside it is still pending).
func anyHopeless(l *chain.ReportList) bool {
	for i := range l.Items {
		if v := l.Items[i].Verdict; v.Health == chain.Broken && v.Terminal {
			return true
		}
	}
	return false
}

func allDone(l *chain.ReportList) bool {
	for i := range l.Items {
		if !done(&l.Items[i]) {
			return false
		}
	}
	return true
}
