package kubelet

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// statusManager writes the pod statuses of one node the way the kubelet's
// status manager does (pkg/kubelet/status/status_manager.go): pod workers
// hand it the status they computed and go on without waiting for the API
// server; one goroutine writes, a pod at a time, always the newest status
// handed for that pod. A status overtaken before its turn is never written,
// so under load a pod that starts at once gets one write instead of two,
// and a slow API server delays the writes but never the pods' lives.
type statusManager struct {
	client   kubernetes.Interface
	clock    clock.Clock
	progress *progress
	// paused, when it says so, holds every write back (a stopped kubelet,
	// stopped.go); the newest statuses are written once it no longer does.
	paused func() bool

	mu sync.Mutex
	// newest is the last status handed for each pod; queue holds the pods
	// whose newest status is not written yet, oldest first.
	newest  map[*podWorker]corev1.PodStatus
	queue   []*podWorker
	queued  map[*podWorker]time.Time
	writing *podWorker
	// changed is closed and replaced whenever a write ends or a status is
	// handed over.
	changed chan struct{}
}

func newStatusManager(client kubernetes.Interface, clk clock.Clock) *statusManager {
	return &statusManager{
		client: client, clock: clk,
		newest: map[*podWorker]corev1.PodStatus{}, queued: map[*podWorker]time.Time{},
		changed: make(chan struct{}),
	}
}

// reported is the last status handed for w, if any.
func (m *statusManager) reported(w *podWorker) (corev1.PodStatus, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.newest[w]
	return s, ok
}

// set hands over w's newest status.
func (m *statusManager) set(w *podWorker, s corev1.PodStatus) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.newest[w] = s
	m.enqueue(w)
	m.broadcast()
}

// forget drops what the manager holds for a worker that ended.
func (m *statusManager) forget(w *podWorker) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.newest, w)
	m.broadcast()
}

func (m *statusManager) broadcast() {
	close(m.changed)
	m.changed = make(chan struct{})
}

// pending reports whether a status of w waits for its write or is being
// written, and the channel closed at the next change.
func (m *statusManager) pending(w *podWorker) (bool, <-chan struct{}) {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, queued := m.queued[w]
	return queued || m.writing == w, m.changed
}

// flush waits until every status handed for w is written or given up on.
func (m *statusManager) flush(ctx context.Context, w *podWorker) {
	for {
		busy, changed := m.pending(w)
		if !busy {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
	}
}

// idle reports whether nothing waits to be written.
func (m *statusManager) idle() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.queue) == 0 && m.writing == nil
}

// next takes the oldest pod whose status waits, with the time it was
// queued, or nil once ctx ends.
func (m *statusManager) next(ctx context.Context) (*podWorker, corev1.PodStatus, time.Time) {
	for {
		m.mu.Lock()
		if len(m.queue) > 0 {
			w := m.queue[0]
			m.queue = m.queue[1:]
			since := m.queued[w]
			delete(m.queued, w)
			s, ok := m.newest[w]
			if !ok {
				// its worker ended (the pod was removed at once).
				m.mu.Unlock()
				continue
			}
			m.writing = w
			m.mu.Unlock()
			return w, s, since
		}
		changed := m.changed
		m.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, corev1.PodStatus{}, time.Time{}
		case <-changed:
		}
	}
}

// done ends a write; a write that failed for a passing reason is queued
// again, unless a newer status already waits.
func (m *statusManager) done(w *podWorker, retry bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.writing = nil
	if retry {
		m.enqueue(w)
	}
	m.broadcast()
}

// enqueue puts w at the end of the queue unless it waits already.
func (m *statusManager) enqueue(w *podWorker) {
	if _, ok := m.queued[w]; !ok {
		m.queued[w] = m.clock.Now()
		m.queue = append(m.queue, w)
	}
}

// run writes statuses until ctx ends. A write that fails for a passing
// reason (the API server down or overloaded) is retried after a back-off
// that doubles to 2 s; one the API server refuses for good (the pod is gone
// or was recreated under the same name, the request is forbidden or
// invalid) is dropped: retrying it would hold up every other pod's writes.
func (m *statusManager) run(ctx context.Context) {
	delay := 100 * time.Millisecond
	for {
		w, s, since := m.next(ctx)
		if w == nil {
			return
		}
		if m.paused != nil && m.paused() {
			m.done(w, true)
			select {
			case <-ctx.Done():
				return
			case <-m.clock.After(time.Second):
			}
			continue
		}
		err := m.write(ctx, w, s)
		if err == nil {
			m.progress.statusWritten(m.clock.Since(since))
		}
		transient := err != nil && passing(err) && ctx.Err() == nil
		m.done(w, transient)
		if !transient {
			if err != nil && ctx.Err() == nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
				klog.ErrorS(err, "updating the pod status, not retried", "pod", klog.KObj(w.pod()))
			}
			delay = 100 * time.Millisecond
			continue
		}
		klog.ErrorS(err, "updating the pod status", "pod", klog.KObj(w.pod()))
		select {
		case <-ctx.Done():
			return
		case <-m.clock.After(delay):
		}
		delay = min(2*delay, 2*time.Second)
	}
}

// write patches the pod's stored status to s, leaving the fields other
// components own as they are stored now.
func (m *statusManager) write(ctx context.Context, w *podWorker, s corev1.PodStatus) error {
	pod := w.pod()
	want := rebase(pod.Status, s)
	if apiequality.Semantic.DeepEqual(want, pod.Status) {
		return nil
	}
	patched, err := patchPodStatus(ctx, m.client, pod, want)
	if err == nil {
		w.update(patched)
	}
	return err
}

// rebase is stored with the fields the kubelet owns taken from s: phase,
// IPs, start time, container statuses and the kubelet's conditions. The
// conditions of other components are taken from stored, in their place,
// whatever s says of them.
func rebase(stored, s corev1.PodStatus) corev1.PodStatus {
	out := *stored.DeepCopy()
	k := s.DeepCopy()
	out.ObservedGeneration = k.ObservedGeneration
	out.Phase, out.Reason, out.Message = k.Phase, k.Reason, k.Message
	out.HostIP, out.HostIPs = k.HostIP, k.HostIPs
	out.PodIP, out.PodIPs = k.PodIP, k.PodIPs
	out.StartTime = k.StartTime
	out.InitContainerStatuses, out.ContainerStatuses = k.InitContainerStatuses, k.ContainerStatuses
	out.Conditions = nil
	for _, c := range stored.Conditions {
		if !kubeletCondition(c.Type) {
			out.Conditions = append(out.Conditions, *c.DeepCopy())
		}
	}
	for _, c := range k.Conditions {
		if kubeletCondition(c.Type) {
			out.Conditions = append(out.Conditions, c)
		}
	}
	return out
}

// kubeletCondition reports whether the kubelet owns the condition type:
// the ones podStatus computes.
func kubeletCondition(t corev1.PodConditionType) bool {
	switch t {
	case corev1.PodReadyToStartContainers, corev1.PodInitialized, corev1.PodReady, corev1.ContainersReady, corev1.PodScheduled:
		return true
	}
	return false
}

// passing reports whether a failed write may succeed when tried again: the
// API server could not be reached, or answered with a server error, 429 Too
// Many Requests or a timeout. Other 4xx answers and a patch that could not
// be computed are final.
func passing(err error) bool {
	var patchErr patchError
	if errors.As(err, &patchErr) {
		return false
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return true
	}
	code := status.Status().Code
	return code == 0 || code >= 500 || code == http.StatusTooManyRequests || code == http.StatusRequestTimeout
}
