package capture

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// TestServicesFor: the Services the index offers a workload's serving
// link are exactly those the scan of the namespace keeps: that select its
// pods, miss them by one label, are named after it, or govern it.
func TestServicesFor(t *testing.T) {
	svc := func(ns, name string, typ corev1.ServiceType, sel map[string]string) corev1.Service {
		return corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: corev1.ServiceSpec{Type: typ, Selector: sel}}
	}
	b := &Bundle{Services: []corev1.Service{
		svc("shop", "web", "", map[string]string{"app": "web"}),                           // selects
		svc("shop", "web-canary", "", map[string]string{"app": "web", "track": "canary"}), // misses by one
		svc("shop", "db", "", map[string]string{"app": "db"}),                             // unrelated
		svc("shop", "api", "", map[string]string{"app": "api", "tier": "front"}),          // misses by one: tier
		svc("shop", "ext", corev1.ServiceTypeExternalName, map[string]string{"app": "web"}),
		svc("shop", "none", "", nil),
		svc("shop", "web-headless", "", map[string]string{"role": "db"}), // governs, by spec.serviceName
		svc("other", "web", "", map[string]string{"app": "web"}),
		svc("", "from-capture", "", map[string]string{"app": "web"}),
	}}
	for i := range 50 {
		b.Services = append(b.Services, svc("shop", fmt.Sprintf("s%02d", i), "", map[string]string{"app": fmt.Sprintf("s%02d", i), "tier": "back"}))
	}
	labels := map[string]string{"app": "web", "tier": "front"}
	for _, s := range []*chain.Snapshot{
		{Namespace: "shop", Name: "web", Deployment: &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"},
			Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}}}}},
		{Kind: chain.KindStatefulSet, Namespace: "shop", Name: "web", StatefulSet: &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "web"},
			Spec: appsv1.StatefulSetSpec{ServiceName: "web-headless", Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}}}}},
	} {
		want := s.ServingServices(b.servicesIn("shop"))
		got := s.ServingServices(b.servicesFor("shop", s.PodTemplate().Labels, s.Name, s.GoverningService()))
		if diff := cmp.Diff(want, got); diff != "" || len(want) < 4 {
			t.Errorf("%s: the index's Services differ from the scan's (-scan +index):\n%s", s.KindOf(), diff)
		}
	}
}
