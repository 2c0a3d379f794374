package kube

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// view is the part of a snapshot a test compares: objects by name, the rest
// whole.
type view struct {
	Now         time.Time
	Deployment  string
	ReplicaSets []string
	Pods        []string
	Events      []chain.Event
	Gaps        []chain.Gap
	Requests    int
}

func viewOf(s *chain.Snapshot) view {
	v := view{Now: s.Now, Events: s.Events, Gaps: s.Gaps, Requests: s.Requests}
	if s.Deployment != nil {
		v.Deployment = s.Deployment.Name
	}
	for _, rs := range s.ReplicaSets {
		v.ReplicaSets = append(v.ReplicaSets, rs.Name)
	}
	for _, p := range s.Pods {
		v.Pods = append(v.Pods, p.Name)
	}
	return v
}

// fixtureEvents are the fixture's events with the given names, normalised,
// in the order given.
func fixtureEvents(names ...string) []chain.Event {
	byName := map[string]*corev1.Event{}
	for _, o := range cluster() {
		if e, ok := o.(*corev1.Event); ok && e.Namespace == "prod" {
			byName[e.Name] = e
		}
	}
	var out []chain.Event
	for _, n := range names {
		out = append(out, chain.EventFromCore(byName[n]))
	}
	return out
}

func newReader(cs *fake.Clientset, pageSize int64) *Reader {
	return &Reader{Client: cs, Now: func() time.Time { return t0 }, EventsPageSize: pageSize}
}

// requests lists the requests the fake saw as "verb resource selector",
// sorted, since the second round trip runs in parallel.
func requests(cs *fake.Clientset) []string {
	var out []string
	for _, a := range cs.Actions() {
		s := []string{a.GetVerb(), a.GetResource().Resource}
		if l, ok := a.(clienttesting.ListActionImpl); ok {
			if sel := l.ListOptions.LabelSelector; sel != "" {
				s = append(s, sel)
			}
			if l.ListOptions.Limit > 0 {
				s = append(s, "limit="+strconv.FormatInt(l.ListOptions.Limit, 10), "continue="+l.ListOptions.Continue)
			}
		}
		out = append(out, strings.Join(s, " "))
	}
	slices.Sort(out)
	return out
}

var healthyView = view{
	Now:         t0,
	Deployment:  "web",
	ReplicaSets: []string{"web-5b6c7d8e9", "web-7c9d8f6b5"},
	Pods:        []string{"web-7c9d8f6b5-q8z7r", "web-7c9d8f6b5-x2k4p"},
	Events:      fixtureEvents("e1", "e2", "e3", "e4"),
	Requests:    6,
}

func TestSnapshot(t *testing.T) {
	cs := fake.NewClientset(cluster()...)
	snap, err := newReader(cs, 0).Snapshot(context.Background(), "prod", "web")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(healthyView, viewOf(snap)); diff != "" {
		t.Errorf("snapshot (-want +got):\n%s", diff)
	}
	want := []string{"get deployments", "list events limit=50 continue=", "list horizontalpodautoscalers", "list pods app=web", "list replicasets app=web", "list services"}
	if diff := cmp.Diff(want, requests(cs)); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	if got := len(cs.Actions()); got != snap.Requests {
		t.Errorf("Requests = %d, fake saw %d", snap.Requests, got)
	}
}

// The text the API server returns when a continue token was compacted away,
// from k8s.io/apiserver@v0.37.2 pkg/storage/etcd3/errors.go (continueExpired).
const continueExpired = "The provided continue parameter is too old to display a consistent list result. " +
	"You can start a new list without the continue parameter."

// pageEvents makes the fake page events like the API server (the fake
// ignores Limit and Continue): tokens are offsets into the namespace's events
// sorted by name, and the token expire answers 410 Gone.
func pageEvents(cs *fake.Clientset, expire string) {
	cs.PrependReactor("list", "events", func(a clienttesting.Action) (bool, runtime.Object, error) {
		l := a.(clienttesting.ListActionImpl)
		opts := l.ListOptions
		if opts.Continue != "" && opts.Continue == expire {
			return true, nil, apierrors.NewResourceExpired(continueExpired)
		}
		obj, err := cs.Tracker().List(l.Resource, l.Kind, l.Namespace)
		if err != nil {
			return true, nil, err
		}
		all := obj.(*corev1.EventList).Items
		slices.SortFunc(all, func(a, b corev1.Event) int { return strings.Compare(a.Name, b.Name) })
		start, _ := strconv.Atoi(opts.Continue)
		end := len(all)
		if opts.Limit > 0 {
			end = min(start+int(opts.Limit), len(all))
		}
		page := &corev1.EventList{Items: all[start:end]}
		if end < len(all) {
			page.Continue = strconv.Itoa(end)
		}
		return true, page, nil
	})
}

func TestSnapshotPagedEvents(t *testing.T) {
	// prod holds 7 events (e1-e7).
	tests := []struct {
		name     string
		pageSize int64
		expire   string
		events   []string // the events requests, besides get, list rs and list pods
	}{
		{"one page", 10, "", []string{"limit=10 continue="}},
		{"pages of 4", 4, "", []string{"limit=4 continue=", "limit=4 continue=4"}},
		{"pages of 2", 2, "", []string{"limit=2 continue=", "limit=2 continue=2", "limit=2 continue=4", "limit=2 continue=6"}},
		// An expired token restarts as one full list, like client-go's pager.
		{"expired continue", 2, "4", []string{"", "limit=2 continue=", "limit=2 continue=2", "limit=2 continue=4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := fake.NewClientset(cluster()...)
			pageEvents(cs, tt.expire)
			snap, err := newReader(cs, tt.pageSize).Snapshot(context.Background(), "prod", "web")
			if err != nil {
				t.Fatal(err)
			}
			want := healthyView
			want.Requests = 5 + len(tt.events)
			if diff := cmp.Diff(want, viewOf(snap)); diff != "" {
				t.Errorf("snapshot (-want +got):\n%s", diff)
			}
			wantReqs := []string{"get deployments", "list horizontalpodautoscalers", "list pods app=web", "list replicasets app=web", "list services"}
			for _, e := range tt.events {
				wantReqs = append(wantReqs, strings.TrimSpace("list events "+e))
			}
			slices.Sort(wantReqs)
			if diff := cmp.Diff(wantReqs, requests(cs)); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
			if got := len(cs.Actions()); got != snap.Requests {
				t.Errorf("Requests = %d, fake saw %d", snap.Requests, got)
			}
		})
	}
}

// TestSnapshotGoneNode: a pod that the node lifecycle controller marked
// not ready ("Node is not ready", MarkPodsNotReady at v1.37.2) costs one
// GET of its node, whose conditions the walk quotes; a pod without that
// sign costs none (TestSnapshot).
func TestSnapshotGoneNode(t *testing.T) {
	objs := cluster()
	for _, o := range objs {
		if p, ok := o.(*corev1.Pod); ok && p.Name == "web-7c9d8f6b5-q8z7r" {
			p.Spec.NodeName = "node-a"
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}
		}
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}, Status: corev1.NodeStatus{
		Images: []corev1.ContainerImage{{Names: []string{"web"}}},
		// pkg/controller/nodelifecycle at v1.37.2: the Ready condition it
		// writes when the kubelet's Lease and status stop.
		Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionUnknown,
			Reason: "NodeStatusUnknown", Message: "Kubelet stopped posting node status."}}}}
	objs = append(objs, node, event("prod", "e9", "Pod", "web-7c9d8f6b5-q8z7r", "uid-web-7c9d8f6b5-q8z7r", "Warning",
		"NodeNotReady", "node-controller", "Node is not ready", time.Second))
	cs := fake.NewClientset(objs...)
	snap, err := newReader(cs, 0).Snapshot(context.Background(), "prod", "web")
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Nodes) != 1 || snap.Nodes[0].Name != "node-a" || snap.Nodes[0].Status.Images != nil {
		t.Errorf("nodes = %+v, want node-a without its images", snap.Nodes)
	}
	if got := requests(cs); !slices.Contains(got, "get nodes") || len(got) != 7 || snap.Requests != 7 {
		t.Errorf("requests %v (counted %d), want the 6 of TestSnapshot and get nodes", got, snap.Requests)
	}
}

// TestMirrorTakeChanged: a mirror says what changed since it was last
// asked: everything after its read, then only the namespace of an object a
// watch brought, so serve judges again only that namespace's workloads.
func TestMirrorTakeChanged(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cs := fake.NewClientset(cluster()...)
	changed := make(chan struct{}, 1)
	m, err := newReader(cs, 0).Mirror(ctx, "", "", true, changed)
	if err != nil {
		t.Fatal(err)
	}
	if all, _ := m.TakeChanged(); !all {
		t.Error("after the read: not everything changed")
	}
	if all, nss := m.TakeChanged(); all || len(nss) > 0 {
		t.Errorf("asked again: %v %v, want nothing", all, nss)
	}
	watching := func() bool {
		for _, a := range cs.Actions() {
			if a.GetVerb() == "watch" && a.GetResource().Resource == "pods" {
				return true
			}
		}
		return false
	}
	for deadline := time.Now().Add(5 * time.Second); !watching() && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	for len(changed) > 0 {
		<-changed
	}
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "staging", Name: "web-new", Labels: map[string]string{"app": "web"}}}
	if _, err := cs.CoreV1().Pods("staging").Create(ctx, p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("the watch brought no change")
	}
	if all, nss := m.TakeChanged(); all || !nss["staging"] || len(nss) != 1 {
		t.Errorf("after a pod of staging: everything %v, namespaces %v; want staging alone", all, nss)
	}
}
