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
