// Package state is the on-disk shape of one lab: where its certificates,
// kubeconfigs, logs, pids and etcd data live. Every other lab package finds
// its files through a Layout, so the directory layout is written down once.
package state

import (
	"fmt"
	"path/filepath"
)

// Layout names the files of the lab rooted at Dir.
type Layout struct{ Dir string }

// Spec is lab.json: what `up` decided, read back by every component process.
func (l Layout) Spec() string { return filepath.Join(l.Dir, "lab.json") }

// Kubeconfig is the admin kubeconfig handed to the user (system:masters).
func (l Layout) Kubeconfig() string { return filepath.Join(l.Dir, "kubeconfig") }

// PKI is the directory of the CA, serving and client certificates and keys.
func (l Layout) PKI() string { return filepath.Join(l.Dir, "pki") }

// Cert is the PEM certificate of the named identity.
func (l Layout) Cert(name string) string { return filepath.Join(l.PKI(), name+".crt") }

// Key is the PEM private key of the named identity.
func (l Layout) Key(name string) string { return filepath.Join(l.PKI(), name+".key") }

// ComponentKubeconfig is the kubeconfig a control-plane component connects with.
func (l Layout) ComponentKubeconfig(component string) string {
	return filepath.Join(l.Dir, "kubeconfigs", component+".conf")
}

// EtcdData is the embedded etcd's data directory.
func (l Layout) EtcdData() string { return filepath.Join(l.Dir, "etcd") }

// Volumes is the directory under which the storage provisioner creates one
// directory per PersistentVolume.
func (l Layout) Volumes() string { return filepath.Join(l.Dir, "volumes") }

// Logs is the directory of the per-component logs.
func (l Layout) Logs() string { return filepath.Join(l.Dir, "logs") }

// Log is the log file a component's stdout and stderr go to.
func (l Layout) Log(component string) string { return filepath.Join(l.Logs(), component+".log") }

// Pids is the directory of the per-component pid files.
func (l Layout) Pids() string { return filepath.Join(l.Dir, "pids") }

// Pid is the pid file of a component process.
func (l Layout) Pid(component string) string { return filepath.Join(l.Pids(), component+".pid") }

// Supervision is supervisor.json, the supervisor's record of restarts.
func (l Layout) Supervision() string { return filepath.Join(l.Dir, "supervisor.json") }

// Lock is held by `up` and `down` so two of them never race on one lab.
func (l Layout) Lock() string { return filepath.Join(l.Dir, ".lock") }

// RealNodeDir holds everything of one real node: containerd's root and
// state, the kubelet's root directory, the CNI configuration and the pods'
// logs.
func (l Layout) RealNodeDir(node string) string { return filepath.Join(l.Dir, "nodes", node) }

// NodeIdentity is the certificate name of a simulated kubelet's node.
func NodeIdentity(node string) string { return fmt.Sprintf("node-%s", node) }

// ServiceAccountPublicKey verifies service-account tokens; Key("sa") signs them.
func (l Layout) ServiceAccountPublicKey() string { return filepath.Join(l.PKI(), "sa.pub") }
