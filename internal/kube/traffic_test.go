package kube

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// TestReadTraffic: svc/NAME is one round trip of parallel requests; the
// workload it selects is read as its own target only when an endpoint is
// missing, and then its chain is in Behind.
func TestReadTraffic(t *testing.T) {
	d := deployment("prod", "web", appSelector("web"))
	d.Spec.Template.Labels = map[string]string{"app": "web"}
	ready := endpointSlice("prod", "web-abcde", "web")
	ready.Endpoints = []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.5"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}}
	readyPod := pod("prod", "web-7c9d8f6b5-q8z7r", "web", "web-7c9d8f6b5")
	readyPod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	first := []string{"get services", "list daemonsets", "list deployments", "list endpointslices kubernetes.io/service-name in (web)",
		"list events limit=500 continue=", "list pods", "list statefulsets"}
	for _, tt := range []struct {
		name   string
		objs   []runtime.Object
		behind bool
	}{
		{"served", []runtime.Object{ready, readyPod}, false},
		{"no ready endpoint", []runtime.Object{endpointSlice("prod", "web-abcde", "web"), pod("prod", "web-7c9d8f6b5-x2k4p", "web", "web-7c9d8f6b5")}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cs := fake.NewClientset(append([]runtime.Object{d, svc("prod", "web", map[string]string{"app": "web"})}, tt.objs...)...)
			snap, err := newReader(cs, 0).Read(context.Background(), "prod", chain.Ref{Kind: chain.KindService, Name: "web"})
			if err != nil {
				t.Fatal(err)
			}
			got := requests(cs)
			if !tt.behind {
				if diff := cmp.Diff(first, got); diff != "" {
					t.Errorf("requests (-want +got):\n%s", diff)
				}
			}
			if (len(snap.Behind) == 1) != tt.behind || snap.Service == nil || len(snap.Templates) != 1 {
				t.Fatalf("behind %d, service %v, templates %d", len(snap.Behind), snap.Service, len(snap.Templates))
			}
			want := 7
			if tt.behind {
				want += snap.Behind[0].Requests
				if snap.Behind[0].Ref() != (chain.Ref{Kind: chain.KindDeployment, Name: "web"}) || snap.Behind[0].Requests < 5 {
					t.Errorf("behind %v, %d requests", snap.Behind[0].Ref(), snap.Behind[0].Requests)
				}
			}
			if snap.Requests != want || len(got) != want {
				t.Errorf("snapshot says %d requests, the fake saw %d; want %d", snap.Requests, len(got), want)
			}
		})
	}
}

// TestReadIngressClassesForbidden: a user who cannot list the
// cluster-scoped IngressClasses gets a gap, not an error.
func TestReadIngressClassesForbidden(t *testing.T) {
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "web"}}
	cs := fake.NewClientset(ing)
	failWith(cs, "list", "ingressclasses", forbidden("list", "networking.k8s.io", "ingressclasses", ""))
	snap, err := newReader(cs, 0).Read(context.Background(), "prod", chain.Ref{Kind: chain.KindIngress, Name: "web"})
	if err != nil {
		t.Fatal(err)
	}
	g := snap.Gap(chain.ResourceIngressClasses)
	if g == nil || !g.Forbidden || g.Check != "kubectl auth can-i list ingressclasses.networking.k8s.io" || snap.Requests != 9 {
		t.Errorf("gap %+v, %d requests (want 9)", g, snap.Requests)
	}
}
