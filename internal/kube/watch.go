package kube

import (
	"context"
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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
		{resource: "events", keep: aboutDeployment(d.Name),
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
	forbidden := make(chan string, len(streams))
	for _, s := range streams {
		go s.follow(ctx, changed, func() {
			forbidden <- fmt.Sprintf("cannot watch %s (check: %s)", s.resource, canI("watch", s.resource, ns))
		})
	}
	return forbidden
}

// aboutDeployment keeps the events whose object can belong to the
// Deployment: itself, or a ReplicaSet or Pod named after it. Others (a busy
// namespace has many) would each cost a re-read for nothing.
func aboutDeployment(name string) func(watch.Event) bool {
	return func(ev watch.Event) bool {
		e, ok := ev.Object.(*corev1.Event)
		if !ok {
			return true // a watch error or bookmark: let the re-read decide
		}
		o := e.InvolvedObject
		switch o.Kind {
		case kindDeployment:
			return o.Name == name
		case kindReplicaSet, kindPod:
			return strings.HasPrefix(o.Name, name+"-")
		}
		return false
	}
}

// follow keeps one watch open and turns its events into change signals.
func (s stream) follow(ctx context.Context, changed chan<- struct{}, forbidden func()) {
	for ctx.Err() == nil {
		w, err := s.open(s.options)
		if apierrors.IsForbidden(err) {
			forbidden()
			return
		}
		if err == nil {
			s.drain(ctx, w, changed)
		}
		select {
		case <-ctx.Done():
		case <-time.After(watchRetry):
		}
	}
}

// drain signals a change per kept watch event until the watch closes or ctx
// ends.
func (s stream) drain(ctx context.Context, w watch.Interface, changed chan<- struct{}) {
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.ResultChan():
			if !ok {
				return
			}
			if s.keep == nil || s.keep(ev) {
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
