package kube

import (
	"context"
	"fmt"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"golang.org/x/sync/errgroup"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// listed is one list's outcome: what it returned, how many requests it
// spent (counted even when they failed) and its error.
type listed[T any] struct {
	items    []T
	requests int
	err      error
	rv       string // the list's resource version
	// partial says the list stopped at its first page: the namespace
	// holds more events than eventsProbe.
	partial bool
	// next is the continue token of the events' pages firstEvents left
	// for restOfEvents.
	next string
}

// eventsProbe is how many events one read takes. A namespace that holds
// more (a busy one holds tens of thousands) is not listed whole: only the
// events of the objects that can change the verdict are read, each sought
// by its name (seekEvents) or else with a field selector
// (chain.EventTargets), and a workload whose pods are all ready needs none.
const eventsProbe = 500

// selectorOf is a Deployment's (or Rollout's) label selector, refusing the nil and empty
// ones: as a list option they would select every object of the namespace,
// which is neither what the Deployment owns nor within budget. The API server
// rejects such Deployments, so this guards against odd fakes and captures.
func selectorOf(kind chain.Kind, s *metav1.LabelSelector) (labels.Selector, error) {
	if s == nil {
		return nil, fmt.Errorf("%s has no spec.selector", kind.Resource())
	}
	if len(s.MatchLabels)+len(s.MatchExpressions) == 0 {
		return nil, fmt.Errorf("%s has an empty spec.selector", kind.Resource())
	}
	return metav1.LabelSelectorAsSelector(s)
}

func (r *Reader) listReplicaSets(ctx context.Context, ns string, opts metav1.ListOptions) listed[appsv1.ReplicaSet] {
	l, err := r.Client.AppsV1().ReplicaSets(ns).List(ctx, opts)
	if err != nil {
		return listed[appsv1.ReplicaSet]{requests: 1, err: err}
	}
	return listed[appsv1.ReplicaSet]{items: l.Items, requests: 1, rv: l.ResourceVersion}
}

func (r *Reader) listPods(ctx context.Context, ns string, opts metav1.ListOptions) listed[corev1.Pod] {
	l, err := r.Client.CoreV1().Pods(ns).List(ctx, opts)
	if err != nil {
		return listed[corev1.Pod]{requests: 1, err: err}
	}
	return listed[corev1.Pod]{items: l.Items, requests: 1, rv: l.ResourceVersion}
}

// listEvents lists the namespace's core/v1 events page by page. The core/v1
// API also serves events written through events.k8s.io/v1 (one storage), so
// one list sees both kinds and no second API is ever tried, even when this
// one is forbidden. Events are reduced to the kinds a snapshot can concern as
// each page arrives, so a busy namespace's events are not all kept in memory.
//
// Like client-go's pager, a continue token that expired between pages
// (410 Gone) restarts as one unpaged list; that is one more request.
func (r *Reader) listEvents(ctx context.Context, ns string, base metav1.ListOptions) listed[chain.Event] {
	var out listed[chain.Event]
	opts := base
	probe := r.EventsPageSize <= 0
	opts.Limit = eventsProbe
	if !probe {
		opts.Limit = r.EventsPageSize
	}
	for {
		l, err := r.Client.CoreV1().Events(ns).List(ctx, opts)
		out.requests++
		if err != nil && apierrors.IsResourceExpired(err) && opts.Continue != "" {
			out.items = nil
			opts.Limit, opts.Continue = 0, ""
			l, err = r.Client.CoreV1().Events(ns).List(ctx, opts)
			out.requests++
		}
		if err != nil {
			out.items, out.err = nil, err
			return out
		}
		out.items = appendRelevantKinds(out.items, l.Items)
		out.rv = l.ResourceVersion
		if l.Continue == "" || opts.Limit == 0 {
			return out
		}
		if probe {
			out.partial = true
			return out
		}
		opts.Continue = l.Continue
	}
}

// eventsFirst is how many events the events' first page takes, asked for
// with the workload, before its pods are read. A namespace that holds no
// more is read by it; one that holds up to eventsProbe, as the page's
// remainingItemCount says, has the rest read beside the pods; one that
// holds more is busy, and has only its targets' events sought once the
// pods are read (targetedEvents). The page is small, so that a busy
// namespace's costs little: the fill cluster's first 500 events were 275
// KB, most of the difference from a quiet namespace.
const eventsFirst = 50

// eventsAsync reads the namespace's events' first page (or, with
// EventsPageSize, all its pages) while the workload is read.
func (r *Reader) eventsAsync(ctx context.Context, ns string) <-chan listed[chain.Event] {
	ch := make(chan listed[chain.Event], 1)
	go func() {
		if r.EventsPageSize > 0 {
			ch <- r.listEvents(ctx, ns, metav1.ListOptions{})
			return
		}
		ch <- r.firstEvents(ctx, ns)
	}()
	return ch
}

// firstEvents is the events' first page. Its next is the token of the
// rest, when there is a rest to read: not when the page holds all, nor
// when its remainingItemCount says the namespace holds more than
// eventsProbe (partial then says it is busy).
func (r *Reader) firstEvents(ctx context.Context, ns string) listed[chain.Event] {
	l, err := r.Client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{Limit: eventsFirst})
	if err != nil {
		return listed[chain.Event]{requests: 1, err: err}
	}
	out := listed[chain.Event]{items: appendRelevantKinds(nil, l.Items), requests: 1, rv: l.ResourceVersion}
	out.partial = l.Continue != ""
	if out.partial && (l.RemainingItemCount == nil || int64(len(l.Items))+*l.RemainingItemCount <= eventsProbe) {
		out.next = l.Continue
	}
	return out
}

// restOfEvents reads, beside the pods, the page after the first (first's
// next) of eventsProbe events: what a namespace the first page did not
// say was busy holds. It stays partial when the namespace holds more (a
// server that does not count what is left). A token that expired (410
// Gone) has the namespace's events probed again from the first.
func (r *Reader) restOfEvents(ctx context.Context, ns string, first listed[chain.Event]) listed[chain.Event] {
	l, err := r.Client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{Limit: eventsProbe, Continue: first.next})
	if err != nil && apierrors.IsResourceExpired(err) {
		again := r.listEvents(ctx, ns, metav1.ListOptions{})
		again.requests += first.requests + 1
		return again
	}
	out := first
	out.requests++
	out.next = ""
	if err != nil {
		out.items, out.err = nil, err
		return out
	}
	out.items = appendRelevantKinds(out.items, l.Items)
	out.partial = l.Continue != ""
	return out
}

// besidePods is what a workload's read does with the events beside its
// pods: the first page, and the rest or the window it leaves to read.
type besidePods struct {
	r   *Reader
	evs listed[chain.Event] // the first page, then with the rest
	win *window
}

// eventsBesidePods starts, with wg, the events' reads that go beside the
// pods once the first page (first) is in: the rest of a namespace that
// holds up to eventsProbe events, or the window of a busy one's.
func (r *Reader) eventsBesidePods(ctx context.Context, wg *sync.WaitGroup, snap *chain.Snapshot, first <-chan listed[chain.Event]) *besidePods {
	b := &besidePods{r: r, evs: <-first}
	b.win = r.windowAsync(ctx, wg, snap, b.evs)
	if b.evs.next != "" {
		wg.Go(func() { b.evs = r.restOfEvents(ctx, snap.Namespace, b.evs) })
	}
	return b
}

// read is the events of the snapshot once wg is done: all of a namespace
// that holds up to eventsProbe, else its targets' (targetedEvents), when
// assemble, which assembles the snapshot's objects, is not nil (the pods
// were read).
func (b *besidePods) read(ctx context.Context, snap *chain.Snapshot, assemble func()) listed[chain.Event] {
	evs := b.evs
	if !evs.partial || assemble == nil {
		if b.win != nil {
			evs.requests += b.win.requests
		}
		return evs
	}
	assemble()
	t := b.r.targetedEvents(ctx, snap, evs.rv, b.win)
	t.requests += evs.requests
	t.rv = evs.rv
	return t
}

// windowAsync reads, beside the pods (wg), the window of the workload's
// pods' events (readWindow) when the events' first page says the
// namespace is busy and the workload's status says it is not settled; nil
// otherwise (a settled workload's pods are ready and need no events).
func (r *Reader) windowAsync(ctx context.Context, wg *sync.WaitGroup, snap *chain.Snapshot, first listed[chain.Event]) *window {
	w, at := snap.Workload(), revisionOf(first.rv)
	if !first.partial || first.next != "" || first.err != nil || at == 0 || w == nil || !unsettled(w) {
		return nil
	}
	out := &window{}
	wg.Go(func() { *out = *r.readWindow(ctx, snap.Namespace, w, at) })
	return out
}

// targetedEvents reads the events of each of the snapshot's
// chain.EventTargets: those the window holds from it, the others sought
// from the namespace's events at revision rv (that of their first page);
// the snapshot's objects must be assembled. It records the targets on the
// snapshot.
func (r *Reader) targetedEvents(ctx context.Context, snap *chain.Snapshot, rv string, w *window) listed[chain.Event] {
	targets := chain.EventTargets(snap)
	snap.EventsOf = targets
	var held []corev1.Event
	var rest []chain.ObjectRef
	for _, o := range targets {
		if w.holds(o) {
			held = append(held, w.of(o)...)
		} else {
			rest = append(rest, o)
		}
	}
	evs, n, err := r.eventsOf(ctx, snap.Namespace, rest, rv)
	if w != nil {
		n += w.requests
	}
	return listed[chain.Event]{items: appendRelevantKinds(appendRelevantKinds(nil, held), evs), requests: n, err: err}
}

// eventsOf reads, in parallel (at most 16 objects at a time: -A seeks up
// to maxSoughtPerNamespace in a namespace), the events about each of objs
// in namespace ns: sought by name at revision rv (seekEvents) when rv is
// one, else (or when the server does not seek) one field-selected request
// each. It returns the requests it spent; the error is the first that
// failed.
func (r *Reader) eventsOf(ctx context.Context, ns string, objs []chain.ObjectRef, rv string) ([]corev1.Event, int, error) {
	lists, errs, spent := make([][]corev1.Event, len(objs)), make([]error, len(objs)), make([]int, len(objs))
	at := revisionOf(rv)
	var g errgroup.Group
	g.SetLimit(16)
	for i, o := range objs {
		g.Go(func() error {
			if at > 0 {
				var ok bool
				if lists[i], spent[i], ok = r.seekEvents(ctx, ns, o, at); ok {
					return nil
				}
			}
			l, err := r.Client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: eventsAbout(o)})
			spent[i]++
			if errs[i] = err; err == nil {
				lists[i] = l.Items
			}
			return nil
		})
	}
	_ = g.Wait() // each object's error is in errs
	var out []corev1.Event
	n := 0
	for i, l := range lists {
		out = append(out, l...)
		n += spent[i]
	}
	for _, err := range errs {
		if err != nil {
			return out, n, err
		}
	}
	return out, n, nil
}

// eventsAbout is the field selector of the events about o.
func eventsAbout(o chain.ObjectRef) string {
	if o.UID != "" {
		return fields.OneTermEqualSelector("involvedObject.uid", string(o.UID)).String()
	}
	return fields.Set{"involvedObject.kind": o.Kind, "involvedObject.name": o.Name}.String()
}

// readGoneNodes is the read's last, optional round trip: when pods say
// their node went away (chain.NodesGone), GET those nodes in parallel so
// the walk quotes their Ready condition ("Kubelet stopped posting node
// status."). A DaemonSet lists the nodes already. A node that cannot be
// read (deleted, or a namespace's RBAC) leaves the pods' own evidence,
// which names it: the walk does not need it for its verdict.
func (r *Reader) readGoneNodes(ctx context.Context, snap *chain.Snapshot) {
	names := chain.NodesGone(snap)
	nodes := make([]*corev1.Node, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() {
			if n, err := r.Client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{}); err == nil {
				nodes[i] = n
			}
		})
	}
	wg.Wait()
	snap.Requests += len(names)
	for _, n := range nodes {
		if n != nil {
			slim(n) // images and managed fields: long, and not evidence
			snap.Nodes = append(snap.Nodes, *n)
		}
	}
}

// pendingClaims GETs the claims the pods that wait to be scheduled use
// (chain.PendingClaims), in parallel: one request each, none when every
// pod is on a node. A claim that does not exist is left out (the
// scheduler and the kubelet name it); another error is the list's.
func (r *Reader) pendingClaims(ctx context.Context, ns string, pods []corev1.Pod) listed[corev1.PersistentVolumeClaim] {
	names := chain.PendingClaims(pods)
	got, errs := make([]*corev1.PersistentVolumeClaim, len(names)), make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() {
			got[i], errs[i] = r.Client.CoreV1().PersistentVolumeClaims(ns).Get(ctx, name, metav1.GetOptions{})
		})
	}
	wg.Wait()
	out := listed[corev1.PersistentVolumeClaim]{requests: len(names)}
	for i := range names {
		switch {
		case errs[i] == nil:
			out.items = append(out.items, *got[i])
		case apierrors.IsNotFound(errs[i]):
		case out.err == nil:
			out.err = errs[i]
		}
	}
	return out
}
