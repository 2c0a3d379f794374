package state

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"
)

// Spec is lab.json: the lab's shape and the ports chosen at `up`. Components
// read it at start, so a component needs nothing but the state directory.
type Spec struct {
	Name    string    `json:"name"`
	Created time.Time `json:"created"`
	// Engine is EngineKind for a lab on a kind cluster; empty for the
	// lab's own control plane and simulated kubelet.
	Engine string `json:"engine,omitempty"`
	// KindCluster is the kind cluster of a kind lab.
	KindCluster string    `json:"kindCluster,omitempty"`
	Nodes       NodeShape `json:"nodes"`
	Ports       Ports     `json:"ports"`
	// RealNodes are the nodes that run the real kubelet, containerd and
	// runc beside the simulated ones (up --real-nodes).
	RealNodes []RealNode `json:"realNodes,omitempty"`
	// NodeBin is the directory of the real nodes' programs (containerd,
	// runc, the CNI plugins, chain-workload).
	NodeBin string `json:"nodeBin,omitempty"`
	// Frozen is a lab whose controllers leave written statuses alone, for
	// `lab fill` (up --frozen).
	Frozen bool `json:"frozen,omitempty"`
	// TrafficController is the path of the lab's traffic controller
	// program (lab-traefik), empty when the lab runs none.
	TrafficController string `json:"trafficController,omitempty"`
	// RolloutsController is the path of Argo Rollouts' controller program,
	// empty when the lab runs none.
	RolloutsController string `json:"rolloutsController,omitempty"`
}

// RealNode is one real node: its name, and the bridge that is its pods'
// network and its own address, chosen at up so two labs never share one.
type RealNode struct {
	Name string `json:"name"`
	// Bridge is the Linux bridge of the node's pods (at most 15 bytes).
	Bridge string `json:"bridge"`
	// Subnet is the pods' /24; the node's address is its .1.
	Subnet string `json:"subnet"`
	// NodeIP is the bridge's address: the node's InternalIP, where its
	// kubelet serves.
	NodeIP string `json:"nodeIP"`
}

// EngineKind is the Engine of a lab on a kind cluster.
const EngineKind = "kind"

// NodeShape is how many virtual nodes there are and what each one offers.
type NodeShape struct {
	Count  int    `json:"count"`
	CPU    string `json:"cpu"`
	Memory string `json:"memory"`
	Pods   int    `json:"pods"`
}

// Ports are the loopback ports every listener of the lab uses.
type Ports struct {
	EtcdClient        int `json:"etcdClient"`
	EtcdPeer          int `json:"etcdPeer"`
	APIServer         int `json:"apiServer"`
	ControllerManager int `json:"controllerManager"`
	Scheduler         int `json:"scheduler"`
	AdmissionWebhook  int `json:"admissionWebhook"`
	// Registry is the lab's image registry (HTTPS), with real nodes only.
	Registry int `json:"registry,omitempty"`
	// RegistryUntrusted serves the registry with a certificate no node
	// trusts; RegistryStalled accepts connections and never answers.
	RegistryUntrusted int `json:"registryUntrusted,omitempty"`
	RegistryStalled   int `json:"registryStalled,omitempty"`
}

// Host is the only address the lab listens on.
const Host = "127.0.0.1"

// APIServerURL is where clients reach the API server.
func (s Spec) APIServerURL() string { return "https://" + hostPort(s.Ports.APIServer) }

// AdmissionWebhookAddr is where the lab's admission webhook server listens.
func (s Spec) AdmissionWebhookAddr() string { return hostPort(s.Ports.AdmissionWebhook) }

// AdmissionWebhookURL is the base URL the API server calls the webhook at.
func (s Spec) AdmissionWebhookURL() string { return "https://" + s.AdmissionWebhookAddr() }

// EtcdClientURL is where the API server reaches etcd.
func (s Spec) EtcdClientURL() string { return "https://" + hostPort(s.Ports.EtcdClient) }

// EtcdPeerURL is etcd's raft listener; a single member still needs one.
func (s Spec) EtcdPeerURL() string { return "https://" + hostPort(s.Ports.EtcdPeer) }

// NodeNames are lab-node-1..N, the names the simulated kubelet registers.
func (s Spec) NodeNames() []string {
	names := make([]string, s.Nodes.Count)
	for i := range names {
		names[i] = NodeName(i)
	}
	return names
}

// NodeName is the name of the i-th (0-based) virtual node.
func NodeName(i int) string { return fmt.Sprintf("lab-node-%d", i+1) }

// RegistryAddr is where the lab's image registry listens.
func (s Spec) RegistryAddr() string { return hostPort(s.Ports.Registry) }

// RegistryUntrustedAddr and RegistryStalledAddr are the registry's two
// broken doubles.
func (s Spec) RegistryUntrustedAddr() string { return hostPort(s.Ports.RegistryUntrusted) }

// RegistryStalledAddr: see RegistryUntrustedAddr.
func (s Spec) RegistryStalledAddr() string { return hostPort(s.Ports.RegistryStalled) }

// ComponentNames are the lab's processes in start order: the fixed ones,
// then, with real nodes, the registry and each node's containerd and
// kubelet.
func (s Spec) ComponentNames() []string {
	names := append([]string(nil), Components...)
	if s.TrafficController != "" {
		names = append(names, TrafficController)
	}
	if s.RolloutsController != "" {
		names = append(names, RolloutsController)
	}
	if len(s.RealNodes) == 0 {
		return names
	}
	names = append(names, Registry)
	for _, n := range s.RealNodes {
		names = append(names, Containerd(n.Name), RealKubelet(n.Name))
	}
	return names
}

// RealNodeNamed finds a real node of the spec.
func (s Spec) RealNodeNamed(name string) (RealNode, bool) {
	for _, n := range s.RealNodes {
		if n.Name == name {
			return n, true
		}
	}
	return RealNode{}, false
}

// RealNodeName is the name of the i-th (0-based) real node.
func RealNodeName(i int) string { return fmt.Sprintf("real-node-%d", i+1) }

func hostPort(port int) string { return Host + ":" + strconv.Itoa(port) }

// WriteSpec writes lab.json (0600: it is part of the lab's private state).
func WriteSpec(l Layout, s Spec) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding lab.json: %w", err)
	}
	return os.WriteFile(l.Spec(), append(b, '\n'), 0o600)
}

// ReadSpec reads lab.json.
func ReadSpec(l Layout) (Spec, error) {
	var s Spec
	b, err := os.ReadFile(l.Spec())
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("reading %s: %w", l.Spec(), err)
	}
	return s, nil
}
