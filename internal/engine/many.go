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
	snaps []*chain.Snapshot
	// cuts are workloads of bundle, each cut into its snapshot only when
	// it is walked and dropped after: the pods of a cluster are then
	// copied for one workload at a time, not for all of them at once.
	// walked are the last walk's cuts, Shed of their evidence.
	bundle   *capture.Bundle
	cuts     []capture.Workload
	gaps     []chain.Gap
	walked   []*chain.Snapshot
	requests int
}

// walk judges every snapshot against now, or, when now is zero, at the
// snapshot's own time (a capture's).
func (t *targets) walk(now time.Time, opts diagnose.Options) (*chain.ReportList, error) {
	reports := make([]chain.Report, 0, len(t.snaps)+len(t.cuts))
	judge := func(s *chain.Snapshot) {
		if !now.IsZero() {
			s.Now = now
		}
		reports = append(reports, *diagnose.Walk(s, opts))
	}
	for _, s := range t.snaps {
		judge(s)
	}
	t.walked = t.walked[:0]
	for _, w := range t.cuts {
		s, err := t.cut(w)
		if err != nil {
			return nil, err
		}
		judge(s)
		t.walked = append(t.walked, s.Shed())
	}
	return chain.NewReportList(reports, t.requests), nil
}

// cut is a workload's snapshot from the bundle, with the bundle's gaps.
func (t *targets) cut(w capture.Workload) (*chain.Snapshot, error) {
	snap, err := t.bundle.Read(w.Namespace, w.Ref)
	if err != nil {
		return nil, err
	}
	snap.Gaps = append(snap.Gaps, t.gaps...)
	if t.bundle.EventsTargeted {
		snap.EventsOf = chain.EventTargets(snap)
	}
	return snap, nil
}

// all are the snapshots walked: those read whole and the last walk's
// cuts.
func (t *targets) all() []*chain.Snapshot {
	return append(slices.Clip(t.snaps), t.walked...)
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
	t := &targets{bundle: bundle, gaps: gaps, requests: requests}
	// Namespace, kind, then name, whatever order the API server listed
	// them in.
	for _, w := range sortedWorkloads(bundle, "", bundle.Traffic("")...) {
		if keep != nil && !keep(w) {
			continue
		}
		if chain.IsTraffic(w.Kind) && !e.selects(w.Object.GetLabels()) {
			continue // Gateways and Services are listed whole
		}
		if w.Kind == chain.KindJob && !e.selects(w.Object.GetLabels()) {
			continue // Jobs are listed whole, for the CronJobs' sake
		}
		t.cuts = append(t.cuts, w)
	}
	if len(t.cuts) == 0 {
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
