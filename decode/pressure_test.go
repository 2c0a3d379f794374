package decode

import (
	"testing"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// TestExplainNodePressureAndScaleUp: real pastes (issue 22's held-out
// families) name the pressure by its resource, the cloud provider's
// uninitialized taint, and the scheduler's reason beside a node autoscaler.
func TestExplainNodePressureAndScaleUp(t *testing.T) {
	tests := []struct {
		name, reason, message string
		want                  chain.CauseID
	}{
		// kubernetes/kubernetes#93711: a node's Taints line.
		{"taint line", "", "Taints:             node.kubernetes.io/disk-pressure:NoSchedule", NodeDiskPressure},
		// kontena/pharos-cluster#568: a role taint beside the cloud provider's.
		{"uninitialized taint line", "", "Taints:             node-role.kubernetes.io/master:NoSchedule\n                    node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule", NodeUninitialized},
		// kubernetes/kubernetes#52386: the kubelet's condition.
		{"memory condition", "KubeletHasInsufficientMemory", "kubelet has insufficient memory available", NodeMemoryPressure},
		// kubernetes/kubernetes#115516: the kubelet's node event in its journal.
		{"disk event", "", `I0203 22:12:03.642297    5402 kubelet_node_status.go:668] "Recording event message for node" node="ip-10-128-18-28" event="NodeHasDiskPressure"`, NodeDiskPressure},
		// openshift/origin#17352: the 1.8 predicate reason name.
		{"1.8 predicate name", "FailedScheduling", "0/1 nodes are available: 1 NodeUnderDiskPressure.", NodeDiskPressure},
		// deployment/sync.go checkPausedConditions.
		{"paused condition", "DeploymentPaused", "Deployment is paused", DeploymentPaused},
		// Azure/aks-engine#4263: azure-vnet-ipam out of pools.
		{"azure no address pools", "FailedCreatePodSandBox", `Failed to create pod sandbox: rpc error: code = Unknown desc = failed to set up sandbox container "cfaf" network for pod "web": networkPlugin cni failed to set up pod "web_default" network: Failed to allocate pool: Failed to delegate: Failed to allocate pool: No available address pools`, PodIPExhausted},
		// kubernetes/autoscaler#1470: a specific scheduler reason beats the refusal.
		{"scheduler over NotTriggerScaleUp", "", "  Normal   NotTriggerScaleUp  11m (x174 over 1h)  cluster-autoscaler  pod didn't trigger scale-up (it wouldn't fit if a new node is added)\n  Warning  FailedScheduling   1m (x5490 over 1h)  default-scheduler   0/9 nodes are available: 2 node(s) didn't match node selector, 8 Insufficient cpu.", InsufficientCPU},
		// 2i2c-org/infrastructure#2185: JupyterHub's spawn progress lines.
		{"spawn progress", "", "2023-02-08T18:24:48Z [Normal] pod didn't trigger scale-up: 1 in backoff after failed scale-up\n2023-02-08T18:27:02Z [Warning] 0/3 nodes are available: 1 Insufficient memory, 2 node(s) didn't match Pod's node affinity/selector.", InsufficientMemory},
		// The refusal alone is still the cause (kubernetes/autoscaler#3268).
		{"refusal alone", "NotTriggerScaleUp", "pod didn't trigger scale-up (it wouldn't fit if a new node is added): 1 max limit reached", ScaleUpNotTriggered},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ds := Explain(tc.reason, tc.message)
			if len(ds) == 0 || ds[0].Cause != tc.want {
				t.Errorf("Explain(%q, ...) = %v, want %s first", tc.reason, ds, tc.want)
			}
		})
	}
}
