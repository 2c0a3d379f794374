package kube

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// watchRetry is the pause before a closed or failed watch is opened again.
const watchRetry = time.Second

// stream is one watch the waiter keeps open.
type stream struct {
	resource string
	openCtx  func(context.Context, metav1.ListOptions) (watch.Interface, error)
	options  metav1.ListOptions
	// keep filters events that cannot concern the Deployment.
	keep func(watch.Event) bool
	// conn is told whether the watch opens.
	conn *Conn
}

// Watch signals on changed whenever the workload, the objects its
// selector matches, or events about them change, until ctx ends. It uses
// the same narrow scopes as Read (a field selector on the workload's name,
// its label selector, one namespace), so waiting costs a few long-lived
// requests, not a poll. Signals are coalesced: changed should have a buffer
// of one. A watch that closes is opened again; one that RBAC forbids is
// reported on the returned channel (once, with the command that checks the
// permission) so the caller can fall back to re-reading.
func (r *Reader) Watch(ctx context.Context, snap *chain.Snapshot, changed chan<- struct{}) <-chan string {
	ns, name := snap.Namespace, snap.Name
	if snap.IsResource() && snap.API != nil {
		// The object, and whatever it may own: the namespace's
		// workloads, their ReplicaSets and pods, and events.
		streams := []stream{r.apiStream(*snap.API, ns, byName(name))}
		for _, res := range []string{"events", "deployments", "statefulsets", "daemonsets", "jobs", "cronjobs", "replicasets", "pods"} {
			streams = append(streams, r.streamOf(res, ns, metav1.ListOptions{}, nil))
		}
		return r.start(ctx, streams, ns, changed)
	}
	rec, err := recipeOf(snap.KindOf())
	if err != nil {
		return r.start(ctx, nil, ns, changed)
	}
	row, _ := chain.RowOf(snap.KindOf())
	if row.Class == chain.ClassTraffic {
		return r.start(ctx, rec.follow(r, snap, nil, nil), ns, changed)
	}
	keep := about([]string{name})
	streams := []stream{r.streamOf("events", ns, metav1.ListOptions{}, keep)}
	sel := row.Selector(snap.Workload())
	if rec.follow != nil {
		streams = append(streams, rec.follow(r, snap, sel, keep)...)
	}
	switch {
	case row.CRD:
		streams = append(streams, r.apiStream(row.API(), ns, byName(name)))
	case row.Class == chain.ClassPod:
		streams = append(streams, r.streamOf("pods", ns, byName(name), nil))
	default:
		streams = append(streams, r.streamOf(resourceOf(row.Kind), ns, byName(name), nil))
	}
	if s, err := usable(sel); err == nil {
		streams = append(streams, r.streamOf("pods", ns, metav1.ListOptions{LabelSelector: s.String()}, nil))
	}
	if row.Serves() && snap.ServicesRead {
		// The serving link: a Service fixed or created, an EndpointSlice
		// the controller writes.
		streams = append(streams, r.streamOf("services", ns, metav1.ListOptions{}, nil))
		if owners := snap.EndpointSliceOwners(); len(owners) > 0 {
			streams = append(streams, r.streamOf("endpointslices", ns, slicesOf(owners), nil))
		}
	}
	return r.start(ctx, streams, ns, changed)
}

// byName lists or watches one object by its name.
func byName(name string) metav1.ListOptions {
	return metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String()}
}

// streamOf is a watch of one resource of the namespace.
func (r *Reader) streamOf(resource, ns string, opts metav1.ListOptions, keep func(watch.Event) bool) stream {
	open := func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
		row, ok := resourceRowOf(resource)
		switch {
		case ok && row.typed != nil:
			_, w := row.typed(r, ns)
			return w(ctx, o)
		case ok && row.Group == chain.GatewayGroup:
			dc, err := r.dynamicOf()
			if err != nil {
				return nil, err
			}
			res := dc.Resource(schema.GroupVersionResource{Group: chain.GatewayGroup, Version: "v1", Resource: resource})
			if row.Cluster {
				return res.Watch(ctx, o)
			}
			return res.Namespace(ns).Watch(ctx, o)
		}
		return nil, fmt.Errorf("kubectl chain does not watch %s", resource)
	}
	return stream{resource: resource, options: opts, keep: keep, openCtx: open}
}

// apiStream is a watch of a resource kind's objects, through the dynamic
// client.
func (r *Reader) apiStream(api chain.APIResource, ns string, opts metav1.ListOptions) stream {
	open := func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
		dc, err := r.dynamicOf()
		if err != nil {
			return nil, err
		}
		res := dc.Resource(schema.GroupVersionResource{Group: api.Group, Version: api.Version, Resource: api.Resource})
		if !api.Namespaced {
			return res.Watch(ctx, o)
		}
		return res.Namespace(ns).Watch(ctx, o)
	}
	return stream{resource: api.Type(), options: opts, openCtx: open}
}

// WatchNamespace is Watch for several workloads of one namespace: the
// named ones, or the Deployments that match selector ("" for all). It
// watches the Deployments by selector (or each named kind), and the
// namespace's ReplicaSets, Pods, Jobs and events, keeping, when refs are
// given, only changes to objects that can belong to them: a handful of
// long-lived requests whatever the number of workloads.
func (r *Reader) WatchNamespace(ctx context.Context, ns, selector string, refs []chain.Ref, changed chan<- struct{}) <-chan string {
	var names []string
	kinds := map[chain.Kind]bool{}
	resource := false
	apis := map[string]chain.APIResource{}
	for _, ref := range refs {
		names = append(names, ref.Name)
		if ref.IsResource() {
			resource = true
			if api, ok := r.APIs[APIKey(ref)]; ok && api.Namespaced {
				apis[APIKey(ref)] = api // its objects' own changes (a status turning healthy)
			}
			continue
		}
		kinds[ref.Kind] = true
	}
	keep := about(names)
	traffic := false
	for k := range kinds {
		traffic = traffic || chain.IsTraffic(k)
	}
	if traffic || resource {
		// What a Service selects, or what an operator makes from a custom
		// resource, need not be named after it: every change of the
		// namespace may matter.
		keep = nil
	}
	if resource {
		// Whatever kind of workload the operator made.
		for _, k := range chain.Kinds {
			kinds[k] = true
		}
	}
	streams := []stream{
		r.streamOf("replicasets", ns, metav1.ListOptions{}, keep),
		r.streamOf("pods", ns, metav1.ListOptions{}, keep),
		r.streamOf("events", ns, metav1.ListOptions{}, keep),
	}
	if traffic {
		for _, res := range []string{"services", "endpointslices", "statefulsets", "daemonsets"} {
			streams = append(streams, r.streamOf(res, ns, metav1.ListOptions{}, nil))
		}
		for k := range kinds {
			if chain.IsTraffic(k) && k != chain.KindService {
				streams = append(streams, r.streamOf(k.Plural(), ns, metav1.ListOptions{}, nil))
			}
		}
		kinds[chain.KindDeployment], kinds[chain.KindStatefulSet], kinds[chain.KindDaemonSet] = true, false, false
	}
	if len(refs) == 0 || kinds[chain.KindDeployment] {
		streams = append(streams, r.streamOf("deployments", ns, metav1.ListOptions{LabelSelector: selector}, keep))
	}
	for _, row := range chain.KindTable() {
		switch {
		case !kinds[row.Kind] || row.Class != chain.ClassWorkload || row.Kind == chain.KindDeployment:
		case row.CRD:
			streams = append(streams, r.apiStream(row.API(), ns, metav1.ListOptions{}))
		default:
			streams = append(streams, r.streamOf(resourceOf(row.Kind), ns, metav1.ListOptions{}, keep))
		}
	}
	for _, key := range slices.Sorted(maps.Keys(apis)) {
		streams = append(streams, r.apiStream(apis[key], ns, metav1.ListOptions{}))
	}
	if kinds[chain.KindCronJob] && !kinds[chain.KindJob] {
		streams = append(streams, r.streamOf("jobs", ns, metav1.ListOptions{}, keep))
	}
	return r.start(ctx, streams, ns, changed)
}

// start follows each stream in its own goroutine, from where the last read
// left off, and returns the channel that reports forbidden watches.
func (r *Reader) start(ctx context.Context, streams []stream, ns string, changed chan<- struct{}) <-chan string {
	forbidden := make(chan string, len(streams))
	from := r.read.take()
	for _, s := range streams {
		s.options.ResourceVersion = from[s.resource]
		s.conn = &r.conn
		go s.follow(ctx, changed, func() {
			forbidden <- fmt.Sprintf("cannot watch %s (check: %s)", s.resource, canI("watch", s.resource, ns))
		})
	}
	return forbidden
}

// about keeps the watch events whose object can belong to one of the named
// Deployments: the Deployment itself, a ReplicaSet or Pod named after it, or
// an event about one of those. Others (a busy namespace has many) would
// each cost a re-read for nothing. With no names it keeps the events about
// Deployments, ReplicaSets and Pods, and every object.
func about(names []string) func(watch.Event) bool {
	belongs := func(kind, name string) bool {
		if !relevantKinds[kind] {
			return false
		}
		if len(names) == 0 {
			return true
		}
		for _, n := range names {
			switch {
			case name == n:
				return true
			case kind == "PersistentVolumeClaim" && strings.Contains(name, "-"+n+"-"):
				// a StatefulSet's claims are TEMPLATE-SET-ORDINAL
				return true
			case strings.HasPrefix(name, n+"-"):
				return true
			}
		}
		return false
	}
	return func(ev watch.Event) bool {
		switch o := ev.Object.(type) {
		case *corev1.Event:
			return belongs(o.InvolvedObject.Kind, o.InvolvedObject.Name)
		case *appsv1.Deployment:
			return belongs(kindDeployment, o.Name)
		case *appsv1.ReplicaSet:
			return belongs(kindReplicaSet, o.Name)
		case *corev1.Pod:
			return belongs(kindPod, o.Name)
		case *appsv1.StatefulSet:
			return belongs("StatefulSet", o.Name)
		case *appsv1.DaemonSet:
			return belongs("DaemonSet", o.Name)
		case *batchv1.Job:
			return belongs("Job", o.Name)
		case *batchv1.CronJob:
			return belongs("CronJob", o.Name)
		case *corev1.PersistentVolumeClaim:
			return belongs("PersistentVolumeClaim", o.Name)
		}
		return true // a watch error or bookmark: let the re-read decide
	}
}

// follow keeps one watch open and turns its events into change signals.
// Each watch resumes at the last resource version seen, so a watch that
// closes (the server ends them every few minutes, or the server goes away
// and comes back) is reopened without replaying the objects; a version too old to resume from (410 Gone) starts
// over, which replays them, and signals a change since one may be missed.
func (s stream) follow(ctx context.Context, changed chan<- struct{}, forbidden func()) {
	opts := s.options
	opts.AllowWatchBookmarks = true
	var pause time.Duration
	for ctx.Err() == nil {
		w, err := s.openCtx(ctx, opts)
		switch {
		case apierrors.IsForbidden(err):
			forbidden()
			return
		case apierrors.IsResourceExpired(err) || apierrors.IsGone(err):
			opts.ResourceVersion = ""
			signal(changed)
			continue
		case err == nil:
			s.conn.answered()
			opts.ResourceVersion = s.drain(ctx, w, opts.ResourceVersion, changed)
		}
		pause = retryAfter(s.conn.failed(ctx, err), pause)
		sleep(ctx, pause)
	}
}

// drain signals a change per kept watch event until the watch closes or ctx
// ends, and returns the resource version to resume from.
func (s stream) drain(ctx context.Context, w watch.Interface, rv string, changed chan<- struct{}) string {
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return rv
		case ev, ok := <-w.ResultChan():
			if !ok {
				return rv
			}
			if ev.Type == watch.Error {
				if status, ok := ev.Object.(*metav1.Status); ok && (status.Code == http.StatusGone || status.Reason == metav1.StatusReasonExpired) {
					signal(changed)
					return ""
				}
				continue
			}
			if m, err := meta.Accessor(ev.Object); err == nil && m.GetResourceVersion() != "" {
				rv = m.GetResourceVersion()
			}
			if ev.Type != watch.Bookmark && (s.keep == nil || s.keep(ev)) {
				signal(changed)
			}
		}
	}
}

func signal(changed chan<- struct{}) {
	select {
	case changed <- struct{}{}:
	default: // a change is already pending
	}
}
