package kubelet

import (
	"fmt"
	"runtime"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

// Versions a virtual node reports in node.status.nodeInfo.
const (
	KubeletVersion = "v1.37.2"
	runtimeVersion = "containerd://2.4.2"
	osImage        = "Debian GNU/Linux 12 (bookworm)"
	kubeletPort    = 10250
)

// newNode is the Node object a kubelet registers: labels the kubelet sets
// itself (hostname, os, arch, zone), capacity equal to allocatable as on a
// kind node, the pod CIDR the lab assigns and a Ready status.
func newNode(n NodeConfig, kernel string, now time.Time) *corev1.Node {
	labels := map[string]string{
		"beta.kubernetes.io/arch":     runtime.GOARCH,
		"beta.kubernetes.io/os":       "linux",
		"kubernetes.io/arch":          runtime.GOARCH,
		"kubernetes.io/hostname":      n.Name,
		"kubernetes.io/os":            "linux",
		"topology.kubernetes.io/zone": n.Zone,
		state.EngineLabel:             state.EngineSimulated,
	}
	for k, v := range n.Labels {
		labels[k] = v
	}
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:              n.CPU,
		corev1.ResourceMemory:           n.Memory,
		corev1.ResourcePods:             *resource.NewQuantity(int64(n.Pods), resource.DecimalSI),
		corev1.ResourceEphemeralStorage: resource.MustParse("100Gi"),
		"hugepages-1Gi":                 resource.MustParse("0"),
		"hugepages-2Mi":                 resource.MustParse("0"),
	}
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:   n.Name,
			Labels: labels,
			Annotations: map[string]string{
				"volumes.kubernetes.io/controller-managed-attach-detach": "true",
			},
		},
		Spec: corev1.NodeSpec{
			PodCIDR:  podCIDR(n.Index),
			PodCIDRs: []string{podCIDR(n.Index)},
			Taints:   n.Taints,
		},
		Status: corev1.NodeStatus{
			Capacity:    capacity,
			Allocatable: capacity.DeepCopy(),
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: nodeIP(n.Index)},
				{Type: corev1.NodeHostName, Address: n.Name},
			},
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: kubeletPort}},
			NodeInfo:        nodeInfo(n.Name, kernel),
			Conditions:      nodeConditions(now, now),
			Features:        &corev1.NodeFeatures{SupplementalGroupsPolicy: ptr.To(true)},
			RuntimeHandlers: []corev1.NodeRuntimeHandler{
				{Name: "", Features: &corev1.NodeRuntimeHandlerFeatures{RecursiveReadOnlyMounts: ptr.To(true), UserNamespaces: ptr.To(true)}},
				{Name: "runc", Features: &corev1.NodeRuntimeHandlerFeatures{RecursiveReadOnlyMounts: ptr.To(true), UserNamespaces: ptr.To(true)}},
			},
		},
	}
	return node
}

// nodeIP is the InternalIP of the node with 0-based index i, and the hostIP
// of its pods: 172.18.0.2 upwards, as kind numbers its nodes.
func nodeIP(i int) string { return fmt.Sprintf("172.18.%d.%d", (i+2)/256, (i+2)%256) }

// nodeInfo is node.status.nodeInfo; the machine, system and boot IDs are
// stable per node name so a restarted lab reports the same machine.
func nodeInfo(name, kernel string) corev1.NodeSystemInfo {
	id := func(kind string) string {
		return strings.TrimPrefix(digestOf(kind, name), "sha256:")[:32]
	}
	uuid := id("system-uuid")
	return corev1.NodeSystemInfo{
		MachineID:               id("machine-id"),
		SystemUUID:              uuid[:8] + "-" + uuid[8:12] + "-" + uuid[12:16] + "-" + uuid[16:20] + "-" + uuid[20:32],
		BootID:                  id("boot-id"),
		KernelVersion:           kernel,
		OSImage:                 osImage,
		ContainerRuntimeVersion: runtimeVersion,
		KubeletVersion:          KubeletVersion,
		OperatingSystem:         "linux",
		Architecture:            runtime.GOARCH,
	}
}

// Node condition reasons and messages of pkg/kubelet/nodestatus/setters.go.
const (
	reasonHasSufficientMemory = "KubeletHasSufficientMemory"
	msgHasSufficientMemory    = "kubelet has sufficient memory available"
	reasonHasNoDiskPressure   = "KubeletHasNoDiskPressure"
	msgHasNoDiskPressure      = "kubelet has no disk pressure"
	reasonHasSufficientPID    = "KubeletHasSufficientPID"
	msgHasSufficientPID       = "kubelet has sufficient PID available"
	reasonKubeletReady        = "KubeletReady"
	msgKubeletReady           = "kubelet is posting ready status"
)

// nodeConditions are a healthy node's conditions, heartbeat at now and
// unchanged since transition.
func nodeConditions(transition, now time.Time) []corev1.NodeCondition {
	c := func(t corev1.NodeConditionType, s corev1.ConditionStatus, reason, msg string) corev1.NodeCondition {
		return corev1.NodeCondition{
			Type: t, Status: s, Reason: reason, Message: msg,
			LastHeartbeatTime:  metav1.NewTime(now),
			LastTransitionTime: metav1.NewTime(transition),
		}
	}
	return []corev1.NodeCondition{
		c(corev1.NodeMemoryPressure, corev1.ConditionFalse, reasonHasSufficientMemory, msgHasSufficientMemory),
		c(corev1.NodeDiskPressure, corev1.ConditionFalse, reasonHasNoDiskPressure, msgHasNoDiskPressure),
		c(corev1.NodePIDPressure, corev1.ConditionFalse, reasonHasSufficientPID, msgHasSufficientPID),
		c(corev1.NodeReady, corev1.ConditionTrue, reasonKubeletReady, msgKubeletReady),
	}
}
