package kube

import (
	"cmp"
	"context"
	"maps"
	"slices"

	"golang.org/x/sync/errgroup"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// maxTargetsPerNamespace is how many objects' events a namespace too busy
// to list whole has read one by one by field selector (each read scans the
// namespace on the server); past it, the namespace is read whole.
// maxSoughtPerNamespace is the same when the server seeks (seekEvents),
// each read then costing what the object's own events do; past
// maxSoughtWorkloads unready workloads (each a few objects), a namespace
// is read whole beside the pods.
const (
	maxTargetsPerNamespace = 2
	maxSoughtPerNamespace  = 256
	maxSoughtWorkloads     = maxSoughtPerNamespace / 4
)

// pageOf is the first page of a list.
type pageOf struct {
	st      *store
	rv      string
	partial bool
	err     error
	// last is the page's last event; seeks says the server found it
	// again by its name (canSeek).
	last  types.NamespacedName
	seeks bool
}

func probeEvents(ctx context.Context, s source) pageOf {
	o := s.opts
	o.Limit = eventsProbe
	items, next, rv, err := s.list(ctx, o)
	p := pageOf{st: newStore(), rv: rv, partial: next != "", err: err}
	if len(items) > 0 {
		if m, err := meta.Accessor(items[len(items)-1]); err == nil {
			p.last = types.NamespacedName{Namespace: m.GetNamespace(), Name: m.GetName()}
		}
	}
	for _, it := range items {
		if v, ok := s.keep(it); ok {
			p.st.put(keyOf(it), v)
		}
	}
	return p
}

// events settles the scope's events from their first page: a scope that
// holds no more is done; a busier one has only the events of each
// workload's chain.EventTargets read (none for a workload whose pods are
// all ready), namespace by namespace (namespaceEvents). Followed, a watch
// from the first page's version brings the new ones.
func (m *Mirror) events(ctx context.Context, r *Reader, s source, p pageOf, early map[string]wholeRead, follow bool, changed chan<- struct{}, ns string) error {
	m.Requests++
	switch {
	case p.err != nil && apierrors.IsForbidden(p.err):
		m.Gaps = append(m.Gaps, chain.Gap{Resource: s.res, Verb: "list", Forbidden: true, Message: p.err.Error(), Check: canI("list", "events", ns)})
		return nil
	case p.err != nil && ctxAlive(p.err):
		m.Gaps = append(m.Gaps, chain.Gap{Resource: s.res, Verb: "list", Message: p.err.Error()})
		return nil
	case p.err != nil:
		return p.err
	}
	st := p.st
	if p.partial {
		byNS := map[string][]chain.ObjectRef{}
		b := m.Bundle()
		for _, w := range b.Workloads("") {
			if _, read := early[w.Namespace]; read {
				continue
			}
			if snap, err := b.Read(w.Namespace, w.Ref); err == nil {
				if targets := chain.EventTargets(snap); len(targets) > 0 {
					byNS[w.Namespace] = append(byNS[w.Namespace], targets...)
				}
			}
		}
		namespaces := slices.Sorted(maps.Keys(byNS))
		parts, spent := make([]*store, len(namespaces)), make([]int, len(namespaces))
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(16)
		for i, ns := range namespaces {
			g.Go(func() error {
				var err error
				parts[i], spent[i], err = r.namespaceEvents(gctx, s, ns, byNS[ns], p)
				return err
			})
		}
		err := g.Wait()
		st = newStore()
		for i := range parts {
			m.Requests += spent[i]
			if parts[i] != nil {
				st.merge(parts[i])
			}
		}
		for _, ns := range slices.Sorted(maps.Keys(early)) {
			w := early[ns]
			m.Requests += w.requests
			err = cmp.Or(err, w.err)
			if w.st != nil {
				st.merge(w.st)
			}
		}
		if err != nil {
			return settleEvents(m, err)
		}
		m.targeted = true
	}
	m.mu.Lock()
	m.stores[s.resource] = st
	m.touched("")
	m.mu.Unlock()
	r.read.note(s.resource, p.rv)
	if follow {
		go m.follow(ctx, r, s, nil, p.rv, changed)
	}
	return nil
}

// namespaceEvents reads the events about objs in namespace ns. When the
// server seeks (p.seeks), each object's events are sought by name, up to
// maxSoughtPerNamespace objects. Else every events read scans its
// namespace on the server (the API server keeps no watch cache for
// events), a field-selected one as much as a whole one, and past
// maxTargetsPerNamespace objects the namespace is read whole, as one
// watch-list. It returns what it kept and how many requests it spent.
func (r *Reader) namespaceEvents(ctx context.Context, s source, ns string, objs []chain.ObjectRef, p pageOf) (*store, int, error) {
	rv, most := "", maxTargetsPerNamespace
	if p.seeks {
		rv, most = p.rv, maxSoughtPerNamespace
	}
	if len(objs) > most {
		st, _, _, n, err := r.initial(ctx, r.eventSource(ns), false)
		return st, n, err
	}
	evs, n, err := r.eventsOf(ctx, ns, objs, rv)
	st := newStore()
	for i := range evs {
		if v, ok := s.keep(&evs[i]); ok {
			st.put(keyOf(&evs[i]), v)
		}
	}
	return st, n, err
}

// settleEvents makes a failed events read a gap, as the other reads do.
func settleEvents(m *Mirror, err error) error {
	if !ctxAlive(err) {
		return err
	}
	m.Gaps = append(m.Gaps, chain.Gap{Resource: chain.ResourceEvents, Verb: "list", Forbidden: apierrors.IsForbidden(err), Message: err.Error()})
	m.mu.Lock()
	m.stores["events"] = newStore()
	m.touched("")
	m.mu.Unlock()
	return nil
}

// wholeRead is a namespace's events read whole.
type wholeRead struct {
	st       *store
	requests int
	err      error
}

// busyNamespaces are the namespaces where more than most workloads say
// by their own status that they are not all ready or not done: those
// whose events would be read whole anyway once their pods are read,
// unless their pods say otherwise.
func (m *Mirror) busyNamespaces(most int) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	count := map[string]int{}
	for _, row := range chain.KindTable() {
		if row.Class != chain.ClassWorkload {
			continue
		}
		for _, o := range objects(m.stores[row.Kind.Plural()]) {
			if unsettled(o) {
				count[o.GetNamespace()]++
			}
		}
	}
	var out []string
	for ns, n := range count {
		if n > most {
			out = append(out, ns)
		}
	}
	slices.Sort(out)
	return out
}

// unsettled says a workload's status shows pods not ready, not updated or
// failed, or a spec its controller has not seen yet. Kinds it does not
// know are settled: it only chooses what to read early.
func unsettled(o metav1.Object) bool {
	switch w := o.(type) {
	case *appsv1.Deployment:
		want := ptr.Deref(w.Spec.Replicas, 1)
		return w.Status.ObservedGeneration < w.Generation || w.Status.AvailableReplicas < want || w.Status.UpdatedReplicas < want || w.Status.UnavailableReplicas > 0
	case *appsv1.StatefulSet:
		want := ptr.Deref(w.Spec.Replicas, 1)
		return w.Status.ObservedGeneration < w.Generation || w.Status.ReadyReplicas < want || w.Status.UpdatedReplicas < want
	case *appsv1.DaemonSet:
		return w.Status.ObservedGeneration < w.Generation || w.Status.NumberUnavailable > 0 || w.Status.NumberReady < w.Status.DesiredNumberScheduled
	case *batchv1.Job:
		return w.Status.Failed > 0
	case *chain.Rollout:
		// The controller's phase (Argo Rollouts v1.0 and later), else
		// its counts.
		if w.Status.Phase != "" {
			return w.Status.Phase != "Healthy"
		}
		want := ptr.Deref(w.Spec.Replicas, 1)
		return w.Status.AvailableReplicas < want || w.Status.UpdatedReplicas < want
	}
	return false
}

// canSeek says the server seeks a namespace's events by name at the
// probe's revision (seekEvents): one request, for the probe's last event,
// which must come back first (a server that ignores the token starts
// again at the page's first).
func (r *Reader) canSeek(ctx context.Context, p pageOf) bool {
	if !p.partial || p.last.Name == "" || revisionOf(p.rv) == 0 {
		return false
	}
	opts := metav1.ListOptions{Limit: 1, Continue: startAt(p.last.Name, revisionOf(p.rv))}
	l, _, ok := r.soughtPage(ctx, p.last.Namespace, opts, p.last.Name)
	return ok && len(l.Items) == 1 && l.Items[0].Name == p.last.Name
}

// speculate reads the events of namespaces whole, in parallel (at most 16
// at a time), while the pods are read.
func (r *Reader) speculate(ctx context.Context, namespaces []string) map[string]wholeRead {
	if len(namespaces) == 0 {
		return nil
	}
	out := make([]wholeRead, len(namespaces))
	var g errgroup.Group
	g.SetLimit(16)
	for i, ns := range namespaces {
		g.Go(func() error {
			w := &out[i]
			w.st, _, _, w.requests, w.err = r.initial(ctx, r.eventSource(ns), false)
			return nil
		})
	}
	_ = g.Wait()
	m := make(map[string]wholeRead, len(namespaces))
	for i, ns := range namespaces {
		m[ns] = out[i]
	}
	return m
}
