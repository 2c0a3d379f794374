package kube

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

func svc(ns, name string, selector map[string]string) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: corev1.ServiceSpec{Selector: selector}}
}

func endpointSlice(ns, name, service string) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
		Labels: map[string]string{discoveryv1.LabelServiceName: service}}}
}

// TestSnapshotServing: the Services are listed beside the GET (no round
// trip of their own), and only the EndpointSlices of the Services that
// select the pods, or may be meant for them, are asked for, in the second
// round trip; Services that concern other pods are not kept.
func TestSnapshotServing(t *testing.T) {
	d := deployment("prod", "web", appSelector("web"))
	d.Spec.Template.Labels = map[string]string{"app": "web"}
	objs := append(cluster()[1:], d,
		svc("prod", "web", map[string]string{"app": "web"}), svc("prod", "db", map[string]string{"app": "db"}),
		svc("other", "web", map[string]string{"app": "web"}),
		endpointSlice("prod", "web-abcde", "web"), endpointSlice("prod", "db-fghij", "db"))
	cs := fake.NewClientset(objs...)
	snap, err := newReader(cs, 0).Snapshot(context.Background(), "prod", "web")
	if err != nil {
		t.Fatal(err)
	}
	// A Service selects the pods: the NetworkPolicies are read too.
	want := []string{"get deployments", "list endpointslices kubernetes.io/service-name in (web)", "list events limit=50 continue=",
		"list horizontalpodautoscalers", "list networkpolicies", "list pods app=web", "list replicasets app=web", "list services"}
	if diff := cmp.Diff(want, requests(cs)); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	if snap.Requests != 8 || !snap.ServicesRead || len(snap.Services) != 1 || snap.Services[0].Name != "web" ||
		len(snap.EndpointSlices) != 1 || snap.EndpointSlices[0].Name != "web-abcde" {
		t.Errorf("requests %d, read %v, services %v, slices %v", snap.Requests, snap.ServicesRead, snap.Services, snap.EndpointSlices)
	}
}

// TestSnapshotServicesForbidden: a user who cannot list Services still gets
// every other link; the serving link's evidence is a gap with its check.
func TestSnapshotServicesForbidden(t *testing.T) {
	cs := fake.NewClientset(cluster()...)
	failWith(cs, "list", "services", forbidden("list", "", "services", ""))
	snap, err := newReader(cs, 0).Snapshot(context.Background(), "prod", "web")
	if err != nil {
		t.Fatal(err)
	}
	g := snap.Gap(chain.ResourceServices)
	if g == nil || !g.Forbidden || g.Check != "kubectl auth can-i list services -n prod" || snap.ServicesRead || len(snap.Pods) != 2 {
		t.Errorf("gap %+v, read %v, %d pods", g, snap.ServicesRead, len(snap.Pods))
	}
}

// TestSnapshotOtherPods: a Service that may be meant for the pods (all
// but one of its selector labels match) gets one pods list by its own
// selector, whose pods that are not the workload's say it is another's.
func TestSnapshotOtherPods(t *testing.T) {
	d := deployment("prod", "web", appSelector("web"))
	d.Spec.Template.Labels = map[string]string{"app": "web", "shop": "x"}
	db := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "db-0", Labels: map[string]string{"app": "db", "shop": "x"}},
		Status: corev1.PodStatus{Phase: corev1.PodPending}}
	objs := append(cluster()[1:], d, db, svc("prod", "db", map[string]string{"app": "db", "shop": "x"}))
	cs := fake.NewClientset(objs...)
	snap, err := newReader(cs, 0).Snapshot(context.Background(), "prod", "web")
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.OtherPods) != 1 || snap.OtherPods[0].Name != "db-0" {
		t.Errorf("other pods %v, want db-0", snap.OtherPods)
	}
	if got := len(cs.Actions()); got != snap.Requests || !slices.Contains(requests(cs), "list pods app=db,shop=x limit=2 continue=") {
		t.Errorf("requests %v (%d counted)", requests(cs), snap.Requests)
	}
}
