package kubelet

import (
	"context"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// nodeAgent is the simulated kubelet of one node: it registers the node,
// heartbeats it, and runs a pod worker for each pod bound to it. Every
// request goes out with the node's own credentials.
type nodeAgent struct {
	cfg          NodeConfig
	client       kubernetes.Interface
	events       eventSink
	clock        clock.WithTicker
	behaviourFor BehaviourFor
	heartbeat    time.Duration
	kernel       string
	hostIP       string
	images       *imageStore
	ipam         *ipam
	status       *statusManager
	progress     *progress

	node       *corev1.Node // as registered
	readySince time.Time
	// startedAt is when the agent started: the eviction manager's ticks
	// count from it.
	startedAt time.Time
	// The images and time of the last status posted, and the node as
	// stored (nil until watched).
	reportedImages []corev1.ContainerImage
	reportedAt     time.Time
	stored         cache.Store
	lease          *coordinationv1.Lease
	mu             sync.Mutex
	workers        map[types.UID]*workerHandle
	workerGroup    sync.WaitGroup
	// rejected are the pods its admission refused (apparmor.go).
	rejected map[types.UID]bool
}

type workerHandle struct {
	w      *podWorker
	cancel context.CancelFunc
}

func newNodeAgent(n NodeConfig, c Config, client kubernetes.Interface, events eventSink, kernel string) *nodeAgent {
	a := &nodeAgent{
		cfg: n, client: client, events: events, clock: c.Clock,
		behaviourFor: c.BehaviourFor, heartbeat: c.Heartbeat, kernel: kernel,
		hostIP: nodeIP(n.Index), images: newImageStore(), ipam: newIPAM(n.Index),
		status: newStatusManager(client, c.Clock), startedAt: c.Clock.Now(),
		workers: map[types.UID]*workerHandle{},
	}
	a.status.paused = a.stopped
	return a
}

// run registers the node, then heartbeats it and drives its pods until ctx ends.
func (a *nodeAgent) run(ctx context.Context, pods, node cache.SharedIndexInformer) error {
	if err := retry(ctx, a.clock, "registering node "+a.cfg.Name, a.register); err != nil {
		return err
	}
	if err := retry(ctx, a.clock, "waiting for namespace default", a.eventsAccepted); err != nil {
		return err
	}
	a.announce()
	if _, err := pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { a.onPod(ctx, obj) },
		UpdateFunc: func(_, obj any) { a.onPod(ctx, obj) },
		DeleteFunc: a.onPodDeleted,
	}); err != nil {
		return err
	}
	a.stored = node.GetStore()
	go a.status.run(ctx)
	go pods.RunWithContext(ctx)
	go node.RunWithContext(ctx)
	a.heartbeatLoop(ctx)
	a.workerGroup.Wait()
	return nil
}

// onPod starts a worker for a pod new to the node or hands it the update.
func (a *nodeAgent) onPod(ctx context.Context, obj any) {
	pod, ok := obj.(*corev1.Pod)
	if !ok || pod.Spec.NodeName != a.cfg.Name {
		return
	}
	if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if h, ok := a.workers[pod.UID]; ok {
		h.w.update(pod)
		return
	}
	if ctx.Err() != nil {
		return
	}
	if pod.Status.Phase == corev1.PodPending && appArmorRequired(pod) {
		// The kubelet's AppArmor admission, on a host without AppArmor.
		a.rejectPod(ctx, pod, reasonAppArmor, appArmorRejectedMsg)
		return
	}
	wctx, cancel := context.WithCancel(ctx)
	h := &workerHandle{w: newPodWorker(a, pod), cancel: cancel}
	a.workers[pod.UID] = h
	a.workerGroup.Add(1)
	go func() {
		defer a.workerGroup.Done()
		h.w.run(wctx)
		a.forget(pod.UID, h)
	}()
}

// onPodDeleted stops the worker of a pod that is gone from the API.
func (a *nodeAgent) onPodDeleted(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	a.mu.Lock()
	h := a.workers[pod.UID]
	a.mu.Unlock()
	if h != nil {
		h.cancel()
	}
}

// forget drops a finished worker, unless another one replaced it meanwhile.
func (a *nodeAgent) forget(uid types.UID, h *workerHandle) {
	h.cancel()
	a.status.forget(h.w)
	a.mu.Lock()
	if a.workers[uid] == h {
		delete(a.workers, uid)
	}
	a.mu.Unlock()
}

// retry calls f until it succeeds or ctx ends: components start in parallel,
// so the API server may not answer, or RBAC may not be bootstrapped, yet.
func retry(ctx context.Context, clk clock.Clock, what string, f func(context.Context) error) error {
	delay := 100 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := f(ctx)
		if err == nil {
			return nil
		}
		if attempt%20 == 0 {
			klog.InfoS("still retrying", "what", what, "attempt", attempt, "err", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-clk.After(delay):
		}
		if delay < time.Second {
			delay += 100 * time.Millisecond
		}
	}
}
