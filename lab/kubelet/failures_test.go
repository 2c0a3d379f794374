package kubelet

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clocktesting "k8s.io/utils/clock/testing"
)

// instantLab is the lab's behaviour with pulls that take no time, so the
// fake clock only moves when a test steps it.
type instantLab struct{ Lab }

func (l instantLab) Pull(pod *corev1.Pod, c *corev1.Container, image string) PullOutcome {
	out := l.Lab.Pull(pod, c, image)
	out.Duration = 0
	if out.Err == "" {
		out.Size, out.Digest = 1234, "sha256:ab"
	}
	return out
}

// startLabWorker runs a worker with the lab's behaviour on a fake clock.
func startLabWorker(t *testing.T, pod *corev1.Pod, objs ...runtime.Object) (*fake.Clientset, *recordingSink, *labClock, context.Context) {
	t.Helper()
	client := fake.NewClientset(append([]runtime.Object{pod}, objs...)...)
	_, sink, clk, ctx := runLabWorker(t, client, pod)
	return client, sink, clk, ctx
}

// runLabWorker starts the worker of pod, with the lab's behaviour and a fake
// clock, on a node agent that talks to client.
func runLabWorker(t *testing.T, client *fake.Clientset, pod *corev1.Pod) (*podWorker, *recordingSink, *labClock, context.Context) {
	t.Helper()
	return runWorker(t, client, pod, instantLab{})
}

// runWorker starts the worker of pod with behaviour b on a fake clock, and
// its node's status manager.
func runWorker(t *testing.T, client *fake.Clientset, pod *corev1.Pod, b Behaviour) (*podWorker, *recordingSink, *labClock, context.Context) {
	t.Helper()
	sink := &recordingSink{}
	clk := clocktesting.NewFakeClock(t1)
	cfg := Config{Clock: clk, BehaviourFor: func(*corev1.Pod) Behaviour { return b }}
	a := newNodeAgent(NodeConfig{Name: "lab-node-1"}, cfg, client, sink, "6.1.0")
	w := newPodWorker(a, pod)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	go a.status.run(ctx)
	go w.run(ctx)
	return w, sink, &labClock{clk, a.status}, ctx
}

// labClock is a worker's fake clock and its node's status manager.
type labClock struct {
	*clocktesting.FakeClock
	status *statusManager
}

// step moves the fake clock once the worker waits on it and every status
// it computed is written: the status manager writes the newest status of a
// pod, so a state the clock moved past unwritten would never be seen.
func step(t *testing.T, ctx context.Context, clk *labClock, d time.Duration) {
	t.Helper()
	for !clk.HasWaiters() || !clk.status.idle() {
		if ctx.Err() != nil {
			t.Fatal("the worker never waited on the clock")
		}
		time.Sleep(time.Millisecond)
	}
	clk.Step(d)
}

// waiting is a container's waiting reason and message, or "" for none.
func waiting(p *corev1.Pod) (string, string) {
	if len(p.Status.ContainerStatuses) == 0 {
		return "", ""
	}
	if w := p.Status.ContainerStatuses[0].State.Waiting; w != nil {
		return w.Reason, w.Message
	}
	return "", ""
}

func TestWorkerCrashLoopBackOff(t *testing.T) {
	pod := scheduledPod()
	pod.Annotations = map[string]string{"lab.kubectl-chain.io/exit-code": "1", "lab.kubectl-chain.io/exit-after": "1s"}
	client, sink, clk, ctx := startLabWorker(t, pod)
	cs := func(p *corev1.Pod) corev1.ContainerStatus {
		if len(p.Status.ContainerStatuses) == 0 {
			return corev1.ContainerStatus{}
		}
		return p.Status.ContainerStatuses[0]
	}

	waitPod(t, ctx, client, func(p *corev1.Pod) bool { return cs(p).State.Running != nil })
	step(t, ctx, clk, time.Second) // exits; the first restart is immediate
	p := waitPod(t, ctx, client, func(p *corev1.Pod) bool { return cs(p).RestartCount == 1 && cs(p).State.Running != nil })
	if got := cs(p).LastTerminationState.Terminated; got == nil || got.ExitCode != 1 || got.Reason != "Error" {
		t.Fatalf("lastState = %+v, want terminated 1 Error", cs(p).LastTerminationState)
	}
	// Each later exit is held by the back-off (10s, doubling). The sync
	// that finds the container exited reports it terminated, as the
	// kubelet of v1.37.2 does (it writes the status before it learns of
	// the back-off); the back-off's end restarts it.
	restarts := int32(1)
	for _, backoff := range []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second} {
		step(t, ctx, clk, time.Second)
		p = waitPod(t, ctx, client, func(p *corev1.Pod) bool { return cs(p).State.Terminated != nil && cs(p).RestartCount == restarts })
		if got := cs(p).State.Terminated; got.ExitCode != 1 || got.Reason != "Error" || cs(p).LastTerminationState.Terminated == nil {
			t.Fatalf("in back-off %s: state %+v last %+v, want terminated 1 Error after another", backoff, cs(p).State, cs(p).LastTerminationState)
		}
		if p.Status.Phase != corev1.PodRunning || cs(p).Ready {
			t.Errorf("phase %s ready %v, want Running and not ready", p.Status.Phase, cs(p).Ready)
		}
		step(t, ctx, clk, backoff) // the back-off is over: the status says so, then the restart
		waitPod(t, ctx, client, func(p *corev1.Pod) bool { r, _ := waiting(p); return r == "CrashLoopBackOff" })
		step(t, ctx, clk, relistDelay)
		restarts++
		waitPod(t, ctx, client, func(p *corev1.Pod) bool { return cs(p).RestartCount == restarts && cs(p).State.Running != nil })
	}
	// A back-off longer than the kubelet's resync (1m): the resync finds
	// the container still held and reports it waiting in CrashLoopBackOff.
	step(t, ctx, clk, time.Second)
	step(t, ctx, clk, time.Minute)
	p = waitPod(t, ctx, client, func(p *corev1.Pod) bool { r, _ := waiting(p); return r == "CrashLoopBackOff" })
	if _, msg := waiting(p); msg != "back-off 1m20s restarting failed container=web pod=web-1_default(uid-1)" {
		t.Errorf("waiting message = %q", msg)
	}
	if got := cs(p).LastTerminationState.Terminated; got == nil || got.ExitCode != 1 {
		t.Errorf("lastState = %+v, want the exit the back-off holds", cs(p).LastTerminationState)
	}
	var backoffs []recordedEvent
	for _, e := range sink.list() {
		if e.Reason == "BackOff" {
			backoffs = append(backoffs, e)
		}
	}
	want := recordedEvent{"spec.containers{web}", "Warning", "BackOff", "Back-off restarting failed container web in pod web-1_default(uid-1)"}
	if len(backoffs) == 0 || backoffs[0] != want {
		t.Errorf("BackOff events = %+v, want %+v", backoffs, want)
	}
}

func TestWorkerImagePullBackOff(t *testing.T) {
	pod := scheduledPod()
	pod.Spec.Containers[0].Image = "registry.lab.internal/web:missing"
	client, sink, clk, ctx := startLabWorker(t, pod)
	notFound := `rpc error: code = NotFound desc = failed to pull and unpack image "registry.lab.internal/web:missing": failed to resolve image: registry.lab.internal/web:missing: not found`

	p := waitPod(t, ctx, client, func(p *corev1.Pod) bool { r, _ := waiting(p); return r == "ErrImagePull" })
	if _, msg := waiting(p); msg != notFound {
		t.Errorf("ErrImagePull message = %q", msg)
	}
	step(t, ctx, clk, 10*time.Second) // back-off of 10s over: pull again, fail, back-off 20s
	step(t, ctx, clk, 10*time.Second) // within the back-off
	p = waitPod(t, ctx, client, func(p *corev1.Pod) bool { r, _ := waiting(p); return r == "ImagePullBackOff" })
	if _, msg := waiting(p); msg != `Back-off pulling image "registry.lab.internal/web:missing": ErrImagePull: `+notFound {
		t.Errorf("ImagePullBackOff message = %q", msg)
	}
	const path = "spec.containers{web}"
	want := []recordedEvent{
		{path, "Normal", "Pulling", `Pulling image "registry.lab.internal/web:missing"`},
		{path, "Warning", "Failed", `Failed to pull image "registry.lab.internal/web:missing": ` + notFound},
		{path, "Warning", "Failed", "Error: ErrImagePull"},
		{path, "Normal", "Pulling", `Pulling image "registry.lab.internal/web:missing"`},
		{path, "Warning", "Failed", `Failed to pull image "registry.lab.internal/web:missing": ` + notFound},
		{path, "Warning", "Failed", "Error: ErrImagePull"},
		{path, "Normal", "BackOff", `Back-off pulling image "registry.lab.internal/web:missing"`},
		{path, "Warning", "Failed", "Error: ImagePullBackOff"},
	}
	if diff := cmp.Diff(want, sink.list()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestWorkerPullSecret(t *testing.T) {
	pod := scheduledPod()
	pod.Spec.Containers[0].Image = "registry.lab.internal/private/web:v1"
	pod.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "regcred"}}
	client, sink, _, ctx := startLabWorker(t, pod)
	waitPod(t, ctx, client, func(p *corev1.Pod) bool { r, _ := waiting(p); return r == "ErrImagePull" })
	want := recordedEvent{"", "Warning", "FailedToRetrieveImagePullSecret", "Unable to retrieve some image pull secrets (regcred); attempting to pull the image may not succeed."}
	if got := sink.list(); len(got) < 2 || got[1] != want {
		t.Errorf("events = %+v, want %+v second", got, want)
	}

	withSecret := scheduledPod()
	withSecret.Spec = *pod.Spec.DeepCopy()
	regcred := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "regcred", Namespace: "default"}}
	c2, _, _, ctx2 := startLabWorker(t, withSecret, regcred)
	waitPod(t, ctx2, c2, func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
}

func TestWorkerConfigAndMountErrors(t *testing.T) {
	pod := scheduledPod()
	pod.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "web-config"}}}}
	client, sink, clk, ctx := startLabWorker(t, pod)
	p := waitPod(t, ctx, client, func(p *corev1.Pod) bool { r, _ := waiting(p); return r == "CreateContainerConfigError" })
	if _, msg := waiting(p); msg != `configmap "web-config" not found` {
		t.Errorf("message = %q", msg)
	}
	if got := sink.list(); got[len(got)-1].Message != `Error: configmap "web-config" not found` {
		t.Errorf("last event = %+v", got[len(got)-1])
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "web-config", Namespace: "default"}}
	if _, err := client.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	step(t, ctx, clk, 10*time.Second)
	waitPod(t, ctx, client, func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })

	mount := scheduledPod()
	mount.Spec.Volumes = []corev1.Volume{{Name: "tls", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "web-tls"}}}}
	mc, msink, mclk, mctx := startLabWorker(t, mount)
	for len(msink.list()) == 0 {
		time.Sleep(time.Millisecond)
	}
	want := recordedEvent{"", "Warning", "FailedMount", `MountVolume.SetUp failed for volume "tls" : secret "web-tls" not found`}
	if got := msink.list()[0]; got != want {
		t.Errorf("event = %+v, want %+v", got, want)
	}
	if _, err := mc.CoreV1().Secrets("default").Create(mctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "web-tls", Namespace: "default"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	step(t, mctx, mclk, time.Second)
	waitPod(t, mctx, mc, func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
}
