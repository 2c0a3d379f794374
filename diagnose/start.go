package diagnose

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
	{ID: CreateContainerError, Link: chain.LinkContainers,
		Summary:  "the container runtime could not create the container",
		NextStep: "read the runtime's error in kubectl describe pod POD and the container runtime's log on the node (journalctl -u containerd)",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 3}, Generic: true},
	{ID: ContainerStartFailed, Link: chain.LinkContainers,
		Summary:  "the container runtime could not start the container",
		NextStep: "read the runtime's error in kubectl describe pod POD and the container runtime's log on the node (journalctl -u containerd)",
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
	tail := rtOneLine(rtTail(message))
	if create {
		return Decoded{Cause: CreateContainerError, Summary: "the runtime could not create the container: " + tail}, true
	}
	return Decoded{Cause: ContainerStartFailed, Summary: "the runtime could not start the container: " + tail}, true
}

// Runtime words that tell a create error from a start error in a Failed
// event, whose reason is the same for both (events/event.go).
var (
	startWords = []string{"failed to create containerd task", "failed to start containerd task",
		"failed to create shim task", "OCI runtime"}
	createWords = []string{"failed to reserve container name", "failed to generate container",
		"failed to create containerd container", "failed to create container io",
		"failed to get sandbox runtime", "failed to resolve image", "failed to get image from containerd",
		"failed to mount image volume", "failed to find sandbox id", "sandbox container "}
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

// startExecError decodes runc's exec failures: Go's exec.LookPath error at
// create time (exec: "name": executable file not found in $PATH) and the
// execve error runc init prints once started (exec /path: exec format error).
func startExecError(message string) (Decoded, bool) {
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
		i := strings.Index(rest, " desc = ")
		if i < 0 {
			return s
		}
		s = rest[i+len(" desc = "):]
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
