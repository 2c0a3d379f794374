package kube

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// An object's events in a busy namespace are sought by their names, not
// selected by a field. The API server keeps no watch cache for events
// (kube-apiserver's DefaultWatchCacheSizes sets events to 0), so a
// field-selected list reads every event of the namespace from etcd and
// filters it: 20,000 events cost the same for one pod's four. But every
// event a client-go recorder writes (tools/record and tools/events: the
// kubelet, the controllers, the scheduler, most operators) is named
// NAME.TIMESTAMP after the object it is about, and etcd keeps a
// namespace's events in the order of their names. A list that starts at
// "NAME." and stops at the first name past it reads that object's events
// and little else.
//
// The list starts there through its continue token, the API server's
// {"v":"meta.k8s.io/v1","rv":REVISION,"start":KEY} (k8s.io/apiserver
// pkg/storage continue.go, the same from 1.8 to 1.37), at the revision of
// the namespace's first events page: what it returns is what that page's
// list would have held. A server that answers otherwise (it does not keep
// the order, it ignores the limit, it refuses the token, the revision was
// compacted) has the object's events field-selected instead.

// seekPage is how many events one sought page asks for: an object's events
// are few, the recorder counting a repeated event on one object, and what
// the page holds past them is read for nothing (the fill cluster's broken
// Deployment in its busy namespace: 0.13 s with pages of 50, 0.11 s with 8).
const seekPage = 8

// seekEvents reads the events named after o (NAME.TIMESTAMP) about o, from
// the namespace's events at revision rv. ok is false when the server did
// not seek (the caller selects by field then); requests counts the pages.
func (r *Reader) seekEvents(ctx context.Context, ns string, o chain.ObjectRef, rv int64) (out []corev1.Event, requests int, ok bool) {
	prefix := o.Name + "."
	opts := metav1.ListOptions{Limit: seekPage, Continue: startAt(prefix, rv)}
	last := prefix
	for {
		var l *corev1.EventList
		l, last, ok = r.soughtPage(ctx, ns, opts, last)
		requests++
		if !ok {
			return nil, requests, false
		}
		for i := range l.Items {
			e := &l.Items[i]
			if !strings.HasPrefix(e.Name, prefix) {
				return out, requests, true
			}
			if eventAbout(e, o) {
				out = append(out, *e)
			}
		}
		if l.Continue == "" {
			return out, requests, true
		}
		opts.Continue = l.Continue
	}
}

// soughtPage lists one page of a sought read (opts: its limit and
// continue token), whose names must not come before after; last is the
// page's last name (after when it is empty). ok is false when the server
// did not seek: it failed, returned more than the limit, or listed out of
// the order of names.
func (r *Reader) soughtPage(ctx context.Context, ns string, opts metav1.ListOptions, after string) (l *corev1.EventList, last string, ok bool) {
	l, err := r.Client.CoreV1().Events(ns).List(ctx, opts)
	if err != nil || int64(len(l.Items)) > opts.Limit {
		return nil, "", false
	}
	for i := range l.Items {
		if l.Items[i].Name < after {
			return nil, "", false
		}
		after = l.Items[i].Name
	}
	return l, after, true
}

// window is a run of a busy namespace's events, in the order of their
// names, read beside the workload's pods before they say which are its
// targets: from the first name of its pods (windowFrom) on, where its
// pods' events start, in the order of the pods' names, as
// chain.EventTargets picks the pods that are not ready. When the first
// pods are the targets, as in a workload whose pods all fail, the window
// holds their events and they need no seek after the pods.
type window struct {
	from, last string // the first name asked for, the last read
	end        bool   // the list ended within the window
	items      []corev1.Event
	requests   int
}

// windowPage is how many events a window reads: the events of about
// chain.MaxEventTargets pods (a pod's recorder names a handful of events:
// scheduled, pulled or failing, started, backing off).
const windowPage = 2 * seekPage

// readWindow reads the window of workload o's pods' events (from
// windowFrom) at revision rv; it holds nothing when the server did not
// seek.
func (r *Reader) readWindow(ctx context.Context, ns string, o metav1.Object, rv int64) *window {
	w := &window{from: windowFrom(o), requests: 1}
	l, last, ok := r.soughtPage(ctx, ns, metav1.ListOptions{Limit: windowPage, Continue: startAt(w.from, rv)}, w.from)
	if ok {
		w.items, w.last, w.end = l.Items, last, l.Continue == ""
	}
	return w
}

// windowFrom is the first name of workload o's window: that of its pods
// ("NAME-"), or that of its new ReplicaSet's pods ("NAME-HASH-"), for a
// Deployment whose Progressing condition names it and for an Argo Rollout
// whose status holds its pod hash (the controller names the ReplicaSet
// NAME-HASH: argo-rollouts v1.10.2 rollout/sync.go). A rollout that fails,
// fails in its new pods, and its old ones, ready, may come first by name:
// they would fill the window.
func windowFrom(o metav1.Object) string {
	from := o.GetName() + "-"
	if ro, ok := o.(*chain.Rollout); ok && ro.Status.CurrentPodHash != "" {
		return from + ro.Status.CurrentPodHash + "-"
	}
	d, ok := o.(*appsv1.Deployment)
	if !ok {
		return from
	}
	for _, c := range d.Status.Conditions {
		if c.Type != appsv1.DeploymentProgressing {
			continue
		}
		if m := newReplicaSetRE.FindStringSubmatch(c.Message); m != nil {
			if rs := m[1] + m[2]; strings.HasPrefix(rs, from) {
				return rs + "-"
			}
		}
	}
	return from
}

// newReplicaSetRE matches the Deployment controller's Progressing
// messages that name its new ReplicaSet (k8s.io/kubernetes@v1.37.2
// pkg/controller/deployment: sync.go's "Created new replica set %q" and
// "Found new replica set %q", progress.go's "ReplicaSet %q is
// progressing.", "... has successfully progressed." and "... has timed
// out progressing.").
var newReplicaSetRE = regexp.MustCompile(`^(?:ReplicaSet "([^"]+)" (?:is progressing|has successfully progressed|has timed out progressing)\.|(?:Created|Found) new replica set "([^"]+)")$`)

// holds says the window read every event named after o (NAME.TIMESTAMP):
// they start after its first name and end before its last, or the list
// ended.
func (w *window) holds(o chain.ObjectRef) bool {
	prefix := o.Name + "."
	if w == nil || w.last == "" || prefix < w.from {
		return false
	}
	return w.end || w.last > prefix && !strings.HasPrefix(w.last, prefix)
}

// of is the window's events about o, which it holds.
func (w *window) of(o chain.ObjectRef) []corev1.Event {
	var out []corev1.Event
	for i := range w.items {
		if e := &w.items[i]; strings.HasPrefix(e.Name, o.Name+".") && eventAbout(e, o) {
			out = append(out, *e)
		}
	}
	return out
}

// startAt is the continue token of a list that starts at key, at revision
// rv.
func startAt(key string, rv int64) string {
	data, _ := json.Marshal(struct {
		V     string `json:"v"`
		RV    int64  `json:"rv"`
		Start string `json:"start"`
	}{"meta.k8s.io/v1", rv, key})
	return base64.RawURLEncoding.EncodeToString(data)
}

// eventAbout says e is about o as eventsAbout's field selector does: by
// UID, else by kind and name.
func eventAbout(e *corev1.Event, o chain.ObjectRef) bool {
	if o.UID != "" {
		return e.InvolvedObject.UID == o.UID
	}
	return e.InvolvedObject.Kind == o.Kind && e.InvolvedObject.Name == o.Name
}

// revisionOf is a list's resource version as the revision a seek reads at;
// 0 when it is none (a server not backed by etcd's revisions).
func revisionOf(rv string) int64 {
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}
