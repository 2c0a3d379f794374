package decode

import (
	"testing"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Start errors as containerd v2.4.2 and runc write them. The kubelet puts the
// runtime's message in waiting CreateContainerError / RunContainerError and
// in a Failed event "Error: %v" (pkg/kubelet/kuberuntime/kuberuntime_container.go
// startContainer); containerd records a failed start as terminated StartError
// with the same message (internal/cri/server/container_start.go).
//
// The start chain: container_start.go "failed to create containerd task: %w",
// core/runtime/v2/task_manager.go "failed to create shim task: %w",
// cmd/containerd-shim-runc-v2/process/init.go runtimeError "%s: %s" with
// "OCI runtime create failed", runc v1.5.3 create.go "runc create failed: %w",
// libcontainer/container_linux.go "unable to start container process: %w",
// Go's exec.Error "exec: %q: %v" from exec.LookPath in standard_init_linux.go,
// and ": unknown" from errdefs/pkg errgrpc.ToNative ("%s: %w", ErrUnknown).
const (
	startPrefix    = `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: `
	startNotInPATH = startPrefix + `exec: "web-server": executable file not found in $PATH: unknown`
	startNoFile    = startPrefix + `exec: "/app/server": stat /app/server: no such file or directory: unknown`
	startNoExec    = startPrefix + `exec: "/app/run.sh": permission denied: unknown`
	// container_create.go "failed to reserve container name %q; check if another
	// CreateContainer request is in progress: %w", registrar.go "name %q is
	// reserved for %q", helpers.go makeContainerName NAME_POD_NAMESPACE_UID_ATTEMPT
	startReserved = `failed to reserve container name "web_web-6d4f8b7c9-x2x7q_default_0f8b6a52-3c1d-4e7a-9b0e-2a5c8d7f1e64_0"; check if another CreateContainer request is in progress: name "web_web-6d4f8b7c9-x2x7q_default_0f8b6a52-3c1d-4e7a-9b0e-2a5c8d7f1e64_0" is reserved for "3b9e1f0c7a5d2e8b4c6f1a9d0e3b7c5a2f8d4e6b1c9a0f3e7d5b2c8a4f6e1d9b"`
	// container_start.go "failed to start containerd task %q: %w" (the kubelet's
	// event puts the container's name for its ID), cmd/containerd-shim-runc-v2/
	// process/init.go runtimeError with "OCI runtime start failed" around runc
	// start.go "cannot start a container that has stopped"
	startOther      = `failed to start containerd task "3b9e1f0c7a5d2e8b4c6f1a9d0e3b7c5a2f8d4e6b1c9a0f3e7d5b2c8a4f6e1d9b": OCI runtime start failed: cannot start a container that has stopped: unknown`
	startOtherEvent = `failed to start containerd task "web": OCI runtime start failed: cannot start a container that has stopped: unknown`
)

var (
	notInPATHWant = Decoded{Cause: ExecutableNotFound,
		Summary:  `executable "web-server" not found in the image's $PATH`,
		NextStep: `fix spec.template.spec.containers[].command/args or the image's ENTRYPOINT: "web-server" must name an executable file in the image`,
		Details:  []chain.Detail{{Key: "command", Value: "web-server"}, {Key: "error", Value: "executable file not found in $PATH"}}}
	reservedWant = Decoded{Cause: CreateContainerError,
		Summary: "the runtime could not create the container: " + startReserved}
)

var startCases = []rtCase{
	{name: "waiting RunContainerError not in PATH", reason: "RunContainerError", message: startNotInPATH, want: notInPATHWant, ok: true},
	{name: "terminated StartError not in PATH", reason: "StartError", message: startNotInPATH, want: notInPATHWant, ok: true},
	{name: "event Failed not in PATH", reason: "Failed", message: "Error: " + startNotInPATH, want: notInPATHWant, ok: true},
	// runc v1.0.3 libcontainer/container_linux.go newSystemErrorWithCause(err,
	// "starting container process"), generic_error.go "%s:%d: %s caused: %s",
	// as cri-dockerd reports it in terminated ContainerCannotRun
	{name: "ContainerCannotRun runc 1.0", reason: "ContainerCannotRun",
		message: `OCI runtime create failed: container_linux.go:380: starting container process caused: exec: "web-server": executable file not found in $PATH: unknown`,
		want:    notInPATHWant, ok: true},
	{name: "absolute path missing", reason: "RunContainerError", message: startNoFile, ok: true, want: Decoded{Cause: ExecutableNotFound,
		Summary:  `executable "/app/server" does not exist in the image`,
		NextStep: `fix spec.template.spec.containers[].command/args or the image's ENTRYPOINT: "/app/server" must name an executable file in the image`,
		Details:  []chain.Detail{{Key: "command", Value: "/app/server"}, {Key: "error", Value: "stat /app/server: no such file or directory"}}}},
	{name: "not executable", reason: "StartError", message: startNoExec, ok: true, want: Decoded{Cause: ExecPermissionDenied,
		Summary:  `"/app/run.sh" cannot be executed: permission denied`,
		NextStep: `make "/app/run.sh" executable in the image (chmod +x, or COPY --chmod=755) and readable by the container's user, and keep it off noexec volumes`,
		Details:  []chain.Detail{{Key: "command", Value: "/app/run.sh"}, {Key: "error", Value: "permission denied"}}}},
	// runc v1.5.3 internal/linux/linux.go &os.PathError{Op: "exec"} printed by
	// libcontainer/init_linux.go fmt.Fprintln(os.Stderr, err) into the
	// container's log, which FallbackToLogsOnError copies into the
	// terminated message (kuberuntime_container.go getTerminationMessage)
	{name: "exec format error in terminated message", reason: "Error", message: "exec /usr/local/bin/web-server: exec format error\n", ok: true, want: Decoded{Cause: ExecFormatError,
		Summary:  `"/usr/local/bin/web-server" is not a binary for the node's architecture (exec format error)`,
		NextStep: `build the image for the node's architecture (docker buildx build --platform linux/amd64,linux/arm64 ...), or fix the #! line of "/usr/local/bin/web-server"`,
		Details:  []chain.Detail{{Key: "path", Value: "/usr/local/bin/web-server"}}}},
	// runc v1.0.3 standard_init_linux.go newSystemErrorWithCause(err, "exec user process")
	{name: "exec format error runc 1.0", reason: "Error", message: "standard_init_linux.go:228: exec user process caused: exec format error\n", ok: true,
		want: Decoded{Cause: ExecFormatError}},
	{name: "plain crash is not a start error", reason: "Error", message: "panic: listen tcp :8080: bind: address already in use\n"},
	{name: "waiting CreateContainerError", reason: "CreateContainerError", message: startReserved, want: reservedWant, ok: true},
	{name: "event Failed create", reason: "Failed", message: "Error: " + startReserved, want: reservedWant, ok: true},
	{name: "other start error", reason: "RunContainerError", message: startOther, ok: true, want: Decoded{Cause: ContainerStartFailed,
		Summary: "the runtime could not start the container: " + startOther}},
	{name: "event Failed other start error", reason: "Failed", message: "Error: " + startOtherEvent, ok: true, want: Decoded{Cause: ContainerStartFailed,
		Summary: "the runtime could not start the container: " + startOtherEvent}},
	// kubelet_pods.go "couldn't find key %v in Secret %v/%v": a config error
	{name: "config error event is not a start error", reason: "Failed", message: `Error: couldn't find key password in Secret default/db`},
	{name: "image error event is not a start error", reason: "Failed", message: "Error: ErrImagePull"},
	{name: "pull failure is not a start error", reason: "Failed", message: `Failed to pull image "registry.lab.internal/web:v9": ` + imgNotFound},
}

func TestContainerStart(t *testing.T) {
	rtRun(t, ContainerStart, startCases)
}

func TestStartCauses(t *testing.T) {
	rtCheckCauses(t, startCauses)
}

func TestRtTail(t *testing.T) {
	for in, want := range map[string]string{
		"rpc error: code = Unknown desc = rpc error: code = NotFound desc = x": "x",
		"rpc error: code = Unknown desc":                                       "rpc error: code = Unknown desc",
		"  plain  ":                                                            "plain",
	} {
		if got := rtTail(in); got != want {
			t.Errorf("rtTail(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzContainerStart(f *testing.F) {
	for _, tc := range startCases {
		f.Add(tc.reason, tc.message)
	}
	f.Add("RunContainerError", `exec: "`)
	f.Add("Failed", `Error: exec: "a\"b": x exec: "c": y`)
	f.Fuzz(func(t *testing.T, reason, message string) {
		rtFuzzCheck(t, ContainerStart, startCauses, reason, message)
	})
}

// TestInitOOMKilled: runc's words when the memory limit kills the
// container's init before the program runs (runc v1.5.3
// libcontainer/process_linux.go: "container init was OOM-killed (memory
// limit too low?)"), as containerd wraps them in a StartError, a
// RunContainerError and the kubelet's Failed event, are OOMKilled: a
// memory limit too low to start, not a runtime failure.
func TestInitOOMKilled(t *testing.T) {
	const msg = "failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: container init was OOM-killed (memory limit too low?): unknown"
	for _, c := range []struct{ reason, message string }{
		{"StartError", msg},
		{"RunContainerError", msg},
		{"Failed", "Error: " + msg},
		{"", msg},
	} {
		ds := Explain(c.reason, c.message)
		if len(ds) == 0 || ds[0].Cause != OOMKilled {
			t.Errorf("%s %q: %v, want OOMKilled", c.reason, c.message, ds)
		}
	}
}
