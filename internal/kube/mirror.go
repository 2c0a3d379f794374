package kube

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/util/watchlist"
	"k8s.io/utils/ptr"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/internal/capture"
)

// Mirror holds every workload of a scope (a namespace or all, a label
// selector or all) with the pods, ReplicaSets, events and the rest the walk
// needs, read with one request per resource, and, when followed, kept
// current by those same requests: each is a watch that first sends the
// objects that exist (a "watch-list", Kubernetes 1.27 and later, on by
// default since 1.34) and then their changes. So a whole cluster costs a
// fixed number of requests however many objects it holds, each object is
// decoded on its own (memory holds what is kept, never a whole list's
// response), and following it never lists again. A server that refuses
// watch-lists is read with paged lists, and followed by watches from where
// they left off.
type Mirror struct {
	mu     sync.Mutex
	stores map[string]*store
	// Gaps are the resources that could not be read; Requests what the
	// first read cost.
	Gaps     []chain.Gap
	Requests int
	// Forbidden reports a watch RBAC refuses while following; from then
	// on the mirror is stale.
	Forbidden chan string
	stale     bool
	// targeted says the events are those of each workload's
	// chain.EventTargets only.
	targeted bool
	// changes counts what changed the stores; bundle is the Bundle made
	// at bundleAt changes.
	changes  int
	bundle   *capture.Bundle
	bundleAt int
}

// Stale says a watch was refused: the mirror no longer follows the scope,
// which must be read anew.
func (m *Mirror) Stale() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stale
}

// store is one resource's objects in the order they came.
type store struct {
	keys []string
	vals map[string]any
}

func newStore() *store { return &store{vals: map[string]any{}} }

func (s *store) put(k string, v any) {
	if _, ok := s.vals[k]; !ok {
		s.keys = append(s.keys, k)
	}
	s.vals[k] = v
}

func (s *store) remove(k string) { delete(s.vals, k) }

// each visits the values in order, compacting deleted keys away.
func (s *store) each(f func(any)) {
	kept := s.keys[:0]
	for _, k := range s.keys {
		if v, ok := s.vals[k]; ok {
			kept = append(kept, k)
			f(v)
		}
	}
	s.keys = kept
}

// source is one resource a mirror reads.
type source struct {
	res      chain.Resource
	resource string // the API's name, for the watch
	list     func(context.Context, metav1.ListOptions) ([]runtime.Object, string, string, error)
	watch    func(context.Context, metav1.ListOptions) (watch.Interface, error)
	opts     metav1.ListOptions
	// keep turns an object into what the mirror holds, or says to drop it.
	keep func(runtime.Object) (any, bool)
}

// typed adapts a typed list call to a source.
func typed[L interface{ GetContinue() string }, T any, P interface {
	*T
	runtime.Object
}](list func(context.Context, metav1.ListOptions) (L, error), items func(L) []T, rv func(L) string) func(context.Context, metav1.ListOptions) ([]runtime.Object, string, string, error) {
	return func(ctx context.Context, o metav1.ListOptions) ([]runtime.Object, string, string, error) {
		l, err := list(ctx, o)
		if err != nil {
			return nil, "", "", err
		}
		all := items(l)
		out := make([]runtime.Object, len(all))
		for i := range all {
			out[i] = P(&all[i])
		}
		return out, l.GetContinue(), rv(l), nil
	}
}

// slim drops what no walk reads before the object is kept.
func slim(o runtime.Object) (any, bool) {
	if m, err := meta.Accessor(o); err == nil {
		m.SetManagedFields(nil)
		if a := m.GetAnnotations(); a != nil {
			delete(a, corev1.LastAppliedConfigAnnotation)
		}
	}
	switch v := o.(type) {
	case *appsv1.ControllerRevision:
		v.Data.Raw = nil
	case *corev1.Node:
		v.Status.Images = nil
	case *corev1.Event:
		if !relevantKinds[v.InvolvedObject.Kind] {
			return nil, false
		}
		return chain.EventFromCore(v), true
	}
	return o, true
}

func keyOf(o runtime.Object) string {
	m, err := meta.Accessor(o)
	if err != nil {
		return ""
	}
	return m.GetNamespace() + "/" + m.GetName()
}

// sources are the resources of a scope: the workloads first, then what
// they own (ReplicaSets only with Deployments, revisions, claims and nodes
// only with the StatefulSets or DaemonSets that need them).
func (r *Reader) workloadSources(ns, selector string) []source {
	apps, batch := r.Client.AppsV1(), r.Client.BatchV1()
	bySel := metav1.ListOptions{LabelSelector: selector}
	return []source{
		{chain.ResourceDeployments, "deployments", typed(apps.Deployments(ns).List, func(l *appsv1.DeploymentList) []appsv1.Deployment { return l.Items }, rvOf), apps.Deployments(ns).Watch, bySel, slim},
		{chain.ResourceStatefulSets, "statefulsets", typed(apps.StatefulSets(ns).List, func(l *appsv1.StatefulSetList) []appsv1.StatefulSet { return l.Items }, rvOf), apps.StatefulSets(ns).Watch, bySel, slim},
		{chain.ResourceDaemonSets, "daemonsets", typed(apps.DaemonSets(ns).List, func(l *appsv1.DaemonSetList) []appsv1.DaemonSet { return l.Items }, rvOf), apps.DaemonSets(ns).Watch, bySel, slim},
		{chain.ResourceCronJobs, "cronjobs", typed(batch.CronJobs(ns).List, func(l *batchv1.CronJobList) []batchv1.CronJob { return l.Items }, rvOf), batch.CronJobs(ns).Watch, bySel, slim},
		// Jobs all, since a CronJob's Jobs need not carry its labels.
		{chain.ResourceJobs, "jobs", typed(batch.Jobs(ns).List, func(l *batchv1.JobList) []batchv1.Job { return l.Items }, rvOf), batch.Jobs(ns).Watch, metav1.ListOptions{}, slim},
	}
}

func (r *Reader) ownedSources(ns string, deployments, sets, statefulSets, daemonSets bool) []source {
	apps, core := r.Client.AppsV1(), r.Client.CoreV1()
	all := metav1.ListOptions{}
	out := []source{
		{chain.ResourcePods, "pods", typed(core.Pods(ns).List, func(l *corev1.PodList) []corev1.Pod { return l.Items }, rvOf), core.Pods(ns).Watch, all, slim},
	}
	if deployments {
		out = append(out, source{chain.ResourceReplicaSets, "replicasets", typed(apps.ReplicaSets(ns).List, func(l *appsv1.ReplicaSetList) []appsv1.ReplicaSet { return l.Items }, rvOf), apps.ReplicaSets(ns).Watch, all, slim})
	}
	if sets {
		out = append(out, source{chain.ResourceControllerRevisions, "controllerrevisions", typed(apps.ControllerRevisions(ns).List, func(l *appsv1.ControllerRevisionList) []appsv1.ControllerRevision { return l.Items }, rvOf), apps.ControllerRevisions(ns).Watch, all, slim})
	}
	if statefulSets {
		out = append(out, source{chain.ResourceClaims, "persistentvolumeclaims", typed(core.PersistentVolumeClaims(ns).List, func(l *corev1.PersistentVolumeClaimList) []corev1.PersistentVolumeClaim { return l.Items }, rvOf), core.PersistentVolumeClaims(ns).Watch, all, slim})
	}
	if daemonSets {
		out = append(out, source{chain.ResourceNodes, "nodes", typed(core.Nodes().List, func(l *corev1.NodeList) []corev1.Node { return l.Items }, rvOf), core.Nodes().Watch, all, slim})
	}
	return out
}

func (r *Reader) eventSource(ns string) source {
	core := r.Client.CoreV1()
	return source{chain.ResourceEvents, "events", typed(core.Events(ns).List, func(l *corev1.EventList) []corev1.Event { return l.Items }, rvOf), core.Events(ns).Watch, metav1.ListOptions{}, slim}
}

func rvOf[L interface{ GetResourceVersion() string }](l L) string { return l.GetResourceVersion() }

// Mirror reads the scope; with follow, its watches stay open until ctx
// ends, applying each change and signalling changed (coalesced: give it a
// buffer of one).
func (r *Reader) Mirror(ctx context.Context, namespace, selector string, follow bool, changed chan<- struct{}) (*Mirror, error) {
	m := &Mirror{stores: map[string]*store{}, Forbidden: make(chan string, 16)}
	scope := "namespace " + namespace
	if namespace == "" {
		scope = "all namespaces"
	}
	first := r.workloadSources(namespace, selector)
	if err := m.read(ctx, r, first, follow, changed, scope, namespace); err != nil {
		return nil, err
	}
	m.mu.Lock()
	n := func(res string) bool { return len(m.stores[res].vals) > 0 }
	deps, sts, ds := n("deployments"), n("statefulsets"), n("daemonsets")
	m.mu.Unlock()
	// The objects the workloads own, and the first page of the events.
	var (
		wg    sync.WaitGroup
		probe pageOf
		evs   = r.eventSource(namespace)
	)
	wg.Go(func() { probe = probeEvents(ctx, evs) })
	err := m.read(ctx, r, r.ownedSources(namespace, deps, sts || ds, sts, ds), follow, changed, scope, namespace)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	if err := m.events(ctx, r, evs, probe, follow, changed, namespace); err != nil {
		return nil, err
	}
	return m, nil
}

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
// workload's chain.EventTargets read, by field selector (none for a
// workload whose pods are all ready), or, past maxTargetedReads, all of
// them. Followed, a watch from the first page's version brings the new
// ones.
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
		type target struct {
			ns string
			o  chain.ObjectRef
		}
		var targets []target
		b := m.Bundle()
		for _, w := range b.Workloads("") {
			if snap, err := b.Read(w.Namespace, w.Ref); err == nil {
				for _, o := range chain.EventTargets(snap) {
					targets = append(targets, target{w.Namespace, o})
				}
			}
		}
		// Every events read scans its namespace on the server (the API
		// server keeps no watch cache for events), a field-selected one as
		// much as a whole one: a namespace with more than two objects to
		// read about is read whole, as one watch-list, the others object
		// by object.
		byNS := map[string][]chain.ObjectRef{}
		for _, t := range targets {
			byNS[t.ns] = append(byNS[t.ns], t.o)
		}
		st = newStore()
		var mu sync.Mutex
		keep := func(o runtime.Object) {
			mu.Lock()
			defer mu.Unlock()
			if v, ok := s.keep(o); ok {
				st.put(keyOf(o), v)
			}
		}
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(16)
		for ns, objs := range byNS {
			if len(objs) > maxTargetsPerNamespace {
				whole := r.eventSource(ns)
				m.Requests++
				g.Go(func() error {
					all, _, _, n, err := r.initial(gctx, whole, false)
					mu.Lock()
					m.Requests += n - 1
					mu.Unlock()
					if err != nil {
						return err
					}
					mu.Lock()
					defer mu.Unlock()
					for _, k := range all.keys {
						if v, ok := all.vals[k]; ok {
							st.put(k, v)
						}
					}
					return nil
				})
				continue
			}
			for _, o := range objs {
				m.Requests++
				g.Go(func() error {
					l, err := r.Client.CoreV1().Events(ns).List(gctx, metav1.ListOptions{FieldSelector: eventsAbout(o)})
					if err != nil {
						return err
					}
					for i := range l.Items {
						keep(&l.Items[i])
					}
					return nil
				})
			}
		}
		if err := g.Wait(); err != nil {
			return settleEvents(m, err)
		}
		m.targeted = true
	}
	m.mu.Lock()
	m.stores[s.resource] = st
	m.changes++
	m.mu.Unlock()
	r.read.note(s.resource, p.rv)
	if follow {
		go m.follow(ctx, r, s, nil, p.rv, changed)
	}
	return nil
}

// settleEvents makes a failed events read a gap, as the other reads do.
func settleEvents(m *Mirror, err error) error {
	if !ctxAlive(err) {
		return err
	}
	m.Gaps = append(m.Gaps, chain.Gap{Resource: chain.ResourceEvents, Verb: "list", Forbidden: apierrors.IsForbidden(err), Message: err.Error()})
	m.mu.Lock()
	m.stores["events"] = newStore()
	m.changes++
	m.mu.Unlock()
	return nil
}

// eventsAbout is the field selector of the events about o.
func eventsAbout(o chain.ObjectRef) string {
	if o.UID != "" {
		return fields.OneTermEqualSelector("involvedObject.uid", string(o.UID)).String()
	}
	return fields.Set{"involvedObject.kind": o.Kind, "involvedObject.name": o.Name}.String()
}

// read reads the sources in parallel: one round trip.
func (m *Mirror) read(ctx context.Context, r *Reader, srcs []source, follow bool, changed chan<- struct{}, scope, ns string) error {
	type outcome struct {
		st       *store
		rv       string
		w        watch.Interface
		requests int
		err      error
	}
	outs := make([]outcome, len(srcs))
	var wg sync.WaitGroup
	for i, s := range srcs {
		wg.Go(func() {
			o := &outs[i]
			o.st, o.rv, o.w, o.requests, o.err = r.initial(ctx, s, follow)
		})
	}
	wg.Wait()
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, s := range srcs {
		o := outs[i]
		m.Requests += o.requests
		switch err := o.err; {
		case err == nil:
			m.stores[s.resource] = o.st
			m.changes++
			r.read.note(s.resource, o.rv)
			if follow {
				go m.follow(ctx, r, s, o.w, o.rv, changed)
			}
			continue
		case s.res == chain.ResourceDeployments && apierrors.IsForbidden(err):
			return &ForbiddenError{Namespace: ns, Message: err.Error(), Err: err, Check: canI("list", "deployments", ns)}
		case apierrors.IsForbidden(err):
			check := canI("list", string(s.res), ns)
			if s.res == chain.ResourceNodes {
				check = "kubectl auth can-i list nodes"
			}
			m.Gaps = append(m.Gaps, chain.Gap{Resource: s.res, Verb: "list", Forbidden: true, Message: err.Error(), Check: check})
		case s.res == chain.ResourceEvents && ctxAlive(err):
			m.Gaps = append(m.Gaps, chain.Gap{Resource: s.res, Verb: "list", Message: err.Error()})
		default:
			return fmt.Errorf("listing %s in %s: %w", s.res, scope, err)
		}
		m.stores[s.resource] = newStore()
		m.changes++
	}
	return nil
}

// initial reads what exists of one source: as a watch-list when the
// client and server allow, else page by page. With follow, a watch-list's
// watch is returned open.
func (r *Reader) initial(ctx context.Context, s source, follow bool) (*store, string, watch.Interface, int, error) {
	spent := 0
	if !watchlist.DoesClientNotSupportWatchListSemantics(r.Client) {
		st, rv, w, err := watchList(ctx, s)
		switch {
		case err == nil:
			if !follow {
				w.Stop()
				w = nil
			}
			return st, rv, w, 1, nil
		case !ctxAlive(err):
			return nil, "", nil, 1, err
		}
		// Refused (an older server, the feature off, watch not granted):
		// the paged list, one request more.
		spent = 1
	}
	st, rv, _, n, err := r.pagedList(ctx, s)
	return st, rv, nil, n + spent, err
}

func (r *Reader) pagedList(ctx context.Context, s source) (*store, string, watch.Interface, int, error) {
	st := newStore()
	rv := ""
	requests := 0
	err := paged(ctx, &requests, s.opts, func(o metav1.ListOptions) (string, error) {
		items, next, v, err := s.list(ctx, o)
		if err != nil {
			return "", err
		}
		for _, it := range items {
			if v, ok := s.keep(it); ok {
				st.put(keyOf(it), v)
			}
		}
		rv = v
		return next, nil
	})
	return st, rv, nil, requests, err
}

// watchList opens a watch that sends the existing objects first and ends
// them with a bookmark; it returns them, the bookmark's resource version
// and the watch, still open.
func watchList(ctx context.Context, s source) (*store, string, watch.Interface, error) {
	o := s.opts
	o.SendInitialEvents = ptr.To(true)
	o.ResourceVersionMatch = metav1.ResourceVersionMatchNotOlderThan
	o.AllowWatchBookmarks = true
	w, err := s.watch(ctx, o)
	if err != nil {
		return nil, "", nil, err
	}
	st := newStore()
	for {
		select {
		case <-ctx.Done():
			w.Stop()
			return nil, "", nil, ctx.Err()
		case ev, ok := <-w.ResultChan():
			if !ok {
				return nil, "", nil, errors.New("the watch closed before the existing objects were sent")
			}
			switch ev.Type {
			case watch.Added, watch.Modified:
				if v, ok := s.keep(ev.Object); ok {
					st.put(keyOf(ev.Object), v)
				}
			case watch.Deleted:
				st.remove(keyOf(ev.Object))
			case watch.Bookmark:
				m, err := meta.Accessor(ev.Object)
				if err == nil && m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true" {
					return st, m.GetResourceVersion(), w, nil
				}
			case watch.Error:
				w.Stop()
				return nil, "", nil, apierrors.FromObject(ev.Object)
			}
		}
	}
}

// follow applies a source's changes from w (or a watch it opens from rv)
// until ctx ends, reopening closed watches where they left off and
// reading the source anew when that is too old (410 Gone).
func (m *Mirror) follow(ctx context.Context, r *Reader, s source, w watch.Interface, rv string, changed chan<- struct{}) {
	for ctx.Err() == nil {
		if w == nil {
			o := s.opts
			o.ResourceVersion, o.AllowWatchBookmarks = rv, true
			var err error
			w, err = s.watch(ctx, o)
			switch {
			case apierrors.IsForbidden(err):
				m.mu.Lock()
				m.stale = true
				m.mu.Unlock()
				m.Forbidden <- fmt.Sprintf("cannot watch %s (check: %s)", s.resource, canI("watch", s.resource, ""))
				return
			case apierrors.IsResourceExpired(err) || apierrors.IsGone(err):
				rv = m.restart(ctx, r, s, changed)
				continue
			case err != nil:
				sleep(ctx, watchRetry)
				continue
			}
		}
		var gone bool
		rv, gone = m.apply(ctx, s, w, rv, changed)
		w.Stop()
		w = nil
		if gone {
			rv = m.restart(ctx, r, s, changed)
		}
	}
}

// restart reads a source anew and swaps its store in whole, so objects
// deleted while the watch was behind do not linger.
func (m *Mirror) restart(ctx context.Context, r *Reader, s source, changed chan<- struct{}) string {
	st, rv, _, _, err := r.pagedList(ctx, s)
	if err != nil {
		sleep(ctx, watchRetry)
		return ""
	}
	m.mu.Lock()
	m.stores[s.resource] = st
	m.changes++
	m.mu.Unlock()
	signal(changed)
	return rv
}

// apply applies a watch's events until it closes; gone says it ended
// with 410 Gone.
func (m *Mirror) apply(ctx context.Context, s source, w watch.Interface, rv string, changed chan<- struct{}) (string, bool) {
	for {
		select {
		case <-ctx.Done():
			return rv, false
		case ev, ok := <-w.ResultChan():
			if !ok {
				return rv, false
			}
			if ev.Type == watch.Error {
				st := apierrors.FromObject(ev.Object)
				return rv, apierrors.IsResourceExpired(st) || apierrors.IsGone(st)
			}
			if a, err := meta.Accessor(ev.Object); err == nil && a.GetResourceVersion() != "" {
				rv = a.GetResourceVersion()
			}
			if ev.Type == watch.Bookmark {
				continue
			}
			m.mu.Lock()
			m.changes++
			k := keyOf(ev.Object)
			if ev.Type == watch.Deleted {
				m.stores[s.resource].remove(k)
			} else if v, ok := s.keep(ev.Object); ok {
				m.stores[s.resource].put(k, v)
			}
			m.mu.Unlock()
			signal(changed)
		}
	}
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// Bundle is the mirror's content now, for the walk. It is made once per
// change: callers must not modify it.
func (m *Mirror) Bundle() *capture.Bundle {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.bundle != nil && m.bundleAt == m.changes {
		return m.bundle
	}
	b := &capture.Bundle{Skipped: map[string]int{}, EventsTargeted: m.targeted}
	for res, st := range m.stores {
		n := len(st.vals)
		switch res {
		case "pods":
			b.Pods = make([]corev1.Pod, 0, n)
		case "events":
			b.Events = make([]chain.Event, 0, n)
		case "replicasets":
			b.ReplicaSets = make([]appsv1.ReplicaSet, 0, n)
		case "deployments":
			b.Deployments = make([]appsv1.Deployment, 0, n)
		}
		st.each(func(v any) {
			switch o := v.(type) {
			case *appsv1.Deployment:
				b.Deployments = append(b.Deployments, *o)
			case *appsv1.StatefulSet:
				b.StatefulSets = append(b.StatefulSets, *o)
			case *appsv1.DaemonSet:
				b.DaemonSets = append(b.DaemonSets, *o)
			case *batchv1.Job:
				b.Jobs = append(b.Jobs, *o)
			case *batchv1.CronJob:
				b.CronJobs = append(b.CronJobs, *o)
			case *appsv1.ReplicaSet:
				b.ReplicaSets = append(b.ReplicaSets, *o)
			case *appsv1.ControllerRevision:
				b.Revisions = append(b.Revisions, *o)
			case *corev1.PersistentVolumeClaim:
				b.Claims = append(b.Claims, *o)
			case *corev1.Node:
				b.Nodes = append(b.Nodes, *o)
			case *corev1.Pod:
				b.Pods = append(b.Pods, *o)
			case chain.Event:
				b.Events = append(b.Events, o)
			}
		})
	}
	m.bundle, m.bundleAt = b, m.changes
	return b
}
