package kube

import (
	"context"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/fields"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// watchRetry is the pause before a closed or failed watch is opened again.
const watchRetry = time.Second

// Watch signals on changed whenever the Deployment, the ReplicaSets and Pods
// its selector matches, or the namespace's events change, until ctx ends.
// It uses the same narrow scopes as Snapshot (a field selector on the
// Deployment's name, its label selector, one namespace), so waiting costs
// four long-lived requests, not a poll per second. Signals are coalesced:
// changed should have a buffer of one. A watch RBAC forbids is dropped (the
// snapshot already shows the gap); one that closes is opened again.
func (r *Reader) Watch(ctx context.Context, d *appsv1.Deployment, changed chan<- struct{}) {
	ns := d.Namespace
	byName := metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", d.Name).String()}
	openers := []func(metav1.ListOptions) (watch.Interface, error){
		func(o metav1.ListOptions) (watch.Interface, error) {
			return r.Client.CoreV1().Events(ns).Watch(ctx, o)
		},
	}
	options := []metav1.ListOptions{{}}
	openers = append(openers, func(o metav1.ListOptions) (watch.Interface, error) {
		return r.Client.AppsV1().Deployments(ns).Watch(ctx, o)
	})
	options = append(options, byName)
	if sel, err := selectorOf(d); err == nil {
		bySelector := metav1.ListOptions{LabelSelector: sel.String()}
		openers = append(openers,
			func(o metav1.ListOptions) (watch.Interface, error) {
				return r.Client.AppsV1().ReplicaSets(ns).Watch(ctx, o)
			},
			func(o metav1.ListOptions) (watch.Interface, error) {
				return r.Client.CoreV1().Pods(ns).Watch(ctx, o)
			})
		options = append(options, bySelector, bySelector)
	}
	for i := range openers {
		go follow(ctx, openers[i], options[i], changed)
	}
}

// follow keeps one watch open and turns its events into change signals.
func follow(ctx context.Context, open func(metav1.ListOptions) (watch.Interface, error), opts metav1.ListOptions, changed chan<- struct{}) {
	for ctx.Err() == nil {
		w, err := open(opts)
		if apierrors.IsForbidden(err) {
			return
		}
		if err == nil {
			drain(ctx, w, changed)
		}
		select {
		case <-ctx.Done():
		case <-time.After(watchRetry):
		}
	}
}

// drain signals a change per watch event until the watch closes or ctx ends.
func drain(ctx context.Context, w watch.Interface, changed chan<- struct{}) {
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-w.ResultChan():
			if !ok {
				return
			}
			signal(changed)
		}
	}
}

func signal(changed chan<- struct{}) {
	select {
	case changed <- struct{}{}:
	default: // a change is already pending
	}
}
