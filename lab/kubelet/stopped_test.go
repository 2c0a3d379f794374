package kubelet

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// TestStoppedKubelet: a node annotated kubelet-stopped renews no Lease and
// posts no status, as a kubelet that died; without the annotation it beats
// again.
func TestStoppedKubelet(t *testing.T) {
	a, client, clk, ctx := registeredNode(t)
	store := cache.NewStore(cache.MetaNamespaceKeyFunc)
	a.stored = store
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "lab-node-1", Annotations: map[string]string{AnnotationStopped: "true"}}}
	if err := store.Add(node); err != nil {
		t.Fatal(err)
	}
	before := leaseWrites(client)
	for range 3 {
		clk.Step(HeartbeatPeriod)
		a.beat(ctx)
	}
	if n := leaseWrites(client) - before; n != 0 || !a.stopped() {
		t.Errorf("a stopped kubelet renewed its lease %d times (stopped %v)", n, a.stopped())
	}
	if !a.status.paused() {
		t.Error("a stopped kubelet's pod status writes are not held back")
	}
	back := node.DeepCopy()
	back.Annotations = nil
	if err := store.Update(back); err != nil {
		t.Fatal(err)
	}
	clk.Step(HeartbeatPeriod)
	a.beat(ctx)
	if n := leaseWrites(client) - before; n != 1 || a.stopped() {
		t.Errorf("back: %d lease renewals, want 1 (stopped %v)", n, a.stopped())
	}
}
