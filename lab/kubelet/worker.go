package kubelet

import (
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/reference"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/utils/ptr"
)

// podWorker drives one pod through its life on a node, like the kubelet's pod
// worker: admit it, create its sandbox, pull, create and start each container
// in spec order, report each state, and stop it when it is deleted. It runs
// in its own goroutine and sees the newest version of the pod through update.
type podWorker struct {
	a         *nodeAgent
	rec       *podRecord
	wake      chan struct{}
	behaviour Behaviour

	// The kubelet's back-offs: image pulls keyed by image, container
	// restarts keyed by container name (both per pod, as the kubelet keys
	// them by pod UID).
	imageBackOff *flowcontrol.Backoff
	crashBackOff *flowcontrol.Backoff
	// Volumes: mounted, or when the failed mount is retried and how long
	// the retry after that waits.
	volumesReady bool
	mountRetryAt time.Time
	mountDelay   time.Duration
	// next is when the pod needs its next sync, zero for never.
	next time.Time
	// seen is when the node saw the pod; readyTold whether its first
	// Ready went into the kubelet's progress figures.
	seen      time.Time
	readyTold bool

	mu     sync.Mutex
	latest *corev1.Pod
}

func newPodWorker(a *nodeAgent, pod *corev1.Pod) *podWorker {
	return &podWorker{
		a: a, latest: pod, wake: make(chan struct{}, 1), seen: a.clock.Now(),
		imageBackOff: newBackOff(a.clock, imageBackOffPeriod, maxImageBackOff),
		crashBackOff: newBackOff(a.clock, initialCrashLoopBackOff, maxCrashLoopBackOff),
	}
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
			instances: cs.RestartCount + 1, last: cs.LastTerminationState.Terminated,
		})
	}
	w.a.ipam.reserve(rec.ip)
	w.rec, w.volumesReady, w.readyTold = rec, true, true
	return true
}

// writeStatus hands the node's status manager the pod's status when it
// differs from what the kubelet last reported (or, before its first report,
// from what is stored), and goes on: the manager writes it when its turn
// comes, as the kubelet's status manager does. When nothing waits to be
// written but the stored status differs in the kubelet's own fields (the
// node lifecycle controller marks the pods of an unreachable node not
// ready), it is handed over again, as the kubelet's status manager
// reconciles. Readiness that came due is promoted first; it returns when
// the next promotion is due, as promoteReady does.
func (w *podWorker) writeStatus() (time.Time, bool) {
	next, ok := w.promoteReady()
	view := w.view()
	want := podStatus(view, w.rec, w.a.hostIP, w.a.clock.Now())
	normalizeStatus(&want)
	if apiequality.Semantic.DeepEqual(want, view.Status) && !w.overwritten(want) {
		return next, ok
	}
	if !w.readyTold && readyCondition(w.rec, 0, corev1.PodReady).Status == corev1.ConditionTrue {
		w.readyTold = true
		w.a.progress.podReady(w.a.clock.Since(w.seen))
	}
	w.a.status.set(w, want)
	return next, ok
}

// overwritten reports whether another writer changed the kubelet's fields
// of the stored status since its last write landed.
func (w *podWorker) overwritten(want corev1.PodStatus) bool {
	if busy, _ := w.a.status.pending(w); busy {
		return false
	}
	stored := w.pod().Status
	return !apiequality.Semantic.DeepEqual(rebase(stored, want), stored)
}

// view is the pod as the kubelet sees it: as stored, with the fields the
// kubelet owns as it last reported them, written yet or not.
func (w *podWorker) view() *corev1.Pod {
	pod := w.pod()
	s, ok := w.a.status.reported(w)
	if !ok {
		return pod
	}
	v := *pod
	v.Status = rebase(pod.Status, s)
	return &v
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

// podRef is the involvedObject of the pod's own events (sandbox, mounts).
func podRef(pod *corev1.Pod) *corev1.ObjectReference {
	ref, err := reference.GetReference(scheme.Scheme, pod)
	if err != nil {
		return &corev1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID}
	}
	return ref
}
