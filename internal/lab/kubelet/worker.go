package kubelet

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/reference"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
)

// podWorker drives one pod through its life on a node, like the kubelet's pod
// worker: admit it, create its sandbox, pull, create and start each container
// in spec order, report each state, and stop it when it is deleted. It runs
// in its own goroutine and sees the newest version of the pod through update.
type podWorker struct {
	a    *nodeAgent
	rec  *podRecord
	wake chan struct{}

	mu     sync.Mutex
	latest *corev1.Pod
}

func newPodWorker(a *nodeAgent, pod *corev1.Pod) *podWorker {
	return &podWorker{a: a, latest: pod, wake: make(chan struct{}, 1)}
}

// update hands the worker a newer version of its pod. Versions older than the
// one it holds (an informer event overtaken by the worker's own patch) are
// dropped.
func (w *podWorker) update(p *corev1.Pod) {
	w.mu.Lock()
	if newerOrEqual(p.ResourceVersion, w.latest.ResourceVersion) {
		w.latest = p
	}
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func newerOrEqual(rv, than string) bool {
	a, errA := strconv.ParseUint(rv, 10, 64)
	b, errB := strconv.ParseUint(than, 10, 64)
	if errA != nil || errB != nil {
		return true
	}
	return a >= b
}

func (w *podWorker) pod() *corev1.Pod {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.latest
}

func (w *podWorker) deleting() bool { return w.pod().DeletionTimestamp != nil }

// run is the worker's life: start the pod (or adopt it, when the kubelet
// restarts under running pods), keep it until it is deleted, then stop it.
func (w *podWorker) run(ctx context.Context) {
	if !w.adopt(w.pod()) && !w.deleting() {
		w.start(ctx)
	}
	for !w.deleting() {
		var due <-chan time.Time
		var t clock.Timer
		if at, ok := w.promoteReady(); ok {
			t = w.a.clock.NewTimer(at.Sub(w.a.clock.Now()))
			due = t.C()
		}
		select {
		case <-ctx.Done():
		case <-w.wake:
		case <-due:
			w.writeStatus(ctx)
		}
		if t != nil {
			t.Stop()
		}
		if ctx.Err() != nil {
			return
		}
	}
	w.stop(ctx)
}

// adopt takes over a pod that already runs on this node (a restarted
// kubelet): its IP and containers are reconstructed from its status.
func (w *podWorker) adopt(pod *corev1.Pod) bool {
	if pod.Status.Phase != corev1.PodRunning || len(pod.Status.ContainerStatuses) != len(pod.Spec.Containers) {
		return false
	}
	rec := &podRecord{startTime: w.a.clock.Now(), sandboxReady: true, ip: pod.Status.PodIP}
	if pod.Status.StartTime != nil {
		rec.startTime = pod.Status.StartTime.Time
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.State.Running == nil {
			return false
		}
		rec.containers = append(rec.containers, &containerRecord{
			name: cs.Name, image: cs.Image, imageID: cs.ImageID, id: cs.ContainerID,
			phase: containerRunning, startedAt: cs.State.Running.StartedAt.Time,
			started: ptr.Deref(cs.Started, true), ready: cs.Ready,
		})
	}
	w.a.ipam.reserve(rec.ip)
	w.rec = rec
	return true
}

// start admits the pod, reports it ContainerCreating, creates its sandbox,
// runs its init containers in order, starts its containers one by one, and
// reports them running.
func (w *podWorker) start(ctx context.Context) {
	pod := w.pod()
	w.rec = newPodRecord(pod, w.a.clock.Now())
	w.writeStatus(ctx)

	ip, err := w.a.ipam.allocate()
	if err != nil {
		klog.ErrorS(err, "creating the pod sandbox", "pod", klog.KObj(pod))
		return
	}
	w.rec.ip, w.rec.sandboxReady = ip, true

	behaviour := w.a.behaviourFor(pod)
	for i := range pod.Spec.InitContainers {
		if w.deleting() || ctx.Err() != nil {
			return
		}
		w.startContainer(ctx, pod, &pod.Spec.InitContainers[i], w.rec.initContainers[i], behaviour)
	}
	if len(pod.Spec.InitContainers) > 0 {
		w.writeStatus(ctx)
	}
	for i := range pod.Spec.Containers {
		if w.deleting() || ctx.Err() != nil {
			return
		}
		w.startContainer(ctx, pod, &pod.Spec.Containers[i], w.rec.containers[i], behaviour)
	}
	w.writeStatus(ctx)
}

// startContainer is the kubelet's startContainer for a healthy container:
// ensure the image, create, start. A plain init container then completes.
func (w *podWorker) startContainer(ctx context.Context, pod *corev1.Pod, c *corev1.Container, cr *containerRecord, b Behaviour) {
	ref := containerRef(pod, c, cr.init)
	cr.image, cr.imageID = w.a.ensureImage(ctx, pod, c, b, ref)
	cr.id = containerID(pod, c.Name, 0)
	emit(w.a.events, ref, reasonCreated, msgCreated)
	emit(w.a.events, ref, reasonStarted, msgStarted)
	now := w.a.clock.Now()
	cr.phase, cr.startedAt = containerRunning, now
	if cr.init && !cr.sidecar {
		cr.phase, cr.finishedAt, cr.exitCode, cr.reason = containerExited, now, 0, reasonCompleted
		return
	}
	cr.started = c.StartupProbe == nil
	cr.ready = b.Run(pod, c).Ready && cr.started && c.ReadinessProbe == nil
}

// promoteReady marks started and ready the containers whose first startup
// and readiness probes are due (a healthy probe passes on its first run,
// after initialDelaySeconds) and returns when the next one is due.
func (w *podWorker) promoteReady() (time.Time, bool) {
	if w.rec == nil {
		return time.Time{}, false
	}
	pod := w.pod()
	specs := map[string]*corev1.Container{}
	for i := range pod.Spec.InitContainers {
		specs[pod.Spec.InitContainers[i].Name] = &pod.Spec.InitContainers[i]
	}
	for i := range pod.Spec.Containers {
		specs[pod.Spec.Containers[i].Name] = &pod.Spec.Containers[i]
	}
	now := w.a.clock.Now()
	var next time.Time
	found := false
	for _, cr := range w.rec.readyCandidates() {
		spec := specs[cr.name]
		if spec == nil || cr.phase != containerRunning || (cr.started && cr.ready) {
			continue
		}
		at := cr.startedAt.Add(probeDelay(spec.StartupProbe) + probeDelay(spec.ReadinessProbe))
		if !now.Before(at) {
			cr.started, cr.ready = true, true
			continue
		}
		if !found || at.Before(next) {
			next, found = at, true
		}
	}
	return next, found
}

func probeDelay(p *corev1.Probe) time.Duration {
	if p == nil {
		return 0
	}
	return time.Duration(p.InitialDelaySeconds) * time.Second
}

// stop is the kubelet's termination of a deleted pod: a Killing event for
// every running container, then the final delete (grace period 0, UID
// precondition) that removes the pod from the API.
func (w *podWorker) stop(ctx context.Context) {
	pod := w.pod()
	if w.rec != nil {
		for i, cr := range w.rec.containers {
			if cr.phase == containerRunning {
				emit(w.a.events, containerRef(pod, &pod.Spec.Containers[i], false), reasonKilling, fmt.Sprintf(msgKilling, cr.name))
			}
		}
		for i, cr := range w.rec.initContainers {
			if cr.phase == containerRunning {
				emit(w.a.events, containerRef(pod, &pod.Spec.InitContainers[i], true), reasonKilling, fmt.Sprintf(msgKilling, cr.name))
			}
		}
		w.a.ipam.release(w.rec.ip)
	}
	err := w.a.client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{
		GracePeriodSeconds: ptr.To[int64](0),
		Preconditions:      metav1.NewUIDPreconditions(string(pod.UID)),
	})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		klog.ErrorS(err, "deleting the pod", "pod", klog.KObj(pod))
	}
}

// writeStatus patches the pod's status when it differs from what is stored.
// It retries until the write lands, the pod is gone or recreated (NotFound,
// or the UID precondition fails), or the worker stops: a status the kubelet
// gave up on would leave the pod stuck in its last reported state.
func (w *podWorker) writeStatus(ctx context.Context) {
	w.promoteReady()
	delay := 100 * time.Millisecond
	for {
		pod := w.pod()
		want := podStatus(pod, w.rec, w.a.hostIP, w.a.clock.Now())
		if apiequality.Semantic.DeepEqual(want, pod.Status) {
			return
		}
		patched, err := patchPodStatus(ctx, w.a.client, pod, want)
		if err == nil {
			w.update(patched)
			return
		}
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) || ctx.Err() != nil {
			return
		}
		klog.ErrorS(err, "updating the pod status", "pod", klog.KObj(pod))
		select {
		case <-ctx.Done():
			return
		case <-w.a.clock.After(delay):
		}
		delay = min(2*delay, 2*time.Second)
	}
}

// containerRef is the involvedObject of a container's events:
// GenerateContainerRef of pkg/kubelet/container/ref.go.
func containerRef(pod *corev1.Pod, c *corev1.Container, init bool) *corev1.ObjectReference {
	path := "spec.containers{" + c.Name + "}"
	if init {
		path = "spec.initContainers{" + c.Name + "}"
	}
	ref, err := reference.GetPartialReference(scheme.Scheme, pod, path)
	if err != nil {
		return &corev1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID, FieldPath: path}
	}
	return ref
}
