package kubelet

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
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

// registeredNode is a node agent on a fake client and clock that has
// registered its node.
func registeredNode(t *testing.T) (*nodeAgent, *fake.Clientset, *clocktesting.FakeClock, context.Context) {
	t.Helper()
	client := fake.NewClientset()
	clk := clocktesting.NewFakeClock(t1)
	a := newNodeAgent(NodeConfig{Name: "lab-node-1"}, Config{Clock: clk, Heartbeat: HeartbeatPeriod}, client, &recordingSink{}, "6.1.0")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	if err := a.register(ctx); err != nil {
		t.Fatal(err)
	}
	return a, client, clk, ctx
}

// TestHeartbeatPostsStatusOnChange: the Lease is renewed every period, the
// node's status only when it changed (a pulled image) or once the report
// period passed, as the kubelet does.
func TestHeartbeatPostsStatusOnChange(t *testing.T) {
	a, client, clk, ctx := registeredNode(t)
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

// newStatusWorker is a worker for pod, with its runtime record, on an agent
// whose clock stands at now (not a whole second: the API server keeps whole
// seconds) and whose status manager runs until the test ends.
func newStatusWorker(t *testing.T, client *fake.Clientset, pod *corev1.Pod, now time.Time) (*podWorker, context.Context) {
	t.Helper()
	a := newNodeAgent(NodeConfig{Name: "lab-node-1"}, Config{Clock: clocktesting.NewFakeClock(now)}, client, &recordingSink{}, "6.1.0")
	w := newPodWorker(a, pod)
	w.rec = newPodRecord(pod, now)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	go a.status.run(ctx)
	return w, ctx
}

// TestStatusManagerKeepsOthersAndReasserts: a condition another component
// changes after the kubelet's report is never written back, and the
// kubelet's own fields are written again when another writer changed them
// (the node lifecycle controller marking a pod not ready); a status that
// did not change is not written again, though the clock has nanoseconds.
func TestStatusManagerKeepsOthersAndReasserts(t *testing.T) {
	const gate = corev1.PodConditionType("lab.kubectl-chain.io/gate")
	pod := scheduledPod()
	pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{Type: gate, Status: corev1.ConditionFalse})
	client := fake.NewClientset(pod)
	w, ctx := newStatusWorker(t, client, pod, t1.Add(500*time.Millisecond))
	w.writeStatus()
	w.a.status.flush(ctx, w)

	// Another component sets its condition; the kubelet's next change
	// (its sandbox) must leave it as it is.
	stored := w.pod().DeepCopy()
	for i := range stored.Status.Conditions {
		if stored.Status.Conditions[i].Type == gate {
			stored.Status.Conditions[i].Status = corev1.ConditionTrue
		}
	}
	updated, err := client.CoreV1().Pods("default").UpdateStatus(ctx, stored, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.update(updated)
	w.rec.sandboxReady, w.rec.ip = true, "10.244.1.2"
	w.writeStatus()
	w.a.status.flush(ctx, w)
	got := conditionStatus(t, ctx, client)
	if got[gate] != corev1.ConditionTrue || got[corev1.PodReadyToStartContainers] != corev1.ConditionTrue {
		t.Fatalf("conditions %v, want the gate True as its owner set it and the sandbox ready", got)
	}

	// Nothing new: nothing written, however often the worker looks.
	before := statusPatches(client, "pods")
	for range 3 {
		w.writeStatus()
		w.a.status.flush(ctx, w)
	}
	if n := statusPatches(client, "pods") - before; n != 0 {
		t.Errorf("%d status writes for an unchanged status, want 0", n)
	}

	// Another writer changes the kubelet's own condition: written back.
	stored = w.pod().DeepCopy()
	for i := range stored.Status.Conditions {
		if stored.Status.Conditions[i].Type == corev1.PodReadyToStartContainers {
			stored.Status.Conditions[i].Status = corev1.ConditionFalse
		}
	}
	if updated, err = client.CoreV1().Pods("default").UpdateStatus(ctx, stored, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	w.update(updated)
	w.writeStatus()
	w.a.status.flush(ctx, w)
	if got := conditionStatus(t, ctx, client); got[corev1.PodReadyToStartContainers] != corev1.ConditionTrue {
		t.Errorf("PodReadyToStartContainers %s after another writer set it False, want the kubelet's True back", got[corev1.PodReadyToStartContainers])
	}
}

func conditionStatus(t *testing.T, ctx context.Context, client *fake.Clientset) map[corev1.PodConditionType]corev1.ConditionStatus {
	t.Helper()
	p, err := client.CoreV1().Pods("default").Get(ctx, "web-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[corev1.PodConditionType]corev1.ConditionStatus{}
	for _, c := range p.Status.Conditions {
		out[c.Type] = c.Status
	}
	return out
}

func TestPassing(t *testing.T) {
	gr := schema.GroupResource{Resource: "pods"}
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{apierrors.NewServiceUnavailable("etcd is not ready"), true},
		{apierrors.NewTooManyRequests("slow down", 1), true},
		{apierrors.NewInternalError(errors.New("boom")), true},
		{apierrors.NewTimeoutError("timed out", 1), true},
		{errors.New("dial tcp 127.0.0.1:6443: connect: connection refused"), true},
		{apierrors.NewNotFound(gr, "web-1"), false},
		{apierrors.NewConflict(gr, "web-1", errors.New("uid mismatch")), false},
		{apierrors.NewForbidden(gr, "web-1", errors.New("node lab-node-2 cannot")), false},
		{apierrors.NewBadRequest("bad patch"), false},
		{patchError{errors.New("computing the status patch")}, false},
	} {
		if got := passing(tt.err); got != tt.want {
			t.Errorf("passing(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

// TestHeartbeatPostsStatusWhenNotReady: a node the node lifecycle controller
// marked Unknown (its Lease was late) posts Ready again at the next beat,
// with a new transition.
func TestHeartbeatPostsStatusWhenNotReady(t *testing.T) {
	a, client, clk, ctx := registeredNode(t)
	node, err := client.CoreV1().Nodes().Get(ctx, "lab-node-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a.stored = cache.NewStore(cache.MetaNamespaceKeyFunc)
	if err := a.stored.Add(node); err != nil {
		t.Fatal(err)
	}
	clk.Step(HeartbeatPeriod)
	a.beat(ctx)
	if n := statusPatches(client, "nodes"); n != 0 {
		t.Fatalf("%d node status patches for a node stored as the kubelet reports it, want 0", n)
	}
	unknown := node.DeepCopy()
	for i := range unknown.Status.Conditions {
		unknown.Status.Conditions[i].Status = corev1.ConditionUnknown
		unknown.Status.Conditions[i].Reason = "NodeStatusUnknown"
	}
	if err := a.stored.Update(unknown); err != nil {
		t.Fatal(err)
	}
	clk.Step(HeartbeatPeriod)
	a.beat(ctx)
	if n := statusPatches(client, "nodes"); n != 1 {
		t.Fatalf("%d node status patches after the node went Unknown, want 1", n)
	}
	got, err := client.CoreV1().Nodes().Get(ctx, "lab-node-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range got.Status.Conditions {
		if c.Type == corev1.NodeReady && (c.Status != corev1.ConditionTrue || !c.LastTransitionTime.Time.Equal(clk.Now())) {
			t.Errorf("Ready = %s since %v, want True since %v", c.Status, c.LastTransitionTime, clk.Now())
		}
	}
}
