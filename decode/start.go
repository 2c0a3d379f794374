package decode

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Start causes: the image is on the node, but the runtime could not create
// or start the container from it (kuberuntime_container.go startContainer).
const (
	ExecutableNotFound   chain.CauseID = "ExecutableNotFound"
	ExecFormatError      chain.CauseID = "ExecFormatError"
	CreateContainerError chain.CauseID = "CreateContainerError"
	ContainerStartFailed chain.CauseID = "ContainerStartFailed"
	// The runtime errors whose next step differs: an entrypoint without the
	// execute bit, a volume or file that cannot be mounted where the
	// container wants it, and a cgroup the runtime cannot set up.
	ExecPermissionDenied chain.CauseID = "ExecPermissionDenied"
	MountPathError       chain.CauseID = "MountPathError"
	ContainerCgroupError chain.CauseID = "ContainerCgroupError"
)

// startCauses: the kubelet retries create and start with the pod's back-off,
// and a missing binary fails the same way every time, so two tries settle it.
var startCauses = []Cause{
	{ID: ExecutableNotFound, Link: chain.LinkContainers,
		Summary:  "the container's command is not in the image (or not executable)",
		NextStep: "fix spec.template.spec.containers[].command/args or the image's ENTRYPOINT so that the first word names a file in the image",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 2}},
	{ID: ExecFormatError, Link: chain.LinkContainers,
		Summary:  "the container's entrypoint is not a binary for the node's architecture (exec format error)",
		NextStep: "build the image for the node's architecture (docker buildx build --platform linux/amd64,linux/arm64 ...), or fix the script's #! line",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 2}},
	{ID: ExecPermissionDenied, Link: chain.LinkContainers,
		Summary:  "the container's entrypoint cannot be executed: permission denied (no execute bit, a noexec mount, or a user without access)",
		NextStep: "make the entrypoint executable in the image (chmod +x in the Dockerfile, or COPY --chmod=755), check it is not on a noexec volume, and that spec.template.spec.securityContext.runAsUser may read it",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 2}},
	{ID: MountPathError, Link: chain.LinkContainers,
		Summary:  "the runtime could not mount a volume, subPath or file at its path in the container (a file onto a directory, or a source that does not exist)",
		NextStep: "check spec.template.spec.containers[].volumeMounts: mountPath against what the image has there (a file or a directory), subPath against the volume's content, and hostPath sources on the node",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 2}},
	{ID: ContainerCgroupError, Link: chain.LinkContainers,
		Summary:  "the container runtime could not set up the container's cgroup (limits, cgroup driver or the node's cgroup hierarchy)",
		NextStep: "check that the kubelet and the runtime use the same cgroup driver (systemd or cgroupfs), the node's kernel log and memory, and the runtime's log (journalctl -u containerd); a limit below what the runtime needs also fails here",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 3}},
	{ID: CreateContainerError, Link: chain.LinkContainers,
		Summary:  "the container runtime could not create the container",
		NextStep: "read the runtime's error in kubectl describe pod {POD} and the container runtime's log on the node (journalctl -u containerd)",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 3}, Generic: true},
	{ID: ContainerStartFailed, Link: chain.LinkContainers,
		Summary:  "the container runtime could not start the container",
		NextStep: "read the runtime's error in kubectl describe pod {POD} and the container runtime's log on the node (journalctl -u containerd)",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 3}, Generic: true},
}

// ContainerStart decodes waiting/terminated reasons and events for a
// container that could not be created or started: CreateContainerError,
// PreCreateHookError, RunContainerError, PreStartHookError, StartError
// (containerd), ContainerCannotRun (dockershim) and the kubelet's Failed
// events "Error: ..." for them. A terminated "Error" counts only when its
// message is runc's exec failure (FallbackToLogsOnError puts it there). Failed
// events whose error is not in the runtime's create/start words (config
// errors, image errors) are left to their own decoders.
func ContainerStart(reason, message string) (d Decoded, ok bool) {
	if startReasons[reason] || reason == "Failed" && strings.HasPrefix(message, "Error: ") {
		// The node's setup, not the container's: a security profile, a
		// user namespace, a device or the runtime's shim (security.go,
		// runtime_setup.go), in whatever error wraps it.
		if d, ok := nodeSetupWords(message); ok {
			return d, true
		}
	}
	create := false
	switch reason {
	case "CreateContainerError", "PreCreateHookError":
		create = true
	case "RunContainerError", "StartError", "ContainerCannotRun", "PreStartHookError":
	case "Failed":
		if message, create, ok = startFailedEvent(message); !ok {
			return Decoded{}, false
		}
	case "Error":
		return startExecError(message)
	default:
		return Decoded{}, false
	}
	if d, ok := startExecError(message); ok {
		return d, true
	}
	if strings.Contains(message, "container init was OOM-killed") {
		// runc's words when the memory limit kills the container's init
		// before the program runs (StartError, exit code 128): a memory
		// limit too low to start, not a runtime failure.
		return Decoded{Cause: OOMKilled, Summary: "the container was killed for memory while it started (container init was OOM-killed): its memory limit is too low for it to start"}, true
	}
	tail := rtOneLine(rtTail(message))
	for _, w := range []string{"is already in use by container", "reserving container name", "error reserving ctr name"} {
		if strings.Contains(message, w) {
			create = true // a name the runtime still holds: creating failed
		}
	}
	if cause, ok := startRuntimeCause(message); ok {
		return Decoded{Cause: cause, Summary: "the runtime could not start the container: " + tail}, true
	}
	if create {
		return Decoded{Cause: CreateContainerError, Summary: "the runtime could not create the container: " + tail}, true
	}
	return Decoded{Cause: ContainerStartFailed, Summary: "the runtime could not start the container: " + tail}, true
}

// startReasons are the waiting and terminated reasons of a container the
// runtime could not create or start.
var startReasons = map[string]bool{"CreateContainerError": true, "PreCreateHookError": true, "RunContainerError": true,
	"StartError": true, "ContainerCannotRun": true, "PreStartHookError": true}

// Runtime words that tell a create error from a start error in a Failed
// event, whose reason is the same for both (events/event.go).
var (
	startWords = []string{"failed to create containerd task", "failed to start containerd task",
		"failed to create shim task", "OCI runtime", "failed to start container ", "Error response from daemon: OCI runtime"}
	createWords = []string{"failed to reserve container name", "failed to generate container",
		"failed to create containerd container", "failed to create container io",
		"failed to get sandbox runtime", "failed to resolve image", "failed to get image from containerd",
		"failed to mount image volume", "failed to find sandbox id", "sandbox container ",
		// CRI-O and Docker: a name still held by a container the runtime has
		// not cleaned up, and the kubelet's own timeout on a slow create.
		"reserving container name", "error reserving ctr name", "kubelet may be retrying requests",
		"context deadline exceeded", "Conflict. The container name", "container create failed", "stat ",
		"failed to prepare subPath"}
)

// startFailedEvent takes the error out of a Failed event and says whether it
// came from creating the container.
func startFailedEvent(message string) (body string, create, ok bool) {
	if body, ok := strings.CutPrefix(message, "Internal PreCreateContainer hook failed: "); ok {
		return body, true, true
	}
	if body, ok := strings.CutPrefix(message, "Internal PreStartContainer hook failed: "); ok {
		return body, false, true
	}
	body, ok = strings.CutPrefix(message, "Error: ")
	if !ok {
		return "", false, false
	}
	tail := rtTail(body)
	if _, exec := startExecError(tail); exec {
		return body, false, true
	}
	for _, w := range startWords {
		if strings.HasPrefix(tail, w) {
			return body, false, true
		}
	}
	for _, w := range createWords {
		if strings.HasPrefix(tail, w) {
			return body, true, true
		}
	}
	return "", false, false
}

var execFormatRE = regexp.MustCompile(`exec (\S+): exec format error`)

// execLogRE is runc init's execve error as the container's log (and so a
// terminated message) shows it: "exec /app/start.sh: no such file or
// directory" (a missing file, or a script whose #! interpreter is missing)
// or "...: permission denied".
var execLogRE = regexp.MustCompile(`(?m)^exec (/\S+): (no such file or directory|permission denied)\s*$`)

// execBacktickRE is crun's and CRI-O's wording: "executable file `%s` not
// found in $PATH".
var execBacktickRE = regexp.MustCompile("executable file `([^`]+)` not found")

// startMountRE finds runc's and crun's mount errors at container init
// ("error mounting %q to rootfs at %q: %w", crun's "mount `%s` to `%s`"),
// and Docker's hint for a file mounted onto a directory.
var startMountRE = regexp.MustCompile(`(?i)mounting \\?"[^"]*\\?" to rootfs|error mounting .* to rootfs at|are you trying to mount a directory onto a file|not a directory: unknown|mount through procfd|failed to prepare subPath|subpath|mountpoint for .* not found|error creating mount|directory name, or volume label syntax is incorrect|^stat \S+: no such file or directory|mount(?:ing)? ` + "`[^`]*` to `")

// startRuntimeCause names the runtime errors whose next step differs from
// a generic create or start failure: the entrypoint's permissions, a mount
// into the container, a cgroup. It is tried after the exec lookup errors.
func startRuntimeCause(message string) (chain.CauseID, bool) {
	lower := strings.ToLower(message)
	switch {
	case startMountRE.MatchString(message):
		return MountPathError, true
	case strings.Contains(lower, "cgroup"):
		return ContainerCgroupError, true
	case strings.Contains(lower, "hcs::system::createprocess") && strings.Contains(lower, "cannot find the file specified"):
		// Windows' hcsshim: the entrypoint does not exist in the image.
		return ExecutableNotFound, true
	case strings.Contains(lower, "permission denied") && (strings.Contains(lower, "exec") || strings.Contains(lower, "starting container process")):
		return ExecPermissionDenied, true
	}
	return "", false
}

// startExecError decodes runc's exec failures: Go's exec.LookPath error at
// create time (exec: "name": executable file not found in $PATH) and the
// execve error runc init prints once started (exec /path: exec format error).
func startExecError(message string) (Decoded, bool) {
	if strings.Contains(message, `\"`) {
		// Docker and older runc print the error %q-quoted inside another.
		message = strings.ReplaceAll(message, `\"`, `"`)
	}
	if m := execLogRE.FindStringSubmatch(message); m != nil {
		return startNotFound(m[1], m[2]), true
	}
	if m := execBacktickRE.FindStringSubmatch(message); m != nil {
		return startNotFound(m[1], "executable file not found in $PATH"), true
	}
	if strings.Contains(message, "exec format error") {
		d := Decoded{Cause: ExecFormatError}
		if m := execFormatRE.FindStringSubmatch(message); m != nil {
			d.Details = []chain.Detail{{Key: "path", Value: m[1]}}
			d.Summary = fmt.Sprintf("%q is not a binary for the node's architecture (exec format error)", m[1])
			d.NextStep = fmt.Sprintf("build the image for the node's architecture (docker buildx build --platform linux/amd64,linux/arm64 ...), or fix the #! line of %q", m[1])
		}
		return d, true
	}
	for i := strings.Index(message, `exec: "`); i >= 0; {
		name, rest, ok := rtQuoted(message[i+len("exec: "):])
		if why, found := strings.CutPrefix(rest, ": "); ok && found {
			return startNotFound(name, strings.TrimSuffix(rtOneLine(why), ": unknown")), true
		}
		next := strings.Index(message[i+1:], `exec: "`)
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return Decoded{}, false
}

func startNotFound(name, why string) Decoded {
	d := Decoded{Cause: ExecutableNotFound,
		Details:  []chain.Detail{{Key: "command", Value: name}, {Key: "error", Value: why}},
		NextStep: fmt.Sprintf("fix spec.template.spec.containers[].command/args or the image's ENTRYPOINT: %q must name an executable file in the image", name)}
	switch {
	case strings.Contains(why, "permission denied"):
		d.Cause = ExecPermissionDenied
		d.Summary = fmt.Sprintf("%q cannot be executed: permission denied", name)
		d.NextStep = fmt.Sprintf("make %q executable in the image (chmod +x, or COPY --chmod=755) and readable by the container's user, and keep it off noexec volumes", name)
	case strings.Contains(why, "executable file not found"):
		d.Summary = fmt.Sprintf("executable %q not found in the image's $PATH", name)
	case strings.Contains(why, "no such file or directory"):
		d.Summary = fmt.Sprintf("executable %q does not exist in the image", name)
	default:
		d.Summary = fmt.Sprintf("command %q cannot be executed: %s", name, why)
	}
	return d
}

// Helpers shared by the kubelet decoders (image, sandbox, start) for the
// runtime's errors as the kubelet passes them on.

// rtTail strips the gRPC status wrappers ("rpc error: code = Unknown desc = ")
// that the CRI adds, so the runtime's own words remain.
func rtTail(s string) string {
	s = strings.TrimSpace(s)
	for {
		rest, ok := strings.CutPrefix(s, "rpc error: code = ")
		if !ok {
			return s
		}
		i := strings.Index(rest, " desc =")
		if i < 0 {
			return s
		}
		s = strings.TrimSpace(rest[i+len(" desc ="):])
	}
}

// rtCode returns the gRPC code of an "rpc error: code = X desc = ..." message.
func rtCode(s string) string {
	rest, ok := strings.CutPrefix(strings.TrimSpace(s), "rpc error: code = ")
	if !ok {
		return ""
	}
	code, _, found := strings.Cut(rest, " desc = ")
	if !found {
		return ""
	}
	return code
}

// rtOneLine keeps a summary on one line: the runtime joins registry errors
// with newlines (errors.Join).
func rtOneLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	kept := lines[:0]
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "; ")
}

// rtQuoted reads the Go-quoted string (%q) at the start of s.
func rtQuoted(s string) (val, rest string, ok bool) {
	q, err := strconv.QuotedPrefix(s)
	if err != nil {
		return "", s, false
	}
	v, err := strconv.Unquote(q)
	if err != nil {
		return "", s, false
	}
	return v, s[len(q):], true
}

// rtQuotedAfter reads the Go-quoted string that follows prefix at the start of s.
func rtQuotedAfter(s, prefix string) (val, rest string, ok bool) {
	after, found := strings.CutPrefix(s, prefix)
	if !found {
		return "", s, false
	}
	return rtQuoted(after)
}
