// Package realnode runs a lab's real nodes: the kubelet of Kubernetes
// v1.37.2, containerd 2.x, runc and the CNI bridge, on this machine, each as
// a supervised lab component. It writes their configuration, prepares the
// host (a bridge private to the node, cgroups under a root of the lab's own,
// a shared mount for the kubelet's volumes), and on down removes all of it.
//
// Nothing listens beyond loopback and the node's bridge: the kubelet serves
// on the bridge's address, containerd on a unix socket, the registry on
// 127.0.0.1. The host's kernel settings are not changed: the kubelet runs in
// a mount namespace of its own where the six sysctls it insists on read as
// it wants (see tunables.go).
package realnode

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kubectl-chain/kubectl-chain/lab/registry"
	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

// Kubelet ports on the node's bridge address (the upstream defaults: each
// node has an address of its own, so they never collide).
const (
	KubeletPort = 10250
	HealthzPort = 10248
)

// ImagePullProgressTimeout is containerd's image_pull_progress_timeout on
// real nodes: a pull that moves no byte for this long is cancelled.
// containerd's default is 5m; the lab's registry is local, so a stalled pull
// is a failure the scenarios want to see within their deadline.
const ImagePullProgressTimeout = "20s"

// Node is one real node of a lab.
type Node struct {
	Layout state.Layout
	Spec   state.Spec
	state.RealNode
}

// Of finds the real node named name in the lab at l.
func Of(l state.Layout, s state.Spec, name string) (Node, error) {
	n, ok := s.RealNodeNamed(name)
	if !ok {
		return Node{}, fmt.Errorf("lab %q has no real node %q", s.Name, name)
	}
	return Node{Layout: l, Spec: s, RealNode: n}, nil
}

// Dir is the node's directory.
func (n Node) Dir() string { return n.Layout.RealNodeDir(n.Name) }

func (n Node) path(elem ...string) string {
	return filepath.Join(append([]string{n.Dir()}, elem...)...)
}

// Socket is containerd's gRPC socket.
func (n Node) Socket() string { return n.path("containerd.sock") }

// KubeletRoot is the kubelet's --root-dir: pods' volumes are mounted under it.
func (n Node) KubeletRoot() string { return n.path("kubelet") }

// ContainerdConfig is containerd's config.toml.
func (n Node) ContainerdConfig() string { return n.path("containerd", "config.toml") }

// KubeletConfig is the KubeletConfiguration file.
func (n Node) KubeletConfig() string { return n.path("kubelet-config.yaml") }

// Kubeconfig is the kubelet's kubeconfig (system:node:NAME).
func (n Node) Kubeconfig() string { return n.Layout.ComponentKubeconfig(state.RealKubelet(n.Name)) }

// CNIConfDir holds the node's CNI network configuration.
func (n Node) CNIConfDir() string { return n.path("cni", "net.d") }

// CgroupRoot is the kubelet's cgroupRoot: every pod's cgroup is below it,
// in a tree of the lab's own (named after the bridge, unique per lab).
func (n Node) CgroupRoot() string { return "/kubectl-chain-lab/" + n.Bridge }

// BridgeName is the bridge of the i-th real node of the lab in dir: a short
// hash of the directory keeps two labs' bridges apart (IFNAMSIZ is 16).
func BridgeName(dir string, i int) string {
	sum := sha256.Sum256([]byte(dir))
	return "kcl" + hex.EncodeToString(sum[:])[:6] + "n" + strconv.Itoa(i+1)
}

// hostsTomls map the registry's names to the lab's registry on loopback:
// registry.lab.internal trusting the lab's CA, its untrusted double with
// the system's roots only, the stalled one: nodes never look them up in
// DNS.
func (n Node) hostsTomls() map[string]string {
	return map[string]string{
		registry.Host:          fmt.Sprintf("server = %q\nca = %q\n", "https://"+n.Spec.RegistryAddr(), n.Layout.Cert("ca")),
		registry.UntrustedHost: fmt.Sprintf("server = %q\n", "https://"+n.Spec.RegistryUntrustedAddr()),
		registry.StalledHost:   fmt.Sprintf("server = %q\n", "https://"+n.Spec.RegistryStalledAddr()),
	}
}

// containerdToml is containerd's configuration: its own root, state and
// socket under the node's directory; the CRI plugin with the lab's pause
// image, registry hosts, CNI directories and runc from binDir.
func (n Node) containerdToml(binDir string) string {
	q := strconv.Quote
	lines := []string{
		"version = 3",
		"root = " + q(n.path("containerd", "root")),
		"state = " + q(n.path("containerd", "state")),
		"[grpc]",
		"  address = " + q(n.Socket()),
		"[ttrpc]",
		"  address = " + q(n.Socket()+".ttrpc"),
		"[plugins.'io.containerd.cri.v1.images']",
		"  snapshotter = \"overlayfs\"",
		"  image_pull_progress_timeout = " + q(ImagePullProgressTimeout),
		"[plugins.'io.containerd.cri.v1.images'.pinned_images]",
		"  sandbox = " + q(registry.Ref(registry.Pause)),
		"[plugins.'io.containerd.cri.v1.images'.registry]",
		"  config_path = " + q(n.path("containerd", "certs.d")),
		"[plugins.'io.containerd.cri.v1.runtime']",
		// Lowering a process's oom_score_adj needs CAP_SYS_RESOURCE, which
		// a sandboxed root may lack; containers then keep containerd's.
		"  restrict_oom_score_adj = true",
		"  netns_mounts_under_state_dir = true",
		"[plugins.'io.containerd.cri.v1.runtime'.cni]",
		"  bin_dirs = [" + q(binDir) + "]",
		"  conf_dir = " + q(n.CNIConfDir()),
	}
	for _, h := range []string{state.HandlerRunc, state.HandlerCNIMissing} {
		rt := "[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes." + q(h) + "]"
		lines = append(lines, rt, "  runtime_type = \"io.containerd.runc.v2\"")
		if h == state.HandlerCNIMissing {
			lines = append(lines, "  cni_conf_dir = "+q(n.cniMissingConfDir()))
		}
		lines = append(lines, strings.TrimSuffix(rt, "]")+".options]",
			"  BinaryName = "+q(filepath.Join(binDir, "runc")),
			"  Root = "+q(n.path("runc")),
			"  SystemdCgroup = false")
	}
	return strings.Join(lines, "\n") + "\n"
}

// cniMissingConfDir is the CNI configuration of runtime handler
// state.HandlerCNIMissing.
func (n Node) cniMissingConfDir() string { return n.path("cni", state.HandlerCNIMissing) }

// cniMissingConflist names a plugin that is not in the node's CNI bin
// directory, shaped as the network of a cluster whose network plugin's
// DaemonSet wrote its configuration but never installed its binary.
func (n Node) cniMissingConflist() string {
	return fmt.Sprintf(`{
  "cniVersion": "1.0.0",
  "name": %q,
  "plugins": [
    {"type": %q, "delegate": {"hairpinMode": true, "isDefaultGateway": true}}
  ]
}
`, state.CNIMissingNetwork, state.CNIMissingPlugin)
}

// cniConflist is the node's pod network: a bridge with host-local addresses
// from the node's /24, no masquerade, no port mapping (nothing leaves the
// machine and no iptables rule is written).
func (n Node) cniConflist() string {
	return fmt.Sprintf(`{
  "cniVersion": "1.0.0",
  "name": "kubectl-chain-lab",
  "plugins": [
    {
      "type": "bridge",
      "bridge": %q,
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "ranges": [[{"subnet": %q, "gateway": %q}]],
        "dataDir": %q
      }
    }
  ]
}
`, n.Bridge, n.Subnet, n.NodeIP, n.path("cni", "ipam"))
}

// kubeletYAML is the KubeletConfiguration: cgroupfs under the lab's cgroup
// root (cgroup v1 allowed), serving on the node's bridge address with client
// certificates of the lab's CA, containerd's socket, and the kernel defaults
// protected (the namespace of tunables.go makes them read right; a kubelet
// that found them wrong must fail, not change the host). The disk's
// eviction thresholds and image garbage collection are off, as kind's
// nodes have them: the node's filesystem is the host's, and a host disk
// 85% full (a CI machine's Go build cache) would otherwise taint the node
// with disk-pressure and delete the lab's images.
func (n Node) kubeletYAML() string {
	return fmt.Sprintf(`apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupRoot: %s
cgroupsPerQOS: true
enforceNodeAllocatable: ["pods"]
failSwapOn: false
address: %s
port: %d
readOnlyPort: 0
healthzBindAddress: %s
healthzPort: %d
containerRuntimeEndpoint: unix://%s
podLogsDir: %s
protectKernelDefaults: true
clusterDNS: ["10.96.0.10"]
clusterDomain: cluster.local
staticPodPath: ""
imageGCHighThresholdPercent: 100
evictionHard:
  nodefs.available: "0%%"
  nodefs.inodesFree: "0%%"
  imagefs.available: "0%%"
  imagefs.inodesFree: "0%%"
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
  x509: {clientCAFile: %s}
authorization:
  mode: AlwaysAllow
`, n.CgroupRoot(), n.NodeIP, KubeletPort, n.NodeIP, HealthzPort, n.Socket(), n.path("pods"), n.Layout.Cert("ca"))
}

// KubeletArgs are the kubelet's flags.
func (n Node) KubeletArgs() []string {
	return []string{
		"--config=" + n.KubeletConfig(),
		"--kubeconfig=" + n.Kubeconfig(),
		"--root-dir=" + n.KubeletRoot(),
		"--cert-dir=" + n.path("kubelet-pki"),
		"--hostname-override=" + n.Name,
		"--node-ip=" + n.NodeIP,
		"--node-labels=" + state.EngineLabel + "=" + state.EngineReal,
	}
}
