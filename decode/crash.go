package decode

import (
	"fmt"
	"regexp"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Crash causes: the container started (or tried to) and then exited. The
// kubelet restarts it with a growing back-off, which is what users see as
// CrashLoopBackOff.
const (
	CrashLoopBackOff    chain.CauseID = "CrashLoopBackOff"
	OOMKilled           chain.CauseID = "OOMKilled"
	ContainerCompleted  chain.CauseID = "ContainerCompleted"
	InitContainerFailed chain.CauseID = "InitContainerFailed"
)

// crashCauses are the catalogue entries for containers that exit. They are
// judged by repeats: one exit can be a deploy-time race, three in a row is
// the program itself.
var crashCauses = []Cause{
	{
		ID:       CrashLoopBackOff,
		Link:     chain.LinkContainers,
		Summary:  "the container keeps exiting with an error and the kubelet backs off restarting it",
		NextStep: "read why it exits: kubectl logs {POD} -c CONTAINER --previous",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 3},
	},
	{
		ID:       OOMKilled,
		Link:     chain.LinkContainers,
		Summary:  "the container was killed for exceeding its memory limit",
		NextStep: "raise spec.template.spec.containers[].resources.limits.memory, or reduce the program's memory use",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 2},
	},
	{
		ID:       ContainerCompleted,
		Link:     chain.LinkContainers,
		Summary:  "the container exits 0 instead of serving, and restartPolicy Always restarts it",
		NextStep: "make the command in spec.template.spec.containers[].command/args run in the foreground, or run one-off work as a Job",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 3},
	},
	{
		ID:       InitContainerFailed,
		Link:     chain.LinkContainers,
		Summary:  "an init container exits with an error, so the app containers never start",
		NextStep: "read why it exits: kubectl logs {POD} -c INIT-CONTAINER --previous, then fix spec.template.spec.initContainers[]",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 3},
	},
}

// Terminated reasons written by the runtime (containerd
// internal/cri/server/helpers.go: Completed, Error, OOMKilled, StartError;
// dockershim: ContainerCannotRun) and the back-off reasons of the kubelet.
const (
	terminatedOOMKilled          = "OOMKilled"
	terminatedStartError         = "StartError"
	terminatedContainerCannotRun = "ContainerCannotRun"
	reasonCrashLoopBackOff       = "CrashLoopBackOff"
	reasonBackOff                = "BackOff"
)

var (
	// crashWaitingRe matches doBackOff's waiting message
	// "back-off %s restarting failed container=%s pod=%s"
	// (pkg/kubelet/kuberuntime/kuberuntime_manager.go).
	crashWaitingRe = regexp.MustCompile(`back-off (\S+) restarting failed container=(\S+) pod=`)
	// crashEventRe matches its event "Back-off restarting failed container
	// %s in pod %s"; older kubelets wrote it without the names.
	crashEventRe = regexp.MustCompile(`^Back-off restarting failed container(?: (\S+) in pod \S+)?`)
)

// Termination decodes a container's terminated state (current or lastState):
// OOMKilled, Completed (exits instead of serving), StartError and
// ContainerCannotRun (handed to ContainerStart), and any other exit as a
// crash, with its exit code and message.
func Termination(container string, t corev1.ContainerStateTerminated) Decoded {
	return termination(container, "containers", t)
}

// InitTermination decodes an init container's terminated state. ok is false
// when it completed with exit code 0: that is the init container's job, not a
// failure.
func InitTermination(container string, t corev1.ContainerStateTerminated) (d Decoded, ok bool) {
	if t.ExitCode == 0 && t.Reason != terminatedOOMKilled && t.Reason != terminatedStartError && t.Reason != terminatedContainerCannotRun {
		return Decoded{}, false
	}
	return termination(container, "initContainers", t), true
}

// termination does the work of Termination; field is "containers" or
// "initContainers", the pod template list the container is in.
func termination(container, field string, t corev1.ContainerStateTerminated) Decoded {
	// Names and reasons are single words in real states; keep output one line
	// whatever a capture holds.
	container, t.Reason = kubeletHead(container), kubeletHead(t.Reason)
	ref := fmt.Sprintf("spec.template.spec.%s[%s]", field, container)
	who := "container"
	if field == "initContainers" {
		who = "init container"
	}
	if t.Reason == terminatedStartError || t.Reason == terminatedContainerCannotRun {
		// The process never ran: the runtime decoder (start.go) names why.
		if d, ok := ContainerStart(t.Reason, t.Message); ok {
			return d
		}
	}
	details := crashDetails(container, t)
	switch {
	case t.Reason == "ContainerStatusUnknown":
		// kuberuntime: the container was gone when the kubelet looked,
		// its pod evicted or deleted while it ran.
		return Decoded{Cause: PodEvicted, Details: details,
			Summary:  fmt.Sprintf("%s %q was lost: its pod was evicted or deleted while it ran (%s)", who, container, kubeletHead(t.Message)),
			NextStep: "read why the pod was stopped: its status.reason and message (kubectl get pod {POD} -o jsonpath='{.status.reason}: {.status.message}') and the node's events; the ReplicaSet replaces it"}
	case t.Reason == terminatedOOMKilled, t.Reason == "OOM Killed":
		return Decoded{
			Cause:    OOMKilled,
			Summary:  fmt.Sprintf("%s %q was OOM-killed (exit code %d)", who, container, t.ExitCode),
			NextStep: fmt.Sprintf("raise %s.resources.limits.memory, or reduce the program's memory use", ref),
			Details:  details,
		}
	case field == "initContainers":
		return Decoded{
			Cause:    InitContainerFailed,
			Summary:  fmt.Sprintf("%s %q exited with code %d%s", who, container, t.ExitCode, exitMeaning(t)),
			NextStep: fmt.Sprintf("read why it exits: kubectl logs {POD} -c %s --previous, then fix %s", container, ref),
			Details:  details,
		}
	case t.ExitCode == 0:
		return Decoded{
			Cause:    ContainerCompleted,
			Summary:  fmt.Sprintf("container %q exited 0 (it finished instead of serving)", container),
			NextStep: fmt.Sprintf("make %s.command/args run in the foreground (a server, not a script that returns), or run one-off work as a Job", ref),
			Details:  details,
		}
	}
	return Decoded{
		Cause:    CrashLoopBackOff,
		Summary:  fmt.Sprintf("container %q exited with code %d%s", container, t.ExitCode, exitMeaning(t)),
		NextStep: fmt.Sprintf("read why it exits: kubectl logs {POD} -c %s --previous", container),
		Details:  details,
	}
}

// crashDetails are the facts of a terminated state, in a fixed order.
func crashDetails(container string, t corev1.ContainerStateTerminated) []chain.Detail {
	details := []chain.Detail{
		{Key: "container", Value: container},
		{Key: "exitCode", Value: strconv.Itoa(int(t.ExitCode))},
	}
	if t.Reason != "" {
		details = append(details, chain.Detail{Key: "reason", Value: t.Reason})
	}
	if t.Signal != 0 {
		details = append(details, chain.Detail{Key: "signal", Value: strconv.Itoa(int(t.Signal))})
	}
	if msg := kubeletHead(t.Message); msg != "" {
		details = append(details, chain.Detail{Key: "message", Value: msg})
	}
	return details
}

// exitMeaning names the usual meaning of an exit code (shell and signal
// conventions: 128+N is signal N), so "137" reads as a kill.
func exitMeaning(t corev1.ContainerStateTerminated) string {
	if t.Reason == "ContainerStatusUnknown" {
		// The kubelet lost the container and wrote 137 itself
		// (pkg/kubelet/kubelet_pods.go): no signal was seen.
		return " (" + t.Reason + ")"
	}
	var m string
	switch t.ExitCode {
	case 126:
		m = "command not executable"
	case 127:
		m = "command not found"
	case 134:
		m = "aborted, SIGABRT"
	case 137:
		m = "killed, SIGKILL"
	case 139:
		m = "segmentation fault, SIGSEGV"
	case 143:
		m = "terminated, SIGTERM"
	}
	switch {
	case m != "":
		return " (" + m + ")"
	case t.Reason != "":
		return " (" + t.Reason + ")"
	}
	return ""
}

// BackOff decodes the CrashLoopBackOff waiting message and the kubelet's
// "Back-off restarting failed container" BackOff event. BackOff events about
// image pulls share the reason and are left to the image decoder.
func BackOff(reason, message string) (d Decoded, ok bool) {
	var container, backOff string
	switch reason {
	case reasonCrashLoopBackOff:
		if m := crashWaitingRe.FindStringSubmatch(message); m != nil {
			backOff, container = m[1], m[2]
		}
	case reasonBackOff:
		m := crashEventRe.FindStringSubmatch(message)
		if m == nil {
			return Decoded{}, false
		}
		container = m[1]
	default:
		return Decoded{}, false
	}
	d = Decoded{Cause: CrashLoopBackOff, Summary: "a container keeps crashing and the kubelet backs off restarting it"}
	if container != "" {
		d.Summary = fmt.Sprintf("container %q keeps crashing", container)
		d.NextStep = fmt.Sprintf("read why it exits: kubectl logs {POD} -c %s --previous", container)
		d.Details = append(d.Details, chain.Detail{Key: "container", Value: container})
	}
	if backOff != "" {
		d.Summary += fmt.Sprintf("; restart back-off %s", backOff)
		d.Details = append(d.Details, chain.Detail{Key: "backOff", Value: backOff})
	}
	return d, true
}
