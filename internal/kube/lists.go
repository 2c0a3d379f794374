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

// targetedEvents reads the events of each of the snapshot's
// chain.EventTargets, sought from the namespace's events at revision rv
// (that of their first page); the snapshot's objects must be assembled. It
// records the targets on the snapshot.
func (r *Reader) targetedEvents(ctx context.Context, snap *chain.Snapshot, rv string) listed[chain.Event] {
	targets := chain.EventTargets(snap)
	snap.EventsOf = targets
	evs, n, err := r.eventsOf(ctx, snap.Namespace, targets, rv)
	return listed[chain.Event]{items: appendRelevantKinds(nil, evs), requests: n, err: err}
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
