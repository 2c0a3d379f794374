package kube

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// A busy namespace: 5,000 events, 21 of them about web (5 Warnings).
const (
	busyEvents = 5000
	busyPods   = 5
)

// strategy is one way to read the events that concern a Deployment.
type strategy struct {
	name     string
	pageSize int64
	fields   string
}

var strategies = []strategy{
	{name: "targeted"},
	{name: "paged500", pageSize: 500},
	{name: "warnings", fields: "type=Warning", pageSize: busyEvents},
}

// busyTarget is web's Deployment, ReplicaSet and pods, as the other two
// lists of a snapshot would return them.
func busyTarget() (*appsv1.Deployment, []appsv1.ReplicaSet, []corev1.Pod) {
	d := deployment("prod", "web", appSelector("web"))
	rss := []appsv1.ReplicaSet{*replicaSet("prod", "web-7c9d8f6b5", "web")}
	var pods []corev1.Pod
	for p := range busyPods {
		pods = append(pods, *pod("prod", fmt.Sprintf("web-7c9d8f6b5-%05d", p), "web", "web-7c9d8f6b5"))
	}
	return d, rss, pods
}

// busyClient serves the busy namespace over HTTP to a real clientset, with
// client-side rate limiting off so paging is not throttled (see the report).
func busyClient(tb testing.TB) (kubernetes.Interface, *eventServer) {
	srv := &eventServer{ns: "prod", events: busyNamespace("prod", busyEvents, busyPods), cache: map[string]cached{}}
	hs := httptest.NewServer(srv)
	tb.Cleanup(hs.Close)
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: hs.URL, QPS: -1})
	if err != nil {
		tb.Fatal(err)
	}
	return cs, srv
}

// run reads web's events with one strategy, as Reader.Snapshot would:
// "targeted" is the reader's (the first 500, then, the namespace holding
// more, the events of chain.EventTargets by field selector).
func (s strategy) run(ctx context.Context, cs kubernetes.Interface) ([]chain.Event, int, error) {
	r := &Reader{Client: cs, EventsPageSize: s.pageSize}
	l := r.listEvents(ctx, "prod", metav1.ListOptions{FieldSelector: s.fields})
	if l.err != nil {
		return nil, l.requests, l.err
	}
	d, rss, pods := busyTarget()
	if l.partial {
		snap := &chain.Snapshot{Namespace: "prod", Name: "web", Deployment: d}
		snap.Assemble(rss, pods, nil)
		t := r.targetedEvents(ctx, snap, l.rv, nil)
		if t.err != nil {
			return nil, l.requests + t.requests, t.err
		}
		l.items, l.requests = t.items, l.requests+t.requests
	}
	return chain.Concerning(l.items, chain.Owned{Workload: d, Kind: chain.KindDeployment, ReplicaSets: rss, Pods: pods}), l.requests, nil
}

// TestEventsStrategies checks the benchmark's server and what each strategy
// finds: paging finds every event of web; a type=Warning list misses the
// Normal events (Scheduled, Pulling) that tell progress from failure; the
// reader's targeted read (3 requests: the first page, then the events of
// the Deployment, which has no current ReplicaSet in this fixture, and of
// the first pod not ready) finds all theirs, Normal and Warning, in a
// fraction of the bytes.
func TestEventsStrategies(t *testing.T) {
	cs, _ := busyClient(t)
	want := map[string]struct{ found, warnings, requests int }{
		"targeted": {found: 4, warnings: 1, requests: 3},
		"paged500": {found: 21, warnings: 5, requests: 10},
		"warnings": {found: 5, warnings: 5, requests: 1},
	}
	for _, s := range strategies {
		evs, reqs, err := s.run(context.Background(), cs)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		warnings := 0
		for _, e := range evs {
			if e.Type == corev1.EventTypeWarning {
				warnings++
			}
		}
		got := struct{ found, warnings, requests int }{len(evs), warnings, reqs}
		if got != want[s.name] {
			t.Errorf("%s: got %+v, want %+v", s.name, got, want[s.name])
		}
	}
	_, _, err := strategy{fields: "spec.nodeName=node-7"}.run(context.Background(), cs)
	if want := "field label not supported: spec.nodeName"; err == nil || err.Error() != want {
		t.Errorf("unsupported field: err = %v, want %q", err, want)
	}
}

// BenchmarkEventsStrategy compares reading a busy namespace's events in one
// list, in pages of 500, and as a type=Warning field-selected list. Besides
// ns/op and allocs it reports the response bytes and requests per read and
// how many of web's events each found.
func BenchmarkEventsStrategy(b *testing.B) {
	for _, s := range strategies {
		b.Run(s.name, func(b *testing.B) {
			cs, srv := busyClient(b)
			ctx := context.Background()
			if _, _, err := s.run(ctx, cs); err != nil { // fill the server's cache
				b.Fatal(err)
			}
			srv.bytes.Store(0)
			srv.requests.Store(0)
			found, iters := 0, 0
			b.ReportAllocs()
			for b.Loop() {
				iters++
				evs, _, err := s.run(ctx, cs)
				if err != nil {
					b.Fatal(err)
				}
				found = len(evs)
			}
			n := float64(iters)
			b.ReportMetric(float64(srv.bytes.Load())/n, "resp-bytes/op")
			b.ReportMetric(float64(srv.requests.Load())/n, "requests/op")
			b.ReportMetric(float64(found), "found")
		})
	}
}
