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
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
)

// lastBeforeDelete keeps the pod as stored when the kubelet deletes it: the
// terminal status the kubelet wrote.
type lastBeforeDelete struct {
	mu  sync.Mutex
	pod *corev1.Pod
}

func (l *lastBeforeDelete) watch(c *fake.Clientset) {
	c.PrependReactor("delete", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		d := a.(k8stesting.DeleteAction)
		obj, err := c.Tracker().Get(corev1.SchemeGroupVersion.WithResource("pods"), d.GetNamespace(), d.GetName())
		if err == nil {
			l.mu.Lock()
			l.pod = obj.(*corev1.Pod).DeepCopy()
			l.mu.Unlock()
		}
		return false, nil, nil
	})
}

func (l *lastBeforeDelete) get() *corev1.Pod {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pod
}

// deletePod marks the worker's pod deleted with a grace period, as the API
// server does, and hands it to the worker.
func deletePod(t *testing.T, ctx context.Context, w *podWorker, client *fake.Clientset, grace int64) {
	t.Helper()
	waitWorkerRunning(t, ctx, w)
	p, err := client.CoreV1().Pods("default").Get(ctx, "web-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.DeletionTimestamp, p.DeletionGracePeriodSeconds = &metav1.Time{Time: t1}, ptr.To(grace)
	w.update(p)
}

func waitDeleted(t *testing.T, ctx context.Context, client *fake.Clientset) {
	t.Helper()
	for {
		if _, err := client.CoreV1().Pods("default").Get(ctx, "web-1", metav1.GetOptions{}); apierrors.IsNotFound(err) {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatal("the pod was never deleted")
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// startTerminationWorker runs a lab worker for pod and records its last
// status before the kubelet's final delete.
func startTerminationWorker(t *testing.T, pod *corev1.Pod) (*podWorker, *fake.Clientset, *recordingSink, *labClock, *lastBeforeDelete, context.Context) {
	t.Helper()
	client := fake.NewClientset(pod)
	last := &lastBeforeDelete{}
	last.watch(client)
	w, sink, clk, ctx := runLabWorker(t, client, pod)
	waitPod(t, ctx, client, func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	waitWorkerRunning(t, ctx, w)
	return w, client, sink, clk, last, ctx
}

// TestWorkerTerminatesACleanExit: a container that exits 0 on SIGTERM ends
// at once; the pod is Succeeded with the kubelet's terminal conditions,
// then deleted.
func TestWorkerTerminatesACleanExit(t *testing.T) {
	w, client, sink, _, last, ctx := startTerminationWorker(t, scheduledPod())
	deletePod(t, ctx, w, client, 30)
	waitDeleted(t, ctx, client) // no clock step: no wait

	p := last.get()
	if p == nil {
		t.Fatal("the pod was deleted without a terminal status")
	}
	cs := p.Status.ContainerStatuses[0]
	want := &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", ContainerID: cs.ContainerID,
		StartedAt: metav1.NewTime(t1), FinishedAt: metav1.NewTime(t1)}
	if diff := cmp.Diff(want, cs.State.Terminated); diff != "" {
		t.Errorf("terminated state (-want +got):\n%s", diff)
	}
	if cs.Ready || *cs.Started || p.Status.Phase != corev1.PodSucceeded {
		t.Errorf("ready %v started %v phase %s, want false false Succeeded", cs.Ready, *cs.Started, p.Status.Phase)
	}
	type cond struct{ Type, Status, Reason, Message string }
	var got []cond
	for _, c := range p.Status.Conditions {
		got = append(got, cond{string(c.Type), string(c.Status), c.Reason, c.Message})
	}
	wantConds := []cond{
		{"PodReadyToStartContainers", "False", "PodSandboxNotReady", "pod sandbox is not ready"},
		{"Initialized", "True", "PodCompleted", ""},
		{"Ready", "False", "PodCompleted", ""},
		{"ContainersReady", "False", "PodCompleted", ""},
		{"PodScheduled", "True", "", ""},
	}
	if diff := cmp.Diff(wantConds, got); diff != "" {
		t.Errorf("conditions (-want +got):\n%s", diff)
	}
	if e := sink.list(); e[len(e)-1] != (recordedEvent{"spec.containers{web}", "Normal", "Killing", "Stopping container web"}) {
		t.Errorf("last event %+v, want Killing", e[len(e)-1])
	}
}

// TestWorkerTerminatesWithinTheGracePeriod: a container slower than the
// grace period is SIGKILLed when it ends (137 Error), one that ends on
// SIGTERM without a handler exits 143, a preStop sleep counts against the
// grace period, a crash-looping container has no exit to report; the pod is
// Failed, and deleted only once the grace period has passed.
func TestWorkerTerminatesWithinTheGracePeriod(t *testing.T) {
	pod := scheduledPod()
	pod.Annotations = map[string]string{
		"lab.kubectl-chain.io/web.stop-after":      "1h",
		"lab.kubectl-chain.io/term.stop-after":     "1s",
		"lab.kubectl-chain.io/term.stop-exit-code": "143",
		"lab.kubectl-chain.io/crash.exit-code":     "1",
		"lab.kubectl-chain.io/crash.exit-after":    "0s",
	}
	pod.Spec.Containers = append(pod.Spec.Containers,
		corev1.Container{Name: "term", Image: "registry.lab.internal/web:v1",
			Lifecycle: &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 2}}}},
		corev1.Container{Name: "crash", Image: "registry.lab.internal/web:v2"})
	w, client, sink, clk, last, ctx := startTerminationWorker(t, pod)
	// crash exits at once, restarts at once, exits again: back-off.
	for st := w.pod().Status.ContainerStatuses[2]; st.RestartCount < 1 || st.State.Terminated == nil; st = w.pod().Status.ContainerStatuses[2] {
		step(t, ctx, clk, time.Millisecond)
		time.Sleep(5 * time.Millisecond)
	}
	deletePod(t, ctx, w, client, 5)
	// The kill's timer starts right after the Killing events.
	for n := 0; n < 2; {
		n = 0
		for _, e := range sink.list() {
			if e.Reason == "Killing" {
				n++
			}
		}
		time.Sleep(time.Millisecond)
	}
	step(t, ctx, clk, 4*time.Second)
	time.Sleep(20 * time.Millisecond)
	if _, err := client.CoreV1().Pods("default").Get(ctx, "web-1", metav1.GetOptions{}); err != nil {
		t.Fatalf("pod deleted before its grace period ended: %v", err)
	}
	step(t, ctx, clk, time.Second)
	waitDeleted(t, ctx, client)

	p := last.get()
	type term struct {
		Name     string
		ExitCode int32
		Reason   string
		Message  string
		Finished time.Duration
	}
	// Finish times count from the kill, when web (SIGKILLed at the end of
	// the 5 s grace period) finished less 5 s.
	var began time.Time
	if tt := p.Status.ContainerStatuses[0].State.Terminated; tt != nil {
		began = tt.FinishedAt.Add(-5 * time.Second)
	}
	var got []term
	for _, cs := range p.Status.ContainerStatuses {
		tt := cs.State.Terminated
		if tt == nil {
			t.Fatalf("%s not terminated: %+v", cs.Name, cs.State)
		}
		var fin time.Duration
		if !tt.FinishedAt.IsZero() {
			fin = tt.FinishedAt.Sub(began)
		}
		got = append(got, term{cs.Name, tt.ExitCode, tt.Reason, tt.Message, fin})
	}
	want := []term{
		{"web", 137, "Error", "", 5 * time.Second},
		{"term", 143, "Error", "", 3 * time.Second},
		// exited and held by its back-off when the pod was deleted: it
		// stays terminated as it exited
		{"crash", 1, "Error", "", 0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("terminated containers (-want +got):\n%s", diff)
	}
	if p.Status.Phase != corev1.PodFailed {
		t.Errorf("phase %s, want Failed", p.Status.Phase)
	}
	var killing []string
	for _, e := range sink.list() {
		if e.Reason == "Killing" {
			killing = append(killing, e.Message)
		}
	}
	if diff := cmp.Diff([]string{"Stopping container web", "Stopping container term"}, killing); diff != "" {
		t.Errorf("Killing events (-want +got):\n%s", diff)
	}
}
