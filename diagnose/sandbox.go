package diagnose

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Sandbox causes: the runtime could not create (or stop) the pod's sandbox,
// the pause container and its network namespace that every container of the
// pod joins. Until it exists the containers stay ContainerCreating with no
// message, so only the kubelet's events say why.
const (
	SandboxCreationFailed chain.CauseID = "SandboxCreationFailed"
	// SandboxKillFailed is a sandbox that could not be stopped, mostly a CNI
	// DEL that fails; the pod stays Terminating meanwhile.
	SandboxKillFailed chain.CauseID = "SandboxKillFailed"
)

// sandboxCauses: a CNI plugin that is still starting on a new node fails a
// few sandboxes and then works, so these are judged after the grace window.
var sandboxCauses = []Cause{
	{ID: SandboxCreationFailed, Link: chain.LinkContainers,
		Summary:  "the container runtime could not create the pod sandbox (CNI network setup, sandbox image or runtime handler)",
		NextStep: "check the network plugin's pods on the pod's node (kubectl get pods -A -o wide --field-selector spec.nodeName=NODE) and their logs",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: SandboxKillFailed, Link: chain.LinkContainers,
		Summary:  "the container runtime could not stop the pod sandbox (mostly the CNI plugin failing to delete the pod network)",
		NextStep: "check the network plugin's pods on the pod's node and their logs; the pod stays Terminating until the sandbox stops",
		Terminal: TerminalRule{Mode: AfterGrace}},
}

// Sandbox decodes the kubelet's sandbox events: FailedCreatePodSandBox
// ("Failed to create pod sandbox: %v", kuberuntime_manager.go SyncPod),
// NetworkNotReady ("network is not ready: %v", kubelet.go SyncPod) and
// FailedKillPod when the KillPodSandbox step failed ("error killing pod: %v").
func Sandbox(reason, message string) (d Decoded, ok bool) {
	switch reason {
	case "FailedCreatePodSandBox":
		return sandboxCreate(strings.TrimPrefix(message, "Failed to create pod sandbox: ")), true
	case "NetworkNotReady":
		return sandboxNetworkNotReady(message), true
	case "FailedKillPod":
		if err, ok := sandboxKillError(message); ok {
			return sandboxKill(err), true
		}
	}
	return Decoded{}, false
}

// cniFailRE matches libcni's "plugin %s failed (add): %w" with
// pluginDescription's `type="T"` and optional ` name="N"`.
var cniFailRE = regexp.MustCompile(`(?s)plugin type="([^"]*)"(?: name="([^"]*)")? failed \((add|delete|check|status)\): (.*)$`)

// sandboxError is what a runtime error says about a sandbox.
type sandboxError struct {
	kind, tail string
	details    []chain.Detail
	plugin     string // CNI plugin type, when named
}

func sandboxParse(err string) sandboxError {
	tail := rtTail(err)
	for _, p := range []string{"failed to setup network for sandbox ", "failed to destroy network for sandbox ",
		"failed to start sandbox ", "failed to create sandbox "} {
		if _, rest, ok := rtQuotedAfter(tail, p); ok && strings.HasPrefix(rest, ": ") {
			tail = rest[2:]
		}
	}
	tail = rtOneLine(tail)
	se := sandboxError{kind: "other", tail: tail}
	if m := cniFailRE.FindStringSubmatch(tail); m != nil {
		se.kind, se.plugin, se.tail = "cni", m[1], m[4]
		se.details = []chain.Detail{{Key: "cni", Value: m[1]}}
		if m[2] != "" {
			se.details = append(se.details, chain.Detail{Key: "network", Value: m[2]})
		}
		return se
	}
	switch {
	case strings.Contains(tail, "cni plugin not initialized"), strings.Contains(tail, "cni config not initialized"),
		strings.HasPrefix(tail, "no network config found in "), strings.HasPrefix(tail, "no valid networks found in "):
		se.kind = "cni-not-initialized"
	case sandboxImage(tail) != "":
		se.kind = "sandbox-image"
		se.details = []chain.Detail{{Key: "image", Value: sandboxImage(tail)}}
	case strings.Contains(tail, "no runtime for "):
		// containerd config.go "no runtime for %q is configured"
		se.kind = "runtime-handler"
		_, after, _ := strings.Cut(tail, "no runtime for ")
		if h, _, ok := rtQuoted(after); ok {
			se.details = []chain.Detail{{Key: "handler", Value: h}}
		}
	case strings.HasPrefix(tail, "runtimeclass.node.k8s.io "), strings.HasPrefix(tail, "failed to lookup RuntimeClass "):
		// the kubelet's RuntimeClass lister: NotFound as is, else
		// runtimeclass_manager.go "failed to lookup RuntimeClass %s: %v"
		se.kind = "runtime-handler"
		if rc, _, ok := rtQuotedAfter(tail, "runtimeclass.node.k8s.io "); ok {
			se.details = []chain.Detail{{Key: "runtimeClass", Value: rc}}
		} else if f := strings.Fields(strings.TrimPrefix(tail, "failed to lookup RuntimeClass ")); len(f) > 0 {
			se.details = []chain.Detail{{Key: "runtimeClass", Value: strings.TrimSuffix(f[0], ":")}}
		}
	}
	return se
}

// sandboxImage names the pause image of containerd's sandbox_run.go
// ensurePauseImageExists ("failed to pull image %q: %w", "failed to get image
// %q: %w") or podsandbox "failed to get sandbox image %q: %w".
func sandboxImage(tail string) string {
	for _, p := range []string{"failed to pull image ", "failed to get image ", "failed to get sandbox image "} {
		if img, _, ok := rtQuotedAfter(tail, p); ok {
			return img
		}
	}
	return ""
}

func (se sandboxError) decoded(cause chain.CauseID) Decoded {
	return Decoded{Cause: cause, Details: append([]chain.Detail{{Key: "kind", Value: se.kind}}, se.details...)}
}

func sandboxCreate(err string) Decoded {
	se := sandboxParse(err)
	d := se.decoded(SandboxCreationFailed)
	switch se.kind {
	case "cni":
		d.Summary = fmt.Sprintf("CNI plugin %q failed to set up the pod network: %s", se.plugin, se.tail)
		d.NextStep = sandboxCNIStep(se.plugin)
	case "cni-not-initialized":
		d.Summary = "the node's CNI network is not initialized: " + se.tail
		d.NextStep = sandboxNoCNIStep
	case "sandbox-image":
		d.Summary = "the runtime could not get the pod sandbox (pause) image: " + se.tail
		d.NextStep = "check the container runtime's sandbox image setting on the node (containerd: pinned_images.sandbox) and that the node can pull that image"
	case "runtime-handler":
		d.Summary = "the pod's runtime handler is not available on the node: " + se.tail
		d.NextStep = "fix spec.template.spec.runtimeClassName, or configure that handler in the nodes' container runtime"
	default:
		d.Summary = "the pod sandbox could not be created: " + se.tail
	}
	return d
}

const sandboxNoCNIStep = "install or repair the cluster's network plugin: its DaemonSet must run on the node and write a config to /etc/cni/net.d"

func sandboxCNIStep(plugin string) string {
	return fmt.Sprintf("check the %q CNI plugin on the node: its DaemonSet pod there (kubectl get pods -A -o wide --field-selector spec.nodeName=NODE), its logs, /etc/cni/net.d and /opt/cni/bin", plugin)
}

// sandboxNetworkNotReady decodes "network is not ready: container runtime
// network not ready: NetworkReady=false reason:R message:M" (kubelet.go,
// RuntimeCondition.String).
func sandboxNetworkNotReady(message string) Decoded {
	why := message
	if _, m, ok := strings.Cut(message, " message:"); ok && strings.TrimSpace(m) != "" {
		why = m
	}
	return Decoded{Cause: SandboxCreationFailed,
		Summary:  "the node's container network is not ready: " + rtOneLine(why),
		NextStep: sandboxNoCNIStep,
		Details:  []chain.Detail{{Key: "kind", Value: "network-not-ready"}}}
}

// sandboxKillError finds the runtime's error in PodSyncResult.Error's
// `failed to "KillPodSandbox" for "UID" with KillPodSandboxError: "%q"`.
func sandboxKillError(message string) (string, bool) {
	_, after, ok := strings.Cut(message, "with KillPodSandboxError: ")
	if !ok {
		return "", false
	}
	err, _, ok := rtQuoted(after)
	return err, ok
}

func sandboxKill(err string) Decoded {
	se := sandboxParse(err)
	d := se.decoded(SandboxKillFailed)
	if se.kind == "cni" {
		d.Summary = fmt.Sprintf("CNI plugin %q failed to delete the pod network, so the sandbox cannot stop: %s", se.plugin, se.tail)
		d.NextStep = sandboxCNIStep(se.plugin) + "; the pod stays Terminating until it succeeds"
		return d
	}
	d.Summary = "the runtime could not stop the pod sandbox: " + se.tail
	return d
}
