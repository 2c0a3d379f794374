package kubelet

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/clock"

	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

// HeartbeatPeriod is how often each node renews its Lease and computes its
// status: the kubelet's nodeStatusUpdateFrequency, and a quarter of the
// 40 s lease the node lifecycle controller waits out before NotReady.
const HeartbeatPeriod = 10 * time.Second

// statusReportPeriod is the kubelet's nodeStatusReportFrequency default: a
// status that did not change is posted only this often; the Lease is what
// tells the node lifecycle controller the node is alive.
const statusReportPeriod = 5 * time.Minute

// leaseDurationSeconds is the kubelet's nodeLeaseDurationSeconds default.
const leaseDurationSeconds = 40

// zones are assigned round robin, so topology spread has three domains.
var zones = []string{"lab-zone-a", "lab-zone-b", "lab-zone-c"}

// Zone is the zone of the i-th (0-based) node; the kind engine zones its
// workers the same way.
func Zone(i int) string { return zones[i%len(zones)] }

// Config is what the simulated kubelet needs: where the API server is, and
// each node it plays with the credentials of that node.
type Config struct {
	Server       string
	CAFile       string
	Nodes        []NodeConfig
	Heartbeat    time.Duration
	BehaviourFor BehaviourFor
	Clock        clock.WithTicker
}

// NodeConfig is one virtual node.
type NodeConfig struct {
	Name     string
	Index    int
	CertFile string
	KeyFile  string
	CPU      resource.Quantity
	Memory   resource.Quantity
	Pods     int
	Zone     string
	Labels   map[string]string
	Taints   []corev1.Taint
}

// ConfigFromSpec configures the kubelet of the lab in l: one node per name
// of the spec, each connecting as system:node:NAME.
func ConfigFromSpec(l state.Layout, s state.Spec) (Config, error) {
	cpu, err := resource.ParseQuantity(s.Nodes.CPU)
	if err != nil {
		return Config{}, err
	}
	mem, err := resource.ParseQuantity(s.Nodes.Memory)
	if err != nil {
		return Config{}, err
	}
	c := Config{
		Server:       s.APIServerURL(),
		CAFile:       l.Cert("ca"),
		Heartbeat:    HeartbeatPeriod,
		BehaviourFor: ForPod,
		Clock:        clock.RealClock{},
	}
	for i, name := range s.NodeNames() {
		id := state.NodeIdentity(name)
		c.Nodes = append(c.Nodes, NodeConfig{
			Name: name, Index: i,
			CertFile: l.Cert(id), KeyFile: l.Key(id),
			CPU: cpu, Memory: mem, Pods: s.Nodes.Pods,
			Zone: Zone(i),
		})
	}
	return c, nil
}
