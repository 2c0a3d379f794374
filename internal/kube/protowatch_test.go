package kube

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// watchServer answers a watch of pods as the API server does in protobuf:
// length-delimited WatchEvents, each object in its envelope (the apiserver's
// watch handler: the stream serializer's raw WatchEvent, the embedded
// serializer's object).
func watchServer(t *testing.T, events []watch.Event) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/namespaces/shop/pods" || r.URL.Query().Get("watch") != "true" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", protobufWatch)
		embedded := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
		enc := streaming.NewEncoder(protobuf.LengthDelimitedFramer.NewFrameWriter(w), protobuf.NewRawSerializer(scheme.Scheme, scheme.Scheme))
		for _, ev := range events {
			raw, err := runtime.Encode(embedded, ev.Object)
			if err != nil {
				t.Error(err)
				return
			}
			if err := enc.Encode(&metav1.WatchEvent{Type: string(ev.Type), Object: runtime.RawExtension{Raw: raw}}); err != nil {
				t.Error(err)
				return
			}
		}
	}))
}

func drainWatch(t *testing.T, w watch.Interface) []watch.Event {
	t.Helper()
	defer w.Stop()
	var out []watch.Event
	for ev := range w.ResultChan() {
		out = append(out, ev)
	}
	return out
}

// TestProtoWatch: protoWatch decodes the API server's protobuf watch
// frames into the same events client-go's own watch decoder makes: pods
// added and modified, the watch-list's closing bookmark, and an error.
func TestProtoWatch(t *testing.T) {
	pod := func(rv, phase string) *corev1.Pod {
		return &corev1.Pod{TypeMeta: metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"},
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-1", ResourceVersion: rv, Labels: map[string]string{"app": "web"}},
			Spec:       corev1.PodSpec{NodeName: "node-2", Containers: []corev1.Container{{Name: "web", Image: "registry.lab.internal/web:v2"}}},
			Status: corev1.PodStatus{Phase: corev1.PodPhase(phase), ContainerStatuses: []corev1.ContainerStatus{{Name: "web",
				State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 40s restarting failed container=web"}}}}}}
	}
	bookmark := &corev1.Pod{TypeMeta: metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{ResourceVersion: "12", Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"}}}
	gone := &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure,
		Code: http.StatusGone, Reason: metav1.StatusReasonExpired, Message: "too old resource version: 5 (12)"}
	srv := watchServer(t, []watch.Event{{Type: watch.Added, Object: pod("10", "Pending")}, {Type: watch.Bookmark, Object: bookmark},
		{Type: watch.Modified, Object: pod("11", "Running")}, {Type: watch.Error, Object: gone}})
	defer srv.Close()
	c, err := NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	want, err := c.CoreV1().Pods("shop").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rc := restOf(c.CoreV1())
	if rc == nil {
		t.Fatal("a real client has no REST client")
	}
	got, err := protoWatch[corev1.Pod](rc, "pods", "shop")(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, g := drainWatch(t, want), drainWatch(t, got)
	if len(w) != 4 {
		t.Fatalf("client-go's decoder gave %d events, want 4: %+v", len(w), w)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("protoWatch differs from client-go's decoder (-client-go +protoWatch):\n%s", diff)
	}
}

// TestProtoWatchRefusesJSON: a server that answers a protobuf watch with
// JSON ends the watch with an error event, not objects made up of its bytes.
func TestProtoWatchRefusesJSON(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-1"}}}` + "\n"))
	}))
	defer srv.Close()
	c, err := NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	got, err := protoWatch[corev1.Pod](restOf(c.CoreV1()), "pods", "shop")(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	evs := drainWatch(t, got)
	if len(evs) != 1 || evs[0].Type != watch.Error || !strings.Contains(fmt.Sprint(evs[0].Object), "answered a protobuf watch with JSON") {
		t.Errorf("a JSON answer gave %+v, want one error that says so", evs)
	}
}
