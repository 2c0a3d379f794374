package kube

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
)

// watchRetry is the pause before a closed or failed watch is opened again.
const watchRetry = time.Second

// stream is one watch the waiter keeps open.
type stream struct {
	resource string
	open     func(metav1.ListOptions) (watch.Interface, error)
	options  metav1.ListOptions
	// keep filters events that cannot concern the Deployment.
	keep func(watch.Event) bool
}

// Watch signals on changed whenever the Deployment, the ReplicaSets and Pods
// its selector matches, or events about them change, until ctx ends. It uses
// the same narrow scopes as Snapshot (a field selector on the Deployment's
// name, its label selector, one namespace), so waiting costs four
// long-lived requests, not a poll. Signals are coalesced: changed should
// have a buffer of one. A watch that closes is opened again; one that RBAC
// forbids is reported on the returned channel (once, with the command that
// checks the permission) so the caller can fall back to re-reading.
func (r *Reader) Watch(ctx context.Context, d *appsv1.Deployment, changed chan<- struct{}) <-chan string {
	ns := d.Namespace
	streams := []stream{
		{resource: "deployments", options: metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", d.Name).String()},
			open: func(o metav1.ListOptions) (watch.Interface, error) {
				return r.Client.AppsV1().Deployments(ns).Watch(ctx, o)
			}},
		{resource: "events", keep: about([]string{d.Name}),
			open: func(o metav1.ListOptions) (watch.Interface, error) { return r.Client.CoreV1().Events(ns).Watch(ctx, o) }},
	}
	if sel, err := selectorOf(d); err == nil {
		bySelector := metav1.ListOptions{LabelSelector: sel.String()}
		streams = append(streams,
			stream{resource: "replicasets", options: bySelector,
				open: func(o metav1.ListOptions) (watch.Interface, error) {
					return r.Client.AppsV1().ReplicaSets(ns).Watch(ctx, o)
				}},
			stream{resource: "pods", options: bySelector,
				open: func(o metav1.ListOptions) (watch.Interface, error) { return r.Client.CoreV1().Pods(ns).Watch(ctx, o) }})
	}
	return r.start(ctx, streams, ns, changed)
}

// WatchNamespace is Watch for several Deployments of one namespace: the
// named ones, or all that match selector ("" for all). It watches the
// Deployments by selector and the namespace's ReplicaSets, Pods and events,
// keeping, when names are given, only changes to objects that can belong to
// them: four long-lived requests whatever the number of Deployments.
func (r *Reader) WatchNamespace(ctx context.Context, ns, selector string, names []string, changed chan<- struct{}) <-chan string {
	keep := about(names)
	streams := []stream{
		{resource: "deployments", options: metav1.ListOptions{LabelSelector: selector}, keep: keep,
			open: func(o metav1.ListOptions) (watch.Interface, error) {
				return r.Client.AppsV1().Deployments(ns).Watch(ctx, o)
			}},
		{resource: "replicasets", keep: keep,
			open: func(o metav1.ListOptions) (watch.Interface, error) {
				return r.Client.AppsV1().ReplicaSets(ns).Watch(ctx, o)
			}},
		{resource: "pods", keep: keep,
			open: func(o metav1.ListOptions) (watch.Interface, error) { return r.Client.CoreV1().Pods(ns).Watch(ctx, o) }},
		{resource: "events", keep: keep,
			open: func(o metav1.ListOptions) (watch.Interface, error) { return r.Client.CoreV1().Events(ns).Watch(ctx, o) }},
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
		if kind != kindDeployment && kind != kindReplicaSet && kind != kindPod {
			return false
		}
		if len(names) == 0 {
			return true
		}
		for _, n := range names {
			if kind == kindDeployment && name == n || kind != kindDeployment && strings.HasPrefix(name, n+"-") {
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
		}
		return true // a watch error or bookmark: let the re-read decide
	}
}

// follow keeps one watch open and turns its events into change signals.
// Each watch resumes at the last resource version seen, so a watch that
// closes (the server ends them every few minutes) is reopened without
// replaying the objects; a version too old to resume from (410 Gone) starts
// over, which replays them, and signals a change since one may be missed.
func (s stream) follow(ctx context.Context, changed chan<- struct{}, forbidden func()) {
	opts := s.options
	opts.AllowWatchBookmarks = true
	for ctx.Err() == nil {
		w, err := s.open(opts)
		switch {
		case apierrors.IsForbidden(err):
			forbidden()
			return
		case apierrors.IsResourceExpired(err) || apierrors.IsGone(err):
			opts.ResourceVersion = ""
			signal(changed)
			continue
		case err == nil:
			opts.ResourceVersion = s.drain(ctx, w, opts.ResourceVersion, changed)
		}
		select {
		case <-ctx.Done():
		case <-time.After(watchRetry):
		}
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
