package chain

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestShed: a shed snapshot still names its workload, with the object
// itself, and holds none of the evidence its walk read.
func TestShed(t *testing.T) {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "u1"}}
	s := &Snapshot{Namespace: "shop", Name: "web", Deployment: d, Via: "pod/web-1",
		Pods: make([]corev1.Pod, 3), Events: make([]Event, 5), ReplicaSets: make([]appsv1.ReplicaSet, 2),
		Services: make([]corev1.Service, 1), Behind: []*Snapshot{{}}, Gaps: []Gap{{Resource: ResourceEvents}}}
	got := s.Shed()
	switch {
	case got.KindOf() != KindDeployment || got.Namespace != "shop" || got.Name != "web" || got.Deployment != d || got.Via != "pod/web-1":
		t.Errorf("shed %+v, want deployment shop/web with its object and via", got)
	case got.Pods != nil || got.Events != nil || got.ReplicaSets != nil || got.Services != nil || got.Behind != nil || got.Gaps != nil:
		t.Error("the shed snapshot kept evidence")
	case len(s.Pods) != 3:
		t.Error("shedding changed the snapshot")
	}
}
