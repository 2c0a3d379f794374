package decode

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// klStartError is containerd's StartError message for a missing entrypoint:
// internal/cri/server/container_start.go "failed to create containerd task: %w",
// core/runtime/v2/task_manager.go "failed to create shim task: %w",
// cmd/containerd-shim-runc-v2/process/init.go "OCI runtime create failed" + runc's error.
const klStartError = `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "/app": stat /app: no such file or directory: unknown`

// klTerminationCase is one terminated state and the whole value expected.
type klTerminationCase struct {
	name      string
	container string
	state     corev1.ContainerStateTerminated
	want      Decoded
}

// Terminated reasons and exit codes as containerd writes them
// (internal/cri/server/helpers.go: Completed/0, Error/non-zero, OOMKilled/137,
// StartError/128) and the kubelet's ContainerStatusUnknown
// (pkg/kubelet/kubelet_pods.go: 137, "The container could not be located when
// the pod was terminated").
var klTerminationCases = []klTerminationCase{
	{
		name: "oom killed", container: "web",
		state: corev1.ContainerStateTerminated{Reason: "OOMKilled", ExitCode: 137},
		want: Decoded{
			Cause:    OOMKilled,
			Summary:  `container "web" was OOM-killed (exit code 137)`,
			NextStep: `raise spec.template.spec.containers[web].resources.limits.memory, or reduce the program's memory use`,
			Details:  []chain.Detail{{Key: "container", Value: "web"}, {Key: "exitCode", Value: "137"}, {Key: "reason", Value: "OOMKilled"}},
		},
	},
	{
		name: "error exit", container: "web",
		state: corev1.ContainerStateTerminated{Reason: "Error", ExitCode: 1},
		want: Decoded{
			Cause:    CrashLoopBackOff,
			Summary:  `container "web" exited with code 1 (Error)`,
			NextStep: `read why it exits: kubectl logs {POD} -c web --previous`,
			Details:  []chain.Detail{{Key: "container", Value: "web"}, {Key: "exitCode", Value: "1"}, {Key: "reason", Value: "Error"}},
		},
	},
	{
		// The message is the container's termination message (terminationMessagePolicy FallbackToLogsOnError).
		name: "segfault with termination message", container: "web",
		state: corev1.ContainerStateTerminated{Reason: "Error", ExitCode: 139, Message: "panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation]"},
		want: Decoded{
			Cause:    CrashLoopBackOff,
			Summary:  `container "web" exited with code 139 (segmentation fault, SIGSEGV)`,
			NextStep: `read why it exits: kubectl logs {POD} -c web --previous`,
			Details: []chain.Detail{
				{Key: "container", Value: "web"}, {Key: "exitCode", Value: "139"}, {Key: "reason", Value: "Error"},
				{Key: "message", Value: "panic: runtime error: invalid memory address or nil pointer dereference"},
			},
		},
	},
	{
		name: "completed under restartPolicy Always", container: "web",
		state: corev1.ContainerStateTerminated{Reason: "Completed", ExitCode: 0},
		want: Decoded{
			Cause:    ContainerCompleted,
			Summary:  `container "web" exited 0 (it finished instead of serving)`,
			NextStep: `make spec.template.spec.containers[web].command/args run in the foreground (a server, not a script that returns), or run one-off work as a Job`,
			Details:  []chain.Detail{{Key: "container", Value: "web"}, {Key: "exitCode", Value: "0"}, {Key: "reason", Value: "Completed"}},
		},
	},
	{
		name: "status unknown", container: "web",
		state: corev1.ContainerStateTerminated{Reason: "ContainerStatusUnknown", ExitCode: 137, Message: "The container could not be located when the pod was terminated"},
		want: Decoded{
			// kubelet_pods.go convertToAPIContainerStatuses: the container of
			// a pod that was evicted or deleted, not a crash.
			Cause:    PodEvicted,
			Summary:  `container "web" was lost: its pod was evicted or deleted while it ran (The container could not be located when the pod was terminated)`,
			NextStep: `read why the pod was stopped: its status.reason and message (kubectl get pod {POD} -o jsonpath='{.status.reason}: {.status.message}') and the node's events; the ReplicaSet replaces it`,
			Details: []chain.Detail{
				{Key: "container", Value: "web"}, {Key: "exitCode", Value: "137"}, {Key: "reason", Value: "ContainerStatusUnknown"},
				{Key: "message", Value: "The container could not be located when the pod was terminated"},
			},
		},
	},
}

func TestTermination(t *testing.T) {
	for _, tc := range klTerminationCases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Termination(tc.container, tc.state)); diff != "" {
				t.Errorf("decoded mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTerminationStartError checks that a process that never ran is decoded
// by the runtime start decoder, whatever it makes of the message.
func TestTerminationStartError(t *testing.T) {
	st := corev1.ContainerStateTerminated{Reason: "StartError", ExitCode: 128, Message: klStartError}
	want, ok := ContainerStart(st.Reason, st.Message)
	if !ok {
		t.Fatalf("ContainerStart does not decode %q", klStartError)
	}
	if diff := cmp.Diff(want, Termination("web", st)); diff != "" {
		t.Errorf("decoded mismatch (-want +got):\n%s", diff)
	}
}

func TestInitTermination(t *testing.T) {
	cases := []struct {
		name  string
		state corev1.ContainerStateTerminated
		want  Decoded
		ok    bool
	}{
		{
			name:  "failed migration",
			state: corev1.ContainerStateTerminated{Reason: "Error", ExitCode: 2},
			ok:    true,
			want: Decoded{
				Cause:    InitContainerFailed,
				Summary:  `init container "migrate" exited with code 2 (Error)`,
				NextStep: `read why it exits: kubectl logs {POD} -c migrate --previous, then fix spec.template.spec.initContainers[migrate]`,
				Details:  []chain.Detail{{Key: "container", Value: "migrate"}, {Key: "exitCode", Value: "2"}, {Key: "reason", Value: "Error"}},
			},
		},
		{
			// pkg/kubelet/kuberuntime/helpers.go isInitContainerFailed: OOMKilled counts as a failure.
			name:  "oom killed",
			state: corev1.ContainerStateTerminated{Reason: "OOMKilled", ExitCode: 137},
			ok:    true,
			want: Decoded{
				Cause:    OOMKilled,
				Summary:  `init container "migrate" was OOM-killed (exit code 137)`,
				NextStep: `raise spec.template.spec.initContainers[migrate].resources.limits.memory, or reduce the program's memory use`,
				Details:  []chain.Detail{{Key: "container", Value: "migrate"}, {Key: "exitCode", Value: "137"}, {Key: "reason", Value: "OOMKilled"}},
			},
		},
		{
			name:  "completed is success",
			state: corev1.ContainerStateTerminated{Reason: "Completed", ExitCode: 0},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := InitTermination("migrate", tc.state)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("decoded mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// klBackOffCases are the kubelet's back-off texts.
var klBackOffCases = []klCase{
	{
		// pkg/kubelet/kuberuntime/kuberuntime_manager.go doBackOff:
		// "back-off %s restarting failed container=%s pod=%s" with format.Pod
		name: "waiting message", reason: "CrashLoopBackOff",
		message: `back-off 40s restarting failed container=web pod=` + klPod,
		ok:      true,
		want: Decoded{
			Cause:    CrashLoopBackOff,
			Summary:  `container "web" keeps crashing; restart back-off 40s`,
			NextStep: `read why it exits: kubectl logs {POD} -c web --previous`,
			Details:  []chain.Detail{{Key: "container", Value: "web"}, {Key: "backOff", Value: "40s"}},
		},
	},
	{
		// kuberuntime_manager.go doBackOff: events.BackOffStartContainer,
		// "Back-off restarting failed container %s in pod %s"
		name: "event", reason: "BackOff",
		message: `Back-off restarting failed container web in pod ` + klPod,
		ok:      true,
		want: Decoded{
			Cause:    CrashLoopBackOff,
			Summary:  `container "web" keeps crashing`,
			NextStep: `read why it exits: kubectl logs {POD} -c web --previous`,
			Details:  []chain.Detail{{Key: "container", Value: "web"}},
		},
	},
	{
		// Older kubelets: "Back-off restarting failed container"
		name: "event without names", reason: "BackOff",
		message: `Back-off restarting failed container`,
		ok:      true,
		want: Decoded{
			Cause:   CrashLoopBackOff,
			Summary: "a container keeps crashing and the kubelet backs off restarting it",
		},
	},
	{
		// pkg/kubelet/images/image_manager.go: "Back-off pulling image %q" (the image decoder's).
		name: "image back-off", reason: "BackOff",
		message: `Back-off pulling image "registry.lab.internal/web:v9"`,
	},
	{
		// kuberuntime_manager.go: same waiting message, for the 5m0s maximum back-off.
		name: "maximum back-off", reason: "CrashLoopBackOff",
		message: `back-off 5m0s restarting failed container=worker pod=` + klPod,
		ok:      true,
		want: Decoded{
			Cause:    CrashLoopBackOff,
			Summary:  `container "worker" keeps crashing; restart back-off 5m0s`,
			NextStep: `read why it exits: kubectl logs {POD} -c worker --previous`,
			Details:  []chain.Detail{{Key: "container", Value: "worker"}, {Key: "backOff", Value: "5m0s"}},
		},
	},
}

func TestBackOff(t *testing.T) {
	klRun(t, BackOff, klBackOffCases)
}

func FuzzBackOff(f *testing.F) {
	klSeed(f, klBackOffCases)
	f.Fuzz(func(t *testing.T, reason, message string) {
		klCheck(t, BackOff, crashCauses, reason, message)
	})
}

func FuzzTermination(f *testing.F) {
	for _, tc := range klTerminationCases {
		f.Add(tc.container, tc.state.Reason, tc.state.Message, tc.state.ExitCode)
	}
	f.Add("web", "StartError", klStartError, int32(128))
	f.Add("0", "\n", "0", int32('a')) // once gave a two-line summary
	f.Fuzz(func(t *testing.T, container, reason, message string, exitCode int32) {
		st := corev1.ContainerStateTerminated{Reason: reason, Message: message, ExitCode: exitCode}
		d := Termination(container, st)
		if !cmp.Equal(d, Termination(container, st)) {
			t.Fatalf("not deterministic for %+v", st)
		}
		klCheckDecoded(t, d, true, klAllCauses())
		di, ok := InitTermination(container, st)
		if ok && di.Cause == "" {
			t.Fatalf("init termination without a cause: %+v", st)
		}
		klCheckDecoded(t, di, ok, klAllCauses())
	})
}
