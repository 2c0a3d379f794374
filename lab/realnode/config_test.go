package realnode

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

func testNode() Node {
	l := state.Layout{Dir: "/var/tmp/labs/lab"}
	s := state.Spec{Name: "lab", Ports: state.Ports{Registry: 41234}, RealNodes: []state.RealNode{{
		Name: "real-node-1", Bridge: BridgeName(l.Dir, 0), Subnet: "10.89.3.0/24", NodeIP: "10.89.3.1"}}}
	n, _ := Of(l, s, "real-node-1")
	return n
}

// TestConfigs checks that each configuration parses as its program reads
// it and says what the lab needs.
func TestConfigs(t *testing.T) {
	n := testNode()
	if b := n.Bridge; len(b) > 15 || !strings.HasPrefix(b, "kcl") {
		t.Errorf("bridge %q: longer than IFNAMSIZ-1 or unprefixed", b)
	}
	if BridgeName("/a", 0) == BridgeName("/b", 0) || BridgeName("/a", 0) == BridgeName("/a", 1) {
		t.Error("bridge names collide across labs or nodes")
	}

	var ctr map[string]any
	if _, err := toml.Decode(n.containerdToml("/opt/lab/bin"), &ctr); err != nil {
		t.Fatalf("containerd's config: %v", err)
	}
	plugins := ctr["plugins"].(map[string]any)
	images := plugins["io.containerd.cri.v1.images"].(map[string]any)
	if got := images["pinned_images"].(map[string]any)["sandbox"]; got != "registry.lab.internal/pause:lab" {
		t.Errorf("sandbox image %v", got)
	}
	rt := plugins["io.containerd.cri.v1.runtime"].(map[string]any)
	if got := rt["cni"].(map[string]any)["bin_dirs"].([]any)[0]; got != "/opt/lab/bin" {
		t.Errorf("CNI bin_dirs %v", got)
	}
	runtimes := rt["containerd"].(map[string]any)["runtimes"].(map[string]any)
	for _, h := range []string{state.HandlerRunc, state.HandlerCNIMissing} {
		r, ok := runtimes[h].(map[string]any)
		if !ok || r["options"].(map[string]any)["BinaryName"] != "/opt/lab/bin/runc" {
			t.Errorf("runtime handler %s: %v", h, runtimes[h])
		}
	}
	if got := runtimes[state.HandlerCNIMissing].(map[string]any)["cni_conf_dir"]; got != n.cniMissingConfDir() {
		t.Errorf("handler %s's CNI directory %v", state.HandlerCNIMissing, got)
	}
	var missing struct {
		Name    string
		Plugins []struct{ Type string }
	}
	if err := json.Unmarshal([]byte(n.cniMissingConflist()), &missing); err != nil || missing.Name != state.CNIMissingNetwork ||
		len(missing.Plugins) != 1 || missing.Plugins[0].Type != state.CNIMissingPlugin {
		t.Errorf("handler %s's CNI network %+v (%v)", state.HandlerCNIMissing, missing, err)
	}
	if h := n.hostsTomls()["registry.lab.internal"]; !strings.Contains(h, `server = "https://127.0.0.1:41234"`) || !strings.Contains(h, "ca = ") {
		t.Errorf("hosts.toml does not send the registry's name to the lab's registry with the lab's CA:\n%s", h)
	}
	if h := n.hostsTomls()["untrusted.lab.internal"]; strings.Contains(h, "ca = ") || strings.Contains(h, "skip_verify") {
		t.Errorf("the untrusted registry is trusted:\n%s", h)
	}

	var cni struct {
		Plugins []struct {
			Type, Bridge string
			IPMasq       bool `json:"ipMasq"`
			IPAM         struct {
				Ranges [][]struct{ Subnet, Gateway string }
			}
		}
	}
	if err := json.Unmarshal([]byte(n.cniConflist()), &cni); err != nil {
		t.Fatalf("CNI conflist: %v", err)
	}
	p := cni.Plugins[0]
	if p.Type != "bridge" || p.Bridge != n.Bridge || p.IPMasq || p.IPAM.Ranges[0][0].Subnet != "10.89.3.0/24" || p.IPAM.Ranges[0][0].Gateway != "10.89.3.1" {
		t.Errorf("CNI plugin %+v", p)
	}

	var kc kubeletv1beta1.KubeletConfiguration
	if err := yaml.UnmarshalStrict([]byte(n.kubeletYAML()), &kc); err != nil {
		t.Fatalf("KubeletConfiguration: %v", err)
	}
	if kc.FailCgroupV1 == nil || *kc.FailCgroupV1 || kc.CgroupDriver != "cgroupfs" || !kc.ProtectKernelDefaults ||
		kc.Address != "10.89.3.1" || kc.ReadOnlyPort != 0 || kc.CgroupRoot != n.CgroupRoot() {
		t.Errorf("KubeletConfiguration %+v", kc)
	}
	// The host's disk must not taint the node (CI once saw every pod
	// pinned to it unschedulable on an untolerated taint).
	for _, signal := range []string{"nodefs.available", "nodefs.inodesFree", "imagefs.available", "imagefs.inodesFree"} {
		if kc.EvictionHard[signal] != "0%" {
			t.Errorf("evictionHard[%s] = %q, want 0%% (the node's disk is the host's)", signal, kc.EvictionHard[signal])
		}
	}
	if kc.ImageGCHighThresholdPercent == nil || *kc.ImageGCHighThresholdPercent != 100 {
		t.Error("image garbage collection is on: it would delete the lab's images when the host's disk fills")
	}
	if kc.Authentication.Anonymous.Enabled == nil || *kc.Authentication.Anonymous.Enabled {
		t.Error("the kubelet accepts anonymous requests")
	}
}
