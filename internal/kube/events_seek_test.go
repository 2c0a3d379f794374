package kube

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// names are the events' names, sorted.
func names(evs []corev1.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Name)
	}
	slices.Sort(out)
	return out
}

// TestSeekEvents: in the busy namespace (5,000 events named NAME.TIMESTAMP,
// listed in the order of their names), each of web's objects has by a seek
// exactly the events a field selector gives, in one request and a small
// part of the bytes; a server that refuses the token has them
// field-selected instead.
func TestSeekEvents(t *testing.T) {
	srv := &eventServer{ns: "prod", events: busyNamespace("prod", busyEvents, busyPods), cache: map[string]cached{}}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: hs.URL, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	r := &Reader{Client: cs}
	ctx := context.Background()
	objs := []chain.ObjectRef{{Kind: "Deployment", Name: "web", UID: "uid-web"}, {Kind: "ReplicaSet", Name: "web-7c9d8f6b5"},
		{Kind: "Pod", Name: "web-7c9d8f6b5-00003", UID: "uid-web-7c9d8f6b5-00003"}}
	for _, o := range objs {
		sel, err := cs.CoreV1().Events("prod").List(ctx, metav1.ListOptions{FieldSelector: eventsAbout(o)})
		if err != nil {
			t.Fatal(err)
		}
		before := srv.bytes.Load()
		sought, requests, ok := r.seekEvents(ctx, "prod", o, 4821377)
		if !ok || requests != 1 {
			t.Errorf("%s: seek ok %v in %d requests, want one", o.Name, ok, requests)
		}
		if got, want := names(sought), names(sel.Items); len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("%s: sought %v, want %v (field-selected)", o.Name, got, want)
		}
		if b := srv.bytes.Load() - before; b > 64<<10 {
			t.Errorf("%s: the seek read %d bytes", o.Name, b)
		}
	}
	// A server that refuses the token: the reader selects by field.
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, q *http.Request) {
		if q.URL.Query().Get("continue") != "" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"continue key is not valid","reason":"BadRequest","code":400}`)
			return
		}
		srv.ServeHTTP(w, q)
	}))
	defer refusing.Close()
	cs2, err := kubernetes.NewForConfig(&rest.Config{Host: refusing.URL, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	evs, requests, err := (&Reader{Client: cs2}).eventsOf(ctx, "prod", objs[2:], "4821377")
	if err != nil || len(evs) != 3 || requests != 2 {
		t.Errorf("refused seek: %d events in %d requests (%v), want the pod's 3 in 2 (the seek, then the field selector)", len(evs), requests, err)
	}
}

// TestMirrorSeeksBusyNamespaces: when the server seeks, a namespace where
// several workloads are not ready is not read whole: the events of each
// one's targets are sought, and the namespace's other events are not read.
func TestMirrorSeeksBusyNamespaces(t *testing.T) {
	var objs []runtime.Object
	var evs []corev1.Event
	add := func(kind, obj, reason string, i int) {
		evs = append(evs, corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "busy", Name: fmt.Sprintf("%s.%016x", obj, i)},
			InvolvedObject: corev1.ObjectReference{Kind: kind, Namespace: "busy", Name: obj, UID: types.UID("uid-" + obj)}, Reason: reason, Type: "Warning"})
	}
	for _, name := range []string{"a", "b", "c"} {
		d := deploymentWith("busy", name, 1, 0)
		d.UID = types.UID("uid-" + name)
		rs := replicaSet("busy", name+"-5d4c3b2a1", name)
		rs.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: name, UID: d.UID, Controller: ptr.To(true)}}
		p := pod("busy", name+"-5d4c3b2a1-x7k2p", name, rs.Name)
		p.Spec.NodeName = "node-1"
		objs = append(objs, d, rs, p)
		add("Pod", p.Name, "BackOff", 1)
	}
	for i := range eventsProbe + 100 {
		add("Pod", fmt.Sprintf("other-%05d", i), "BackOff", i)
	}
	cs := fake.NewClientset(objs...)
	pagedEvents(cs, evs, true)
	m, err := newReader(cs, 0).Mirror(context.Background(), "", "", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range m.Bundle().Events {
		got = append(got, e.Object.Name)
	}
	slices.Sort(got)
	if want := []string{"a-5d4c3b2a1-x7k2p", "b-5d4c3b2a1-x7k2p", "c-5d4c3b2a1-x7k2p"}; !slices.Equal(got, want) {
		t.Errorf("events about %v, want the three pods' (sought, the namespace not read whole)", got)
	}
	if !m.Bundle().EventsTargeted || strings.Contains(strings.Join(got, ","), "other") {
		t.Errorf("targeted %v", m.Bundle().EventsTargeted)
	}
}

// TestCanSeek: a server that starts a list at the token's key seeks; one
// that refuses the token, or ignores it and starts again at the first
// event, does not.
func TestCanSeek(t *testing.T) {
	var evs []corev1.Event
	for i := range eventsProbe + 10 {
		evs = append(evs, corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "busy", Name: fmt.Sprintf("web-%05d.%016x", i, i)}})
	}
	for _, tc := range []struct {
		name  string
		react func(*fake.Clientset)
		want  bool
	}{
		{"seeks", func(cs *fake.Clientset) { pagedEvents(cs, evs, true) }, true},
		{"refuses the token", func(cs *fake.Clientset) { pagedEvents(cs, evs, false) }, false},
		{"ignores the token", func(cs *fake.Clientset) {
			pagedEvents(cs, evs, true)
			cs.PrependReactor("list", "events", func(a clienttesting.Action) (bool, runtime.Object, error) {
				l := a.(clienttesting.ListActionImpl)
				if l.ListOptions.Continue == "" {
					return false, nil, nil
				}
				return true, &corev1.EventList{ListMeta: metav1.ListMeta{ResourceVersion: "7"}, Items: evs[:1]}, nil
			})
		}, false},
	} {
		cs := fake.NewClientset()
		tc.react(cs)
		r := newReader(cs, 0)
		p := probeEvents(context.Background(), r.eventSource(""))
		if got := r.canSeek(context.Background(), p); got != tc.want || !p.partial {
			t.Errorf("%s: canSeek %v (partial %v), want %v", tc.name, got, p.partial, tc.want)
		}
	}
}

// TestEventsFirstPage: a workload's read asks for the events' first page
// with the workload. A namespace of up to eventsProbe events is then read
// whole, its rest beside the pods; a busier one, as the page's count says,
// has only its targets' events read, without the rest: beside the pods,
// the window of its first pods' events, then a seek for each target the
// window does not hold; a server that does not count has the rest's page
// read, and then the targets' sought when the namespace holds more.
func TestEventsFirstPage(t *testing.T) {
	const ns = "prod"
	rs := "web-5d4c3b2a1"
	objects := func() []runtime.Object {
		d := deploymentWith(ns, "web", 2, 0)
		d.UID = "uid-web"
		r := replicaSet(ns, rs, "web")
		r.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: d.UID, Controller: ptr.To(true)}}
		r.Spec.Replicas, r.Spec.Template = ptr.To[int32](2), d.Spec.Template // current, with its pods
		return []runtime.Object{d, r, pod(ns, rs+"-aaaaa", "web", rs), pod(ns, rs+"-bbbbb", "web", rs)}
	}
	// n events: the first pod's first, the second pod's one, and others
	// before and after web's in the order of their names.
	eventsOf := func(n, first int) []corev1.Event {
		var evs []corev1.Event
		for i := range first {
			evs = append(evs, *event(ns, fmt.Sprintf("%s-aaaaa.%016x", rs, i), "Pod", rs+"-aaaaa", types.UID("uid-"+rs+"-aaaaa"), "Warning", "BackOff", "kubelet", "Back-off restarting failed container app", time.Minute))
		}
		evs = append(evs, *event(ns, rs+"-bbbbb.0000000000000001", "Pod", rs+"-bbbbb", types.UID("uid-"+rs+"-bbbbb"), "Warning", "BackOff", "kubelet", "Back-off restarting failed container app", time.Minute),
			*event(ns, "zeta-00000.0000000000000001", "Pod", "zeta-00000", "", "Normal", "Pulled", "kubelet", "", time.Minute))
		for i := range n - first - 2 {
			evs = append(evs, *event(ns, fmt.Sprintf("other-%05d.%016x", i, i), "Pod", fmt.Sprintf("other-%05d", i), "", "Normal", "Pulled", "kubelet", "", time.Minute))
		}
		return evs
	}
	for _, tc := range []struct {
		name      string
		events    int
		first     int  // the first pod's events
		counts    bool // the server counts what is left (remainingItemCount)
		seeks     bool
		wantLists []string // the events lists, by limit
		targeted  bool
	}{
		{"one page", eventsFirst, 1, true, true, []string{"50"}, false},
		{"read whole beside the pods", eventsProbe, 1, true, true, []string{"50", "500"}, false},
		{"busy: the window holds the targets'", eventsProbe + 1, 1, true, true, []string{"50", "16"}, true},
		{"busy: the window holds one target's", eventsProbe + 1, windowPage - 1, true, true, []string{"50", "16", "8"}, true},
		{"busy: the window holds none", eventsProbe + 1, windowPage + 1, true, true, []string{"50", "16", "8", "8", "8", "8"}, true},
		{"busy, a server that does not seek: by field", eventsProbe + 1, 1, true, false, []string{"50", "16", "8", "8", "0", "0"}, true},
		{"uncounted, quiet", eventsProbe, 1, false, true, []string{"50", "500"}, false},
		{"uncounted, busy", eventsFirst + eventsProbe + 1, 1, false, true, []string{"50", "500", "8", "8"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := fake.NewClientset(objects()...)
			cs.PrependReactor("list", "events", eventsReactor(eventsOf(tc.events, tc.first), tc.seeks, tc.counts))
			snap, err := newReader(cs, 0).Snapshot(context.Background(), ns, "web")
			if err != nil {
				t.Fatal(err)
			}
			lists := eventsLimits(cs)
			want := slices.Sorted(slices.Values(tc.wantLists))
			if !slices.Equal(lists, want) {
				t.Errorf("events lists of limits %v, want %v", lists, want)
			}
			if got := len(snap.EventsOf) > 0; got != tc.targeted {
				t.Errorf("events of %v, want the targets' alone: %v", snap.EventsOf, tc.targeted)
			}
			if len(snap.Events) != tc.first+1 || snap.Events[0].Reason != "BackOff" {
				t.Errorf("%d events %v, want the first pod's %d and the second's", len(snap.Events), snap.Events, tc.first)
			}
		})
	}
}

// TestEventsWindowStatefulSet: the other kinds' read (Read) does as a
// Deployment's: in a busy namespace, a StatefulSet whose status says it is
// not ready has its pods' (NAME-0, NAME-1) events read in the window,
// beside the pods, and no seek after them.
func TestEventsWindowStatefulSet(t *testing.T) {
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "db", UID: "uid-db", Generation: 1},
		Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](2), Selector: sel,
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: sel.MatchLabels}}},
		Status: appsv1.StatefulSetStatus{ObservedGeneration: 1, Replicas: 2, UpdatedReplicas: 2}}
	objs := []runtime.Object{sts}
	var evs []corev1.Event
	for _, name := range []string{"db-0", "db-1"} {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: name, UID: types.UID("uid-" + name), Labels: sel.MatchLabels,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db", UID: sts.UID, Controller: ptr.To(true)}}}}
		objs = append(objs, p)
		evs = append(evs, *event("prod", name+".0000000000000001", "Pod", name, p.UID, "Warning", "BackOff", "kubelet", "Back-off restarting failed container db", time.Minute))
	}
	for i := range eventsProbe {
		evs = append(evs, *event("prod", fmt.Sprintf("web-%05d.%016x", i, i), "Pod", fmt.Sprintf("web-%05d", i), "", "Normal", "Pulled", "kubelet", "", time.Minute))
	}
	cs := fake.NewClientset(objs...)
	pagedEvents(cs, evs, true)
	snap, err := newReader(cs, 0).Read(context.Background(), "prod", chain.Ref{Kind: chain.KindStatefulSet, Name: "db"})
	if err != nil {
		t.Fatal(err)
	}
	limits := eventsLimits(cs)
	if want := []string{strconv.Itoa(windowPage), strconv.Itoa(eventsFirst)}; !slices.Equal(limits, want) {
		t.Errorf("events lists of limits %v, want %v (the first page, the window)", limits, want)
	}
	if len(snap.Events) != 2 || len(snap.EventsOf) != 2 {
		t.Errorf("events %v of %v, want both pods' BackOff", snap.Events, snap.EventsOf)
	}
}

// TestEventsWindowNewReplicaSet: in a busy namespace, a Deployment's
// rollout that fails in its new ReplicaSet's pod has that pod's events in
// the window, though its old ReplicaSet's ready pods come first by name and
// hold more events than the window: the window starts at the new
// ReplicaSet's pods, which the Progressing condition names. Without the
// condition it starts at the Deployment's and the pod's events are sought
// after the pods.
func TestEventsWindowNewReplicaSet(t *testing.T) {
	const ns, oldRS, newRS = "prod", "web-1aaaaaaaa", "web-9zzzzzzzz"
	objects := func(progressing string) []runtime.Object {
		d := deploymentWith(ns, "web", 2, 2)
		d.UID = "uid-web"
		d.Status.Replicas, d.Status.UpdatedReplicas, d.Status.UnavailableReplicas = 3, 1, 1
		if progressing != "" {
			d.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue,
				Reason: "ReplicaSetUpdated", Message: progressing}}
		}
		owned := []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: d.UID, Controller: ptr.To(true)}}
		old, cur := replicaSet(ns, oldRS, "web"), replicaSet(ns, newRS, "web")
		old.OwnerReferences, cur.OwnerReferences = owned, owned
		old.Spec.Replicas, old.Spec.Template = ptr.To[int32](2), *d.Spec.Template.DeepCopy()
		old.Spec.Template.Annotations = map[string]string{"version": "v1"}
		cur.Spec.Replicas, cur.Spec.Template = ptr.To[int32](1), d.Spec.Template
		objs := []runtime.Object{d, old, cur, pod(ns, newRS+"-ccccc", "web", newRS)}
		for _, name := range []string{oldRS + "-aaaaa", oldRS + "-bbbbb"} {
			p := pod(ns, name, "web", oldRS)
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
			objs = append(objs, p)
		}
		return objs
	}
	var evs []corev1.Event
	for _, name := range []string{oldRS + "-aaaaa", oldRS + "-bbbbb"} {
		for i := range windowPage / 2 {
			evs = append(evs, *event(ns, fmt.Sprintf("%s.%016x", name, i), "Pod", name, types.UID("uid-"+name), "Normal", "Pulled", "kubelet", "", time.Minute))
		}
	}
	failing := newRS + "-ccccc"
	evs = append(evs, *event(ns, failing+".0000000000000001", "Pod", failing, types.UID("uid-"+failing), "Warning", "BackOff", "kubelet", "Back-off restarting failed container app", time.Minute))
	for i := range eventsProbe {
		evs = append(evs, *event(ns, fmt.Sprintf("zeta-%05d.%016x", i, i), "Pod", fmt.Sprintf("zeta-%05d", i), "", "Normal", "Pulled", "kubelet", "", time.Minute))
	}
	for _, tc := range []struct {
		name, progressing string
		wantLists         []string
	}{
		{"named by the Progressing condition", `ReplicaSet "` + newRS + `" is progressing.`, []string{"16", "50"}},
		{"timed out", `ReplicaSet "` + newRS + `" has timed out progressing.`, []string{"16", "50"}},
		{"no condition: sought after the pods", "", []string{"16", "50", "8"}},
		{"another object's name", `ReplicaSet "api-9zzzzzzzz" is progressing.`, []string{"16", "50", "8"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := fake.NewClientset(objects(tc.progressing)...)
			cs.PrependReactor("list", "events", eventsReactor(evs, true, true))
			snap, err := newReader(cs, 0).Snapshot(context.Background(), ns, "web")
			if err != nil {
				t.Fatal(err)
			}
			if lists := eventsLimits(cs); !slices.Equal(lists, tc.wantLists) {
				t.Errorf("events lists of limits %v, want %v", lists, tc.wantLists)
			}
			if len(snap.EventsOf) != 1 || snap.EventsOf[0].Name != failing || len(snap.Events) != 1 || snap.Events[0].Reason != "BackOff" {
				t.Errorf("events %v of %v, want the new pod's BackOff alone", snap.Events, snap.EventsOf)
			}
		})
	}
}

// eventsLimits are the limits of the events lists the fake saw, sorted.
func eventsLimits(cs *fake.Clientset) []string {
	var out []string
	for _, a := range cs.Actions() {
		if l, ok := a.(clienttesting.ListActionImpl); ok && a.GetResource().Resource == "events" {
			out = append(out, strconv.FormatInt(l.ListOptions.Limit, 10))
		}
	}
	slices.Sort(out)
	return out
}
