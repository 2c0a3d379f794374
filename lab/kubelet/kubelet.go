// Package kubelet is the lab's simulated kubelet: one process that plays N
// virtual nodes. Each node registers itself, heartbeats its status and Lease,
// and drives the pods bound to it through the states, conditions and events a
// real kubelet writes for them, with the kubelet's own reasons and message
// formats (k8s.io/kubernetes v1.37.2, pkg/kubelet). No container runs: a
// per-pod Behaviour decides what the simulated runtime does.
package kubelet

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
)

// Client limits of each node: the kubelet's kubeAPIQPS and kubeAPIBurst.
const (
	nodeQPS   = 50
	nodeBurst = 100
	// The kubelet's eventRecordQPS and eventBurst defaults
	// (pkg/kubelet/apis/config/v1beta1/defaults.go).
	eventQPS   = 50
	eventBurst = 100
)

// Run plays every node of c until ctx ends.
func Run(ctx context.Context, c Config) error {
	if len(c.Nodes) == 0 {
		return errors.New("no nodes to run")
	}
	kernel := kernelVersion()
	p := &progress{}
	var wg sync.WaitGroup
	errs := make([]error, len(c.Nodes))
	for i, n := range c.Nodes {
		client, err := kubernetes.NewForConfig(nodeRESTConfig(c, n))
		if err != nil {
			return fmt.Errorf("client of node %s: %w", n.Name, err)
		}
		// Events go through a client of their own, with its own limits,
		// as the kubelet's do (cmd/kubelet/app/server.go, EventClient):
		// a burst of probe failures must not hold back the pods'
		// statuses, nor statuses the events.
		eventClient, err := kubernetes.NewForConfig(eventRESTConfig(nodeRESTConfig(c, n)))
		if err != nil {
			return fmt.Errorf("event client of node %s: %w", n.Name, err)
		}
		sink := &shardedSink{}
		for range eventShards {
			broadcaster := record.NewBroadcaster(record.WithContext(ctx))
			broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: eventClient.CoreV1().Events("")})
			defer broadcaster.Shutdown()
			sink.shards = append(sink.shards, broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "kubelet", Host: n.Name}))
		}
		agent := newNodeAgent(n, c, client, sink, kernel)
		agent.progress, agent.status.progress = p, p
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = agent.run(ctx, podInformer(client, n.Name), nodeInformer(client, n.Name))
		}()
	}
	go p.logLoop(ctx, c.Clock)
	wg.Wait()
	if ctx.Err() != nil {
		return nil
	}
	return errors.Join(errs...)
}

// nodeRESTConfig connects as the node, with the kubelet's client limits.
func nodeRESTConfig(c Config, n NodeConfig) *rest.Config {
	return &rest.Config{
		Host:            c.Server,
		TLSClientConfig: rest.TLSClientConfig{CAFile: c.CAFile, CertFile: n.CertFile, KeyFile: n.KeyFile},
		QPS:             nodeQPS,
		Burst:           nodeBurst,
		UserAgent:       fmt.Sprintf("kubelet/%s (%s/%s) kubectl-chain-lab", KubeletVersion, runtime.GOOS, runtime.GOARCH),
	}
}

// eventShards is how many recorders write each node's events. A kubelet
// writes its events one at a time (client-go's broadcaster posts each
// before the next, from a queue of 1,000 that drops what overflows); a
// lab node carries tens of pods that all start in the same second, and
// one writer queued their events for tens of seconds on a busy machine (a
// readiness probe's Unhealthy event 53 s late, Evicted events late or
// lost). Events are sharded by the object they are about, so per object
// the order, the aggregation and the spam filter are the kubelet's.
const eventShards = 4

// shardedSink sends each object's events to one of its recorders.
type shardedSink struct{ shards []record.EventRecorder }

func (s *shardedSink) Event(object kruntime.Object, eventtype, reason, message string) {
	key := ""
	if ref, ok := object.(*corev1.ObjectReference); ok {
		key = ref.Kind + "/" + ref.Namespace + "/" + ref.Name
	} else if m, err := meta.Accessor(object); err == nil {
		key = m.GetNamespace() + "/" + m.GetName()
	}
	h := fnv.New32a()
	h.Write([]byte(key))
	s.shards[h.Sum32()%uint32(len(s.shards))].Event(object, eventtype, reason, message)
}

// eventRESTConfig is the node's config with the kubelet's event limits
// (eventRecordQPS, eventBurst).
func eventRESTConfig(node *rest.Config) *rest.Config {
	c := rest.CopyConfig(node)
	c.QPS, c.Burst = eventQPS, eventBurst
	return c
}

// podInformer watches the pods bound to one node, the way the kubelet does
// (a field selector on spec.nodeName, which the Node authorizer requires).
func podInformer(client kubernetes.Interface, node string) cache.SharedIndexInformer {
	f := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.FieldSelector = fields.OneTermEqualSelector("spec.nodeName", node).String()
	}))
	return f.Core().V1().Pods().Informer()
}

// nodeInformer watches the node's own Node object, as the kubelet's node
// lister does.
func nodeInformer(client kubernetes.Interface, node string) cache.SharedIndexInformer {
	f := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.FieldSelector = fields.OneTermEqualSelector("metadata.name", node).String()
	}))
	return f.Core().V1().Nodes().Informer()
}

// kernelVersion is the host's kernel release, which a node reports.
func kernelVersion() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return "unknown"
	}
	return unix.ByteSliceToString(u.Release[:])
}
