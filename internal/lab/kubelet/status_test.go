package kubelet

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
)

// statusPatches counts the pod status patches client received.
func statusPatches(client *fake.Clientset, resource string) int {
	n := 0
	for _, a := range client.Actions() {
		if a.GetVerb() == "patch" && a.GetResource().Resource == resource && a.GetSubresource() == "status" {
			n++
		}
	}
	return n
}

// TestStatusManagerWritesTheNewest: statuses handed over before their turn
// come collapse into one write of the newest, which keeps what other
// components wrote (a condition the kubelet does not own), and flush waits
// for it.
func TestStatusManagerWritesTheNewest(t *testing.T) {
	pod := scheduledPod()
	pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: "EvictionByEvictionAPI"})
	client := fake.NewClientset(pod)
	clk := clocktesting.NewFakeClock(t1)
	a := newNodeAgent(NodeConfig{Name: "lab-node-1"}, Config{Clock: clk}, client, &recordingSink{}, "6.1.0")
	w := newPodWorker(a, pod)
	w.rec = newPodRecord(pod, t1)

	w.writeStatus() // ContainerCreating
	creating, _ := a.status.reported(w)
	w.rec.sandboxReady, w.rec.ip = true, "10.244.1.2"
	w.writeStatus() // the sandbox's IP: newer, not written yet
	if len(client.Actions()) != 0 {
		t.Fatalf("wrote before the manager ran: %v", client.Actions())
	}
	w.writeStatus() // nothing new: nothing handed over
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go a.status.run(ctx)
	a.status.flush(ctx, w)
	if n := statusPatches(client, "pods"); n != 1 {
		t.Fatalf("%d status patches, want 1 (the newest status)", n)
	}
	stored, err := client.CoreV1().Pods("default").Get(ctx, "web-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if stored.Status.PodIP != "10.244.1.2" {
		t.Errorf("podIP = %q, want the newest status's 10.244.1.2", stored.Status.PodIP)
	}
	var types []corev1.PodConditionType
	for _, c := range stored.Status.Conditions {
		types = append(types, c.Type)
	}
	want := []corev1.PodConditionType{corev1.DisruptionTarget, corev1.PodReadyToStartContainers, corev1.PodInitialized, corev1.PodReady, corev1.ContainersReady, corev1.PodScheduled}
	if diff := cmp.Diff(want, types); diff != "" {
		t.Errorf("conditions (-want +got):\n%s", diff)
	}
	// Transition times come from the status the kubelet computed, not from
	// the moment of the write.
	for _, c := range stored.Status.Conditions {
		if c.Type == corev1.PodInitialized && !c.LastTransitionTime.Equal(&creating.Conditions[1].LastTransitionTime) {
			t.Errorf("Initialized changed at %v, want %v", c.LastTransitionTime, creating.Conditions[1].LastTransitionTime)
		}
	}
}

// TestStatusManagerRetriesAndDrops: a write the API server fails for a
// passing reason is retried; one for a pod that is gone is dropped.
func TestStatusManagerRetriesAndDrops(t *testing.T) {
	pod := scheduledPod()
	client := fake.NewClientset(pod)
	failures := 2
	client.PrependReactor("patch", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		if failures > 0 {
			failures--
			return true, nil, apierrors.NewServiceUnavailable("etcd is not ready")
		}
		return false, nil, nil
	})
	a := newNodeAgent(NodeConfig{Name: "lab-node-1"}, Config{Clock: clock.RealClock{}}, client, &recordingSink{}, "6.1.0")
	w := newPodWorker(a, pod)
	w.rec = newPodRecord(pod, t1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go a.status.run(ctx)
	w.writeStatus()
	a.status.flush(ctx, w)
	if n := statusPatches(client, "pods"); n != 3 {
		t.Errorf("%d status patches, want 3 (two failed, then written)", n)
	}

	if err := client.CoreV1().Pods("default").Delete(ctx, "web-1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	w.rec.sandboxReady = true
	w.writeStatus()
	a.status.flush(ctx, w)
	if n := statusPatches(client, "pods"); n != 4 {
		t.Errorf("%d status patches, want 4 (the one for the deleted pod tried once)", n)
	}
}

// TestHeartbeatPostsStatusOnChange: the Lease is renewed every period, the
// node's status only when it changed (a pulled image) or once the report
// period passed, as the kubelet does.
func TestHeartbeatPostsStatusOnChange(t *testing.T) {
	client := fake.NewClientset()
	clk := clocktesting.NewFakeClock(t1)
	a := newNodeAgent(NodeConfig{Name: "lab-node-1"}, Config{Clock: clk, Heartbeat: HeartbeatPeriod}, client, &recordingSink{}, "6.1.0")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := a.register(ctx); err != nil {
		t.Fatal(err)
	}
	beat := func() {
		t.Helper()
		renewals := leaseWrites(client)
		clk.Step(HeartbeatPeriod)
		a.beat(ctx)
		if leaseWrites(client) != renewals+1 {
			t.Fatal("the lease was not renewed")
		}
	}
	beat()
	if n := statusPatches(client, "nodes"); n != 0 {
		t.Errorf("%d node status patches for an unchanged status, want 0", n)
	}
	a.images.put("registry.lab.internal/web:v1", storedImage{digest: "sha256:ab", size: 1234})
	beat()
	if n := statusPatches(client, "nodes"); n != 1 {
		t.Errorf("%d node status patches after a pull, want 1", n)
	}
	for range int(statusReportPeriod/HeartbeatPeriod) - 1 {
		beat()
	}
	if n := statusPatches(client, "nodes"); n != 1 {
		t.Errorf("%d node status patches within the report period, want 1", n)
	}
	beat()
	if n := statusPatches(client, "nodes"); n != 2 {
		t.Errorf("%d node status patches once the report period passed, want 2", n)
	}
}

func leaseWrites(client *fake.Clientset) int {
	n := 0
	for _, a := range client.Actions() {
		if a.GetResource().Resource == "leases" && (a.GetVerb() == "create" || a.GetVerb() == "update") {
			n++
		}
	}
	return n
}

func TestQuantile(t *testing.T) {
	ds := []time.Duration{4 * time.Second, time.Second, 3 * time.Second, 2 * time.Second}
	for _, tt := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 2 * time.Second}, {0.99, 4 * time.Second}, {1, 4 * time.Second}, {0, time.Second}} {
		if got := quantile(ds, tt.q); got != tt.want {
			t.Errorf("quantile(%v) = %v, want %v", tt.q, got, tt.want)
		}
	}
	if got := quantile(nil, 0.5); got != 0 {
		t.Errorf("quantile of nothing = %v, want 0", got)
	}
}
