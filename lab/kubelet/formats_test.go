package kubelet

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// upstreamDir is k8s.io/kubernetes v1.37.2 in the module cache (downloaded if
// missing: the lab binary needs it anyway).
func upstreamDir(t *testing.T) string { return moduleDir(t, "k8s.io/kubernetes@v1.37.2") }

// moduleDir is a module version's directory in the module cache.
func moduleDir(t *testing.T, module string) string {
	t.Helper()
	out, err := exec.Command("go", "mod", "download", "-json", module).Output()
	if err != nil {
		t.Fatalf("locating %s: %v", module, err)
	}
	var m struct{ Dir string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		t.Fatalf("locating %s: %v (%s)", module, err, out)
	}
	return m.Dir
}

// checkLiterals fails for each text that is not a Go string literal of its
// file under dir.
func checkLiterals(t *testing.T, dir string, tests []literal) {
	t.Helper()
	for _, tt := range tests {
		b, err := os.ReadFile(filepath.Join(dir, tt.file))
		if err != nil {
			t.Fatal(err)
		}
		if lit := strconv.Quote(tt.text); !strings.Contains(string(b), lit) {
			t.Errorf("%s does not contain %s", tt.file, lit)
		}
	}
}

type literal struct{ file, text string }

// checkCode fails for each snippet of Go code its file under dir lacks: the
// statements that make a prober's output what the lab writes.
func checkCode(t *testing.T, dir string, tests []literal) {
	t.Helper()
	for _, tt := range tests {
		b, err := os.ReadFile(filepath.Join(dir, tt.file))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), tt.text) {
			t.Errorf("%s does not contain %q", tt.file, tt.text)
		}
	}
}

// TestFormatsMatchContainerd checks the container runtime's error formats
// the lab's pull and sandbox failures are built from.
func TestFormatsMatchContainerd(t *testing.T) {
	checkLiterals(t, moduleDir(t, "github.com/containerd/containerd/v2@v2.4.2"), []literal{
		{"internal/cri/server/images/image_pull.go", ctrPullAndUnpack},
		{"core/transfer/local/pull.go", ctrResolve},
		{"core/remotes/docker/resolver.go", ctrDenied},
		{"core/remotes/docker/resolver.go", ctrDoRequest},
		{"core/remotes/errors/errors.go", ctrUnexpectedStatus},
		{"core/remotes/docker/resolver.go", "%s: %w"},
		{"core/remotes/docker/authorizer.go", ctrNoBasicAuth},
		{"internal/cri/server/images/image_pull.go", ctrConfigDescriptor},
		{"core/images/image.go", ctrNoPlatform},
		{"core/remotes/docker/resolver.go", errInvalidAuthorization.Error()},
		{"internal/cri/server/sandbox_run.go", ctrSandboxNetwork},
		{"internal/cri/server/sandbox_run.go", ctrNoOCIRuntime},
		{"internal/cri/config/config.go", ctrNoRuntime},
		{"internal/cri/server/helpers.go", reasonCompleted},
		{"internal/cri/server/helpers.go", reasonError},
		{"internal/cri/server/helpers.go", reasonOOMKilled},
	})
	checkLiterals(t, moduleDir(t, "github.com/containerd/errdefs@v1.0.0"), []literal{
		{"errors.go", errNotFound.Error()},
	})
	cni := moduleDir(t, "github.com/containernetworking/cni@v1.3.1")
	checkLiterals(t, cni, []literal{
		{"libcni/api.go", cniPluginFailed},
		{"pkg/invoke/find.go", cniFindPlugin},
	})
}

// TestFormatsMatchKubelet checks that every reason and message format the
// simulated kubelet writes appears, as a Go string literal, in the kubelet
// source file it was copied from.
func TestFormatsMatchKubelet(t *testing.T) {
	dir := upstreamDir(t)
	tests := []literal{
		{"pkg/kubelet/events/event.go", reasonPulling},
		{"pkg/kubelet/events/event.go", reasonPulled},
		{"pkg/kubelet/events/event.go", reasonCreated},
		{"pkg/kubelet/events/event.go", reasonStarted},
		{"pkg/kubelet/events/event.go", reasonKilling},
		{"pkg/kubelet/events/event.go", reasonStarting},
		{"pkg/kubelet/events/event.go", reasonNodeReady},
		{"pkg/kubelet/images/image_manager.go", msgPulling},
		{"pkg/kubelet/images/image_manager.go", msgPulled},
		{"pkg/kubelet/images/image_manager.go", msgAlreadyPresent},
		{"pkg/kubelet/kuberuntime/kuberuntime_container.go", msgCreated},
		{"pkg/kubelet/kuberuntime/kuberuntime_container.go", msgStarted},
		{"pkg/kubelet/kuberuntime/kuberuntime_container.go", msgKilling},
		{"pkg/kubelet/kuberuntime/kuberuntime_container.go", msgPostStartHookFailed},
		{"pkg/kubelet/kuberuntime/kuberuntime_container.go", reasonPostStartHookError},
		{"pkg/kubelet/lifecycle/handlers.go", msgExecHookFailed},
		{"pkg/kubelet/events/event.go", reasonFailedPostStartHook},
		{"pkg/kubelet/kuberuntime/kuberuntime_container.go", reasonFailedPostStartHook},
		{"pkg/kubelet/kubelet.go", msgStartingKubelet},
		{"pkg/kubelet/kubelet_node_status.go", msgNodeStatus},
		{"pkg/kubelet/nodestatus/setters.go", "NodeHasSufficientMemory"},
		{"pkg/kubelet/nodestatus/setters.go", "NodeHasNoDiskPressure"},
		{"pkg/kubelet/nodestatus/setters.go", "NodeHasSufficientPID"},
		{"pkg/kubelet/nodestatus/setters.go", reasonHasSufficientMemory},
		{"pkg/kubelet/nodestatus/setters.go", msgHasSufficientMemory},
		{"pkg/kubelet/nodestatus/setters.go", reasonHasNoDiskPressure},
		{"pkg/kubelet/nodestatus/setters.go", msgHasNoDiskPressure},
		{"pkg/kubelet/nodestatus/setters.go", reasonHasSufficientPID},
		{"pkg/kubelet/nodestatus/setters.go", msgHasSufficientPID},
		{"pkg/kubelet/nodestatus/setters.go", reasonKubeletReady},
		{"pkg/kubelet/nodestatus/setters.go", msgKubeletReady},
		{"pkg/kubelet/status/generate.go", reasonContainersNotReady},
		{"pkg/kubelet/status/generate.go", msgUnreadyContainers},
		{"pkg/kubelet/status/generate.go", reasonContainersNotInitialized},
		{"pkg/kubelet/status/generate.go", msgIncompleteContainers},
		{"pkg/kubelet/types/constants.go", reasonSandboxNotReady},
		{"pkg/kubelet/types/constants.go", msgNoPodSandbox},
		{"pkg/kubelet/kubelet_pods.go", reasonContainerCreating},
		{"pkg/kubelet/kubelet_pods.go", reasonPodInitializing},
		// Failures.
		{"pkg/kubelet/eviction/helpers.go", reasonEvicted},
		{"pkg/kubelet/eviction/helpers.go", msgEmptyDirLimit},
		{"pkg/kubelet/eviction/helpers.go", msgPodEphemeralLimit},
		{"pkg/kubelet/eviction/helpers.go", msgContainerEphemeralLimit},
		{"pkg/kubelet/runtimeclass/runtimeclass_manager.go", kubeletLookupRuntimeClass},
		{"pkg/kubelet/events/event.go", reasonFailed},
		{"pkg/kubelet/events/event.go", reasonInspectFailed},
		{"pkg/kubelet/events/event.go", reasonBackOff},
		{"pkg/kubelet/events/event.go", reasonFailedMount},
		{"pkg/kubelet/events/event.go", reasonUnhealthy},
		{"pkg/kubelet/events/event.go", reasonFailedCreatePodSandBox},
		{"pkg/kubelet/kubelet.go", reasonFailedPullSecret},
		{"pkg/kubelet/kubelet.go", msgFailedPullSecret},
		{"pkg/kubelet/images/image_manager.go", msgFailedToPull},
		{"pkg/kubelet/images/image_manager.go", msgBackOffPull},
		{"pkg/kubelet/images/image_manager.go", msgDefaultTag},
		{"pkg/kubelet/images/image_manager.go", msgPrevPullError},
		{"pkg/kubelet/images/image_manager.go", msgNeverPull},
		{"pkg/kubelet/events/event.go", reasonErrImageNeverPull},
		{"pkg/kubelet/images/types.go", reasonErrImageNeverPull},
		{"pkg/kubelet/images/types.go", reasonErrImagePull},
		{"pkg/kubelet/images/types.go", reasonImagePullBackOff},
		{"pkg/kubelet/images/types.go", reasonInvalidImageName},
		{"pkg/kubelet/kuberuntime/kuberuntime_container.go", msgError},
		{"pkg/kubelet/kuberuntime/kuberuntime_container.go", reasonCreateContainerConfigError},
		{"pkg/kubelet/kuberuntime/kuberuntime_manager.go", msgBackOffRestart},
		{"pkg/kubelet/kuberuntime/kuberuntime_manager.go", msgCrashLoopBackOff},
		{"pkg/kubelet/kuberuntime/kuberuntime_manager.go", msgFailedLiveness},
		{"pkg/kubelet/kuberuntime/kuberuntime_manager.go", msgWillBeRestarted},
		{"pkg/kubelet/kuberuntime/kuberuntime_manager.go", msgFailedCreateSandbox},
		{"pkg/kubelet/container/sync_result.go", reasonCrashLoopBackOff},
		{"pkg/kubelet/prober/prober.go", msgProbeFailed},
		{"pkg/kubelet/prober/prober.go", msgProbeErrored},
		{"pkg/probe/http/http.go", msgHTTPStatus},
		{"pkg/probe/probe.go", probeUnknown},
		{"pkg/probe/util.go", msgPortNotFound},
		{"pkg/probe/util.go", msgInvalidPort},
		{"pkg/probe/grpc/grpc.go", msgGRPCUnhealthy},
		{"pkg/probe/grpc/grpc.go", msgGRPCTimeout},
		{"pkg/kubelet/kubelet_pods.go", msgKeyNotFoundConfigMap},
		{"pkg/kubelet/kubelet_pods.go", msgKeyNotFoundSecret},
		{"pkg/volume/util/operationexecutor/operation_executor.go", msgMountSetUp},
		{"pkg/volume/util/operationexecutor/operation_generator.go", mountSetUp},
		{"pkg/kubelet/util/format/pod.go", "%s_%s(%s)"},
		// Termination.
		{"pkg/kubelet/container/runtime.go", reasonStatusUnknown},
		{"pkg/kubelet/status/status_manager.go", msgStatusUnknown},
		{"pkg/kubelet/status/generate.go", reasonPodCompleted},
		{"pkg/kubelet/status/generate.go", reasonPodFailed},
		{"pkg/kubelet/types/constants.go", msgSandboxNotReady},
		// Claims and hostPath volumes (volumes_pvc.go).
		{"pkg/kubelet/volumemanager/populator/desired_state_of_world_populator.go", msgProcessingPVC},
		{"pkg/kubelet/volumemanager/populator/desired_state_of_world_populator.go", msgFetchPVC},
		{"pkg/kubelet/volumemanager/populator/desired_state_of_world_populator.go", msgPVCNotBound},
		{"pkg/kubelet/volumemanager/populator/desired_state_of_world_populator.go", msgFetchPV},
		{"pkg/kubelet/volumemanager/populator/desired_state_of_world_populator.go", msgPVNoClaimRef},
		{"pkg/kubelet/volumemanager/populator/desired_state_of_world_populator.go", msgPVOtherClaim},
		{"pkg/volume/hostpath/host_path.go", msgHostPathTypeUnknown},
		{"pkg/volume/hostpath/host_path.go", msgHostPathType},
		{"pkg/volume/hostpath/host_path.go", "directory"},
		{"pkg/volume/hostpath/host_path.go", "file"},
		{"pkg/volume/util/hostutil/hostutil.go", msgPathNotExist},
		{"pkg/volume/util/hostutil/hostutil.go", msgUnknownFileType},
	}
	checkLiterals(t, dir, tests)
	// The exec prober's failure output is the command's output as is, the
	// TCP prober's the dial error's text (tcpRefused, tested against a real
	// dial); "%s probe errored" carries Unknown's name and the port error.
	checkCode(t, dir, []literal{
		{"pkg/probe/exec/exec.go", "return probe.Failure, string(data), nil"},
		{"pkg/probe/tcp/tcp.go", "return probe.Failure, err.Error(), nil"},
		{"pkg/probe/probe.go", "Unknown Result = " + strconv.Quote(probeUnknown)},
		{"pkg/kubelet/prober/prober.go", `"%s probe errored and resulted in %s state: %s", probeType, result, err)`},
		{"pkg/kubelet/kuberuntime/kuberuntime_manager.go", "minimumGracePeriodInSeconds = " + strconv.Itoa(int(minimumGracePeriod/time.Second))},
	})
	checkLiterals(t, moduleDir(t, "google.golang.org/grpc@v1.83.2"), []literal{
		{"health/grpc_health_v1/health.pb.go", grpcNotServing},
	})
	// The prober prints probeType's String().
	checkLiterals(t, dir, []literal{
		{"pkg/kubelet/prober/prober_manager.go", probeReadiness},
		{"pkg/kubelet/prober/prober_manager.go", probeLiveness},
	})
}
