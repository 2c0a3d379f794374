package decode

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// TestNodeSetup decodes the node's refusals (security profiles, user
// namespaces, devices, shims, resizes, sidecars) with the reason they came
// with and alone; the inputs are real messages of the corpus (security,
// runtime-2x, resize, sidecars).
func TestNodeSetup(t *testing.T) {
	for _, tt := range []struct {
		reason, message string
		want            chain.CauseID
		details         []chain.Detail
	}{
		{"CreateContainerError", `failed to create containerd container: cannot load seccomp profile "/var/lib/kubelet/seccomp/profiles/unshare.json": open /var/lib/kubelet/seccomp/profiles/unshare.json: no such file or directory`,
			SeccompProfileNotFound, []chain.Detail{{Key: "profile", Value: "/var/lib/kubelet/seccomp/profiles/unshare.json"}}},
		{"FailedCreatePodSandBox", `Failed to create pod sandbox: rpc error: code = Unknown desc = seccomp is not enabled in your kernel, cannot run with a profile`,
			SeccompProfileNotFound, nil},
		{"AppArmor", `Cannot enforce AppArmor: profile "k8s-apparmor-example-deny-write" is not loaded`,
			AppArmorProfileNotLoaded, []chain.Detail{{Key: "profile", Value: "k8s-apparmor-example-deny-write"}}},
		{"Failed", `Error: failed to get container spec opts: failed to generate apparmor spec opts: apparmor profile not found k8s-apparmor-example-allow-write`,
			AppArmorProfileNotLoaded, []chain.Detail{{Key: "profile", Value: "k8s-apparmor-example-allow-write"}}},
		{"", `test-687d5f778-66xsd   0/1     Blocked   0          6s`, AppArmorProfileNotLoaded, nil},
		{"", `failed to create containerd container: get apparmor_parser version: exec: "apparmor_parser": executable file not found in $PATH`,
			AppArmorProfileNotLoaded, nil},
		{"FailedCreatePodSandBox", "Failed to create pod sandbox: can't set `spec.hostUsers: false`, runtime does not support user namespaces",
			UserNamespaceUnsupported, nil},
		{"Failed", `Error: failed to create containerd task: failed to create shim task: OCI runtime create failed: could not apply required modification to OCI specification: error modifying OCI spec: failed to inject CDI devices: unresolvable CDI devices management.nvidia.com/gpu=0: unknown`,
			DeviceInjectionFailed, []chain.Detail{{Key: "devices", Value: "management.nvidia.com/gpu=0"}}},
		{"Failed", `Error: failed to create containerd task: failed to start shim: exec: "containerd-shim": executable file not found in $PATH: unknown`,
			RuntimeShimFailed, nil},
		{"Infeasible", `Node didn't have enough capacity: cpu, requested: 100000, capacity: 3800`, PodResizeInfeasible,
			[]chain.Detail{{Key: "resource", Value: "cpu"}, {Key: "requested", Value: "100000"}, {Key: "capacity", Value: "3800"}}},
		{"ResizeDeferred", `Pod resize Deferred: {"containers":[{"name":"web","resources":{"limits":{"cpu":"3"},"requests":{"cpu":"3"}}}],"generation":3,"error":"Node didn't have enough resource: cpu, requested: 3000, used: 2150, capacity: 4000"}`,
			PodResizeDeferred, []chain.Detail{{Key: "resource", Value: "cpu"}, {Key: "requested", Value: "3000"}, {Key: "capacity", Value: "4000"}, {Key: "used", Value: "2150"}}},
		{"FailedCreate", `Error creating: Pod "my-server-xxxxxxxx-xxxxx" is invalid: [spec.initContainers[1].readinessProbe: Forbidden: may not be set for init containers without restartPolicy=Always, spec.initContainers[1].startupProbe: Forbidden: may not be set for init containers without restartPolicy=Always]`,
			SidecarRestartPolicyDropped, []chain.Detail{{Key: "pod", Value: "my-server-xxxxxxxx-xxxxx"}, {Key: "initContainer", Value: "spec.initContainers[1]"}, {Key: "field", Value: "readinessProbe"}}},
		{"InitContainerRestartPolicyForbidden", `Init container "plugin-barman-cloud" may not have a non-default restartPolicy`,
			KubeletAdmissionRejected, []chain.Detail{{Key: "initContainer", Value: "plugin-barman-cloud"}}},
	} {
		for _, reason := range []string{tt.reason, ""} {
			ds := Explain(reason, tt.message)
			if len(ds) == 0 {
				t.Errorf("Explain(%q, %q) = nothing, want %s", reason, tt.message, tt.want)
				continue
			}
			if ds[0].Cause != tt.want {
				t.Errorf("Explain(%q, %q) = %s, want %s", reason, tt.message, ds[0].Cause, tt.want)
			}
			if tt.details != nil {
				if diff := cmp.Diff(tt.details, ds[0].Details); diff != "" {
					t.Errorf("Explain(%q, %q) details (-want +got):\n%s", reason, tt.message, diff)
				}
			}
		}
	}
}

// TestNodeSetupLeavesOthers keeps the node's words from claiming what other
// decoders name: a container's own missing command, a mount into a user
// namespace's rootfs, a Deployment refused for its template.
func TestNodeSetupLeavesOthers(t *testing.T) {
	for _, tt := range []struct {
		reason, message string
		want            chain.CauseID
	}{
		{"CreateContainerError", `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "/app/server": stat /app/server: no such file or directory: unknown`, ExecutableNotFound},
		{"Failed", `Error: failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: error mounting "/var/lib/kubelet/pods/9587ef35-67eb-4fcb-9b57-a28fc23bd1fb/volumes/kubernetes.io~projected/kube-api-access-94hrt" to rootfs at "/var/run/secrets/kubernetes.io/serviceaccount": create mountpoint for /var/run/secrets/kubernetes.io/serviceaccount mount: mkdirat /run/k3s/containerd/io.containerd.runtime.v2.task/k8s.io/test-volume/rootfs/run/secrets: permission denied`, MountPathError},
		{"", `Deployment.apps "molgen" is invalid: [spec.template.spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without restartPolicy=Always]`, ManifestInvalid},
	} {
		if ds := Explain(tt.reason, tt.message); len(ds) == 0 || ds[0].Cause != tt.want {
			t.Errorf("Explain(%q, %q) = %v, want %s", tt.reason, tt.message, ds, tt.want)
		}
	}
}

// FuzzNodeWords: the node's decoders never panic and name one of their
// causes or nothing.
func FuzzNodeWords(f *testing.F) {
	for _, s := range []string{`cannot load seccomp profile "/x": open /x: no such file or directory`, `Cannot enforce AppArmor: profile "p" is not loaded`,
		`unresolvable CDI devices nvidia.com/gpu=all`, `Pod resize Deferred: {"error":"Node didn't have enough resource: cpu, requested: 1, used: 2, capacity: 3"}`,
		`Pod "p" is invalid: spec.initContainers[0].lifecycle: Forbidden: may not be set for init containers without restartPolicy=Always`, "0/1 Blocked 0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d, ok := nodeWords(s); ok {
			if _, known := Lookup(d.Cause); !known {
				t.Errorf("nodeWords(%q) = %q, not in the catalogue", s, d.Cause)
			}
		}
		_ = explainResize("Deferred", s)
	})
}
