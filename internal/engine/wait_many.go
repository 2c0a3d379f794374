package engine

import (
	"context"
	"time"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

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
		return e.follow(ctx, m, waitPace("the rollouts"), e.changed, e.mirror.Forbidden, false)
	}
	if !poll {
		forbidden = reader.WatchNamespace(ctx, ns, e.Selector, refs, changed)
	}
	return e.follow(ctx, m, waitPace("the rollouts"), changed, forbidden, poll)
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

func (m *manyWaiter) walk(_ context.Context, now time.Time, _ bool) (bool, error) {
	l, err := m.targets.walk(now, m.e.walkOptions())
	if err != nil {
		return false, err
	}
	m.list = l
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

func (m *manyWaiter) finish() error {
	// Who applied each revision that broke: read once, at the end.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	m.e.readOwners(ctx, m.reader, m.list)
	return m.e.sink.Reports(m.list, false)
}

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
