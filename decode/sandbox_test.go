package decode

import (
	"testing"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// The kubelet writes FailedCreatePodSandBox as "Failed to create pod sandbox:
// %v" (pkg/kubelet/kuberuntime/kuberuntime_manager.go SyncPod), NetworkNotReady
// as "%s: %v" of NetworkNotReadyErrorMsg "network is not ready" around
// "container runtime network not ready: %v" of RuntimeCondition.String
// "%s=%t reason:%s message:%s" (kubelet.go, container/runtime.go), and
// FailedKillPod as "error killing pod: %v" around PodSyncResult.Error's
// `failed to %q for %q with %w: %q` (container/sync_result.go).
//
// The runtime errors are containerd v2.4.2's internal/cri/server/sandbox_run.go
// "failed to setup network for sandbox %q: %w", "unable to get OCI runtime for
// sandbox %q: %w", "failed to pull image %q: %w"; sandbox_stop.go "failed to
// destroy network for sandbox %q: %w"; config.go "no runtime for %q is
// configured"; go-cni errors.go "cni plugin not initialized"; libcni api.go
// "plugin %s failed (add): %w" with pluginDescription `type=%q` + ` name=%q`;
// cni pkg/invoke/find.go "failed to find plugin %q in path %s".
const sandboxID = "8c3f6b0e5d2a4f1c9e7b3a6d0f2c4e8a1b5d7f9c3e6a2b4d8f0c1e3a5b7d9f2c"

var sandboxCases = []rtCase{
	{name: "cni add failed, named network", reason: "FailedCreatePodSandBox",
		message: `Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "` + sandboxID + `": plugin type="calico" name="k8s-pod-network" failed (add): failed to find plugin "calico" in path [/opt/cni/bin]`,
		ok:      true, want: Decoded{Cause: CNINotReady,
			Summary:  `CNI plugin "calico" is not installed or not ready on the node: failed to find plugin "calico" in path [/opt/cni/bin]`,
			NextStep: `check the "calico" CNI plugin on the node: its DaemonSet pod there (kubectl get pods -A -o wide --field-selector spec.nodeName={NODE}), its logs, /etc/cni/net.d and /opt/cni/bin`,
			Details:  []chain.Detail{{Key: "kind", Value: "cni"}, {Key: "cni", Value: "calico"}, {Key: "network", Value: "k8s-pod-network"}}}},
	{name: "cni add failed", reason: "FailedCreatePodSandBox",
		message: `Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "` + sandboxID + `": plugin type="bridge" failed (add): failed to find plugin "bridge" in path [/opt/cni/bin]`,
		ok:      true, want: Decoded{Cause: CNINotReady,
			Summary:  `CNI plugin "bridge" is not installed or not ready on the node: failed to find plugin "bridge" in path [/opt/cni/bin]`,
			NextStep: `check the "bridge" CNI plugin on the node: its DaemonSet pod there (kubectl get pods -A -o wide --field-selector spec.nodeName={NODE}), its logs, /etc/cni/net.d and /opt/cni/bin`,
			Details:  []chain.Detail{{Key: "kind", Value: "cni"}, {Key: "cni", Value: "bridge"}}}},
	{name: "cni not initialized", reason: "FailedCreatePodSandBox",
		message: `Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "` + sandboxID + `": cni plugin not initialized`,
		ok:      true, want: Decoded{Cause: CNINotReady,
			Summary:  "the node's network plugin is not ready: cni plugin not initialized",
			NextStep: sandboxNoCNIStep,
			Details:  []chain.Detail{{Key: "kind", Value: "cni-not-initialized"}}}},
	{name: "network not ready", reason: "NetworkNotReady",
		message: `network is not ready: container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized`,
		ok:      true, want: Decoded{Cause: CNINotReady,
			Summary:  "the node's container network is not ready: Network plugin returns error: cni plugin not initialized",
			NextStep: sandboxNoCNIStep,
			Details:  []chain.Detail{{Key: "kind", Value: "network-not-ready"}}}},
	{name: "runtime handler not configured", reason: "FailedCreatePodSandBox",
		message: `Failed to create pod sandbox: rpc error: code = Unknown desc = unable to get OCI runtime for sandbox "` + sandboxID + `": no runtime for "kata" is configured`,
		ok:      true, want: Decoded{Cause: RuntimeHandlerMissing,
			Summary:  `the pod's runtime handler is not available on the node: unable to get OCI runtime for sandbox "` + sandboxID + `": no runtime for "kata" is configured`,
			NextStep: runtimeHandlerStep,
			Details:  []chain.Detail{{Key: "kind", Value: "runtime-handler"}, {Key: "handler", Value: "kata"}}}},
	// client-go listers/generic_helpers.go errors.NewNotFound(nodev1.Resource("runtimeclass"), name),
	// returned as is by pkg/kubelet/runtimeclass/runtimeclass_manager.go LookupRuntimeHandler
	{name: "runtime class not found", reason: "FailedCreatePodSandBox",
		message: `Failed to create pod sandbox: runtimeclass.node.k8s.io "gvisor" not found`,
		ok:      true, want: Decoded{Cause: RuntimeHandlerMissing,
			Summary:  `the pod's runtime handler is not available on the node: runtimeclass.node.k8s.io "gvisor" not found`,
			NextStep: runtimeHandlerStep,
			Details:  []chain.Detail{{Key: "kind", Value: "runtime-handler"}, {Key: "runtimeClass", Value: "gvisor"}}}},
	{name: "sandbox image not found", reason: "FailedCreatePodSandBox",
		message: `Failed to create pod sandbox: rpc error: code = NotFound desc = failed to pull image "registry.lab.internal/pause:3.10": failed to pull and unpack image "registry.lab.internal/pause:3.10": failed to resolve reference "registry.lab.internal/pause:3.10": registry.lab.internal/pause:3.10: not found`,
		ok:      true, want: Decoded{Cause: SandboxImagePullFailed,
			Summary: `the runtime could not get the pod sandbox (pause) image: failed to pull image "registry.lab.internal/pause:3.10": failed to pull and unpack image "registry.lab.internal/pause:3.10": failed to resolve reference "registry.lab.internal/pause:3.10": registry.lab.internal/pause:3.10: not found`,
			Details: []chain.Detail{{Key: "kind", Value: "sandbox-image"}, {Key: "image", Value: "registry.lab.internal/pause:3.10"}}}},
	// kuberuntime_sandbox.go createPodSandbox: MkdirAll of the pod's log
	// directory (BuildPodLogsDirectory "NAMESPACE_NAME_UID"), Go's os.PathError "%s %s: %s"
	{name: "other sandbox error", reason: "FailedCreatePodSandBox",
		message: `Failed to create pod sandbox: mkdir /var/log/pods/default_web-6d4f8b7c9-x2x7q_0f8b6a52-3c1d-4e7a-9b0e-2a5c8d7f1e64: no space left on device`,
		ok:      true, want: Decoded{Cause: SandboxCreationFailed,
			Summary: "the pod sandbox could not be created: mkdir /var/log/pods/default_web-6d4f8b7c9-x2x7q_0f8b6a52-3c1d-4e7a-9b0e-2a5c8d7f1e64: no space left on device",
			Details: []chain.Detail{{Key: "kind", Value: "other"}}}},
	{name: "kill sandbox cni delete failed", reason: "FailedKillPod",
		message: `error killing pod: failed to "KillPodSandbox" for "0f8b6a52-3c1d-4e7a-9b0e-2a5c8d7f1e64" with KillPodSandboxError: "rpc error: code = Unknown desc = failed to destroy network for sandbox \"` + sandboxID + `\": plugin type=\"calico\" failed (delete): failed to find plugin \"calico\" in path [/opt/cni/bin]"`,
		ok:      true, want: Decoded{Cause: SandboxKillFailed,
			Summary:  `CNI plugin "calico" failed to delete the pod network, so the sandbox cannot stop: failed to find plugin "calico" in path [/opt/cni/bin]`,
			NextStep: `check the "calico" CNI plugin on the node: its DaemonSet pod there (kubectl get pods -A -o wide --field-selector spec.nodeName={NODE}), its logs, /etc/cni/net.d and /opt/cni/bin; the pod stays Terminating until it succeeds`,
			Details:  []chain.Detail{{Key: "kind", Value: "cni"}, {Key: "cni", Value: "calico"}}}},
	// kuberuntime_container.go killContainer: KillContainerError is no sandbox's
	{name: "kill container is not a sandbox", reason: "FailedKillPod",
		message: `error killing pod: failed to "KillContainer" for "web" with KillContainerError: "rpc error: code = DeadlineExceeded desc = context deadline exceeded"`},
	{name: "image event is not a sandbox", reason: "Failed", message: `Failed to pull image "registry.lab.internal/web:v9": ` + imgNotFound},
}

func TestSandbox(t *testing.T) {
	rtRun(t, Sandbox, sandboxCases)
}

func TestSandboxCauses(t *testing.T) {
	rtCheckCauses(t, sandboxCauses)
}

func FuzzSandbox(f *testing.F) {
	for _, tc := range sandboxCases {
		f.Add(tc.reason, tc.message)
	}
	f.Add("FailedKillPod", `with KillPodSandboxError: "\"`)
	f.Add("FailedCreatePodSandBox", `plugin type="" name="" failed (add): `)
	f.Fuzz(func(t *testing.T, reason, message string) {
		rtFuzzCheck(t, Sandbox, sandboxCauses, reason, message)
	})
}
