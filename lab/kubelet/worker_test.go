package kubelet

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clocktesting "k8s.io/utils/clock/testing"
)

// recordedEvent is one event as the sink saw it.
type recordedEvent struct {
	FieldPath, Type, Reason, Message string
}

type recordingSink struct {
	mu     sync.Mutex
	events []recordedEvent
}

func (s *recordingSink) Event(obj runtime.Object, eventtype, reason, message string) {
	ref, _ := obj.(*corev1.ObjectReference)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, recordedEvent{FieldPath: ref.FieldPath, Type: eventtype, Reason: reason, Message: message})
}

func (s *recordingSink) list() []recordedEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]recordedEvent(nil), s.events...)
}

// instantPull pulls in no time, so the Pulled message is deterministic.
type instantPull struct{ Healthy }

func (instantPull) Pull(*corev1.Pod, *corev1.Container, string) PullOutcome {
	return PullOutcome{Size: 1234, Digest: "sha256:ab"}
}

func TestWorkerRunsAndStopsHealthyPod(t *testing.T) {
	pod := scheduledPod()
	client := fake.NewClientset(pod)
	sink := &recordingSink{}
	cfg := Config{Clock: clocktesting.NewFakeClock(t1), BehaviourFor: func(*corev1.Pod) Behaviour { return instantPull{} }}
	a := newNodeAgent(NodeConfig{Name: "lab-node-1"}, cfg, client, sink, "6.1.0")
	p := &progress{}
	a.progress, a.status.progress = p, p
	w := newPodWorker(a, pod)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go a.status.run(ctx)
	done := make(chan struct{})
	go func() { w.run(ctx); close(done) }()

	running := waitPod(t, ctx, client, func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	if got := running.Status.ContainerStatuses[0]; !got.Ready || got.State.Running == nil || got.ContainerID == "" {
		t.Fatalf("container status = %+v, want running and ready", got)
	}
	if got, want := running.Status.PodIP, "10.244.1.2"; got != want {
		t.Errorf("podIP = %q, want %q", got, want)
	}

	// Let the worker take in its own patch before the deletion arrives, as
	// resource versions would order them on a real API server.
	waitWorkerRunning(t, ctx, w)
	deleting := running.DeepCopy()
	deleting.DeletionTimestamp = &metav1.Time{Time: t1}
	w.update(deleting)
	<-done
	// The fake clock stood still: ready at once, each write without wait.
	ready, written := p.take()
	if diff := cmp.Diff([]time.Duration{0}, ready); diff != "" {
		t.Errorf("seen-to-ready figures (-want +got):\n%s", diff)
	}
	if len(written) < 2 {
		t.Errorf("%d status writes recorded, want the running and the terminal one at least", len(written))
	}
	if _, err := client.CoreV1().Pods("default").Get(ctx, "web-1", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("pod after stop: err = %v, want NotFound", err)
	}

	const path = "spec.containers{web}"
	want := []recordedEvent{
		{path, "Normal", "Pulling", `Pulling image "registry.lab.internal/web:v1"`},
		{path, "Normal", "Pulled", `Successfully pulled image "registry.lab.internal/web:v1" in 0s (0s including waiting). Image size: 1234 bytes.`},
		{path, "Normal", "Created", "Container created"},
		{path, "Normal", "Started", "Container started"},
		{path, "Normal", "Killing", "Stopping container web"},
	}
	if diff := cmp.Diff(want, sink.list()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func waitPod(t *testing.T, ctx context.Context, c *fake.Clientset, ok func(*corev1.Pod) bool) *corev1.Pod {
	t.Helper()
	for {
		p, err := c.CoreV1().Pods("default").Get(ctx, "web-1", metav1.GetOptions{})
		if err == nil && ok(p) {
			return p
		}
		select {
		case <-ctx.Done():
			t.Fatalf("pod never reached the state: last %+v, err %v", p, err)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// waitWorkerRunning waits until the worker holds its own Running patch: the
// status manager writes the pod before it hands the patch to the worker, so
// a client can see Running while the worker still holds the pod it started
// with.
func waitWorkerRunning(t *testing.T, ctx context.Context, w *podWorker) {
	t.Helper()
	for w.pod().Status.Phase != corev1.PodRunning {
		select {
		case <-ctx.Done():
			t.Fatal("the worker never took in its Running status")
		case <-time.After(time.Millisecond):
		}
	}
}

// startWorker runs a worker for pod on a fake client and clock.
func startWorker(t *testing.T, pod *corev1.Pod) (*podWorker, *fake.Clientset, *recordingSink, *labClock, context.Context) {
	t.Helper()
	client := fake.NewClientset(pod)
	w, sink, clk, ctx := runWorker(t, client, pod, instantPull{})
	return w, client, sink, clk, ctx
}

func TestWorkerRunsInitContainersFirst(t *testing.T) {
	pod := scheduledPod()
	always := corev1.ContainerRestartPolicyAlways
	pod.Spec.InitContainers = []corev1.Container{
		{Name: "migrate", Image: "registry.lab.internal/web:v1"},
		{Name: "proxy", Image: "registry.lab.internal/web:v2", RestartPolicy: &always},
	}
	_, client, sink, _, ctx := startWorker(t, pod)
	running := waitPod(t, ctx, client, func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })

	type state struct {
		Name    string
		Running bool
		Reason  string
		Ready   bool
	}
	var got []state
	for _, cs := range append(running.Status.InitContainerStatuses, running.Status.ContainerStatuses...) {
		s := state{Name: cs.Name, Running: cs.State.Running != nil, Ready: cs.Ready}
		if cs.State.Terminated != nil {
			s.Reason = cs.State.Terminated.Reason
		}
		got = append(got, s)
	}
	want := []state{{"migrate", false, "Completed", false}, {"proxy", true, "", true}, {"web", true, "", true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("container states (-want +got):\n%s", diff)
	}
	var order []string
	for _, e := range sink.list() {
		if e.Reason == "Started" {
			order = append(order, e.FieldPath)
		}
	}
	if diff := cmp.Diff([]string{"spec.initContainers{migrate}", "spec.initContainers{proxy}", "spec.containers{web}"}, order); diff != "" {
		t.Errorf("start order (-want +got):\n%s", diff)
	}
}

func TestWorkerWaitsForReadinessProbe(t *testing.T) {
	pod := scheduledPod()
	pod.Spec.Containers[0].ReadinessProbe = &corev1.Probe{InitialDelaySeconds: 5}
	_, client, _, clk, ctx := startWorker(t, pod)
	running := waitPod(t, ctx, client, func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	if running.Status.ContainerStatuses[0].Ready {
		t.Fatal("container ready before its readiness probe's initial delay")
	}
	step(t, ctx, clk, 5*time.Second)
	waitPod(t, ctx, client, func(p *corev1.Pod) bool { return p.Status.ContainerStatuses[0].Ready })
}
