package kube

import (
	"context"
	"maps"
	"slices"

	"golang.org/x/sync/errgroup"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// maxTargetsPerNamespace is how many objects' events a namespace too busy
// to list whole has read one by one; past it, the namespace is read whole.
const maxTargetsPerNamespace = 2

// pageOf is the first page of a list.
type pageOf struct {
	st      *store
	rv      string
	partial bool
	err     error
}

func probeEvents(ctx context.Context, s source) pageOf {
	o := s.opts
	o.Limit = eventsProbe
	items, next, rv, err := s.list(ctx, o)
	p := pageOf{st: newStore(), rv: rv, partial: next != "", err: err}
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
func (m *Mirror) events(ctx context.Context, r *Reader, s source, p pageOf, follow bool, changed chan<- struct{}, ns string) error {
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
				parts[i], spent[i], err = r.namespaceEvents(gctx, s, ns, byNS[ns])
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

// namespaceEvents reads the events about objs in namespace ns. Every
// events read scans its namespace on the server (the API server keeps no
// watch cache for events), a field-selected one as much as a whole one: a
// namespace with more than maxTargetsPerNamespace objects to read about is
// read whole, as one watch-list, the others object by object. It returns
// what it kept and how many requests it spent.
func (r *Reader) namespaceEvents(ctx context.Context, s source, ns string, objs []chain.ObjectRef) (*store, int, error) {
	if len(objs) > maxTargetsPerNamespace {
		st, _, _, n, err := r.initial(ctx, r.eventSource(ns), false)
		return st, n, err
	}
	evs, err := r.eventsOf(ctx, ns, objs)
	st := newStore()
	for i := range evs {
		if v, ok := s.keep(&evs[i]); ok {
			st.put(keyOf(&evs[i]), v)
		}
	}
	return st, len(objs), err
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
