package decode

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
	// The CNI failures whose next step differs: an address pool that is
	// full, a network plugin that is not installed or not started on the
	// node, a plugin that cannot reach its own datastore or daemon.
	PodIPExhausted          chain.CauseID = "PodIPExhausted"
	CNINotReady             chain.CauseID = "CNINotReady"
	CNIDatastoreUnreachable chain.CauseID = "CNIDatastoreUnreachable"
	SandboxImagePullFailed  chain.CauseID = "SandboxImagePullFailed"
	// RuntimeHandlerMissing is a pod whose RuntimeClass does not exist, or
	// whose handler the node's container runtime has no configuration for
	// (gVisor, Kata, the NVIDIA runtime not installed on that node).
	RuntimeHandlerMissing chain.CauseID = "RuntimeHandlerMissing"
)

// sandboxCauses: a CNI plugin that is still starting on a new node fails a
// few sandboxes and then works, so these are judged after the grace window.
var sandboxCauses = []Cause{
	{ID: SandboxCreationFailed, Link: chain.LinkContainers,
		Summary:  "the container runtime could not create the pod sandbox (CNI network setup, sandbox image or runtime handler)",
		NextStep: "check the network plugin's pods on the pod's node (kubectl get pods -A -o wide --field-selector spec.nodeName={NODE}) and their logs",
		Terminal: TerminalRule{Mode: AfterGrace}, Generic: true},
	{ID: PodIPExhausted, Link: chain.LinkContainers,
		Summary:  "the network plugin has no free IP address for the pod (node CIDR, subnet or IP pool exhausted)",
		NextStep: "free or add addresses: on AWS VPC CNI raise WARM_IP_TARGET/prefix delegation or add subnets, on Azure CNI grow the subnet, on Calico add an IPPool; with host-local IPAM check /var/lib/cni/networks on the node for leaked addresses",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: CNINotReady, Link: chain.LinkContainers,
		Summary:  "the node's network plugin is not installed or not ready (no CNI config or plugin binary on the node)",
		NextStep: "install or repair the cluster's network plugin: its DaemonSet pod must run on the node and write its config to /etc/cni/net.d and its binaries to /opt/cni/bin (kubectl get pods -A -o wide --field-selector spec.nodeName={NODE})",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: CNIDatastoreUnreachable, Link: chain.LinkContainers,
		Summary:  "the network plugin cannot reach or authenticate to its datastore or daemon (the API server, etcd, its node agent)",
		NextStep: "check the network plugin's agent pod on the node (kubectl get pods -A -o wide --field-selector spec.nodeName={NODE}) and its logs; its credentials (ServiceAccount token, kubeconfig in /etc/cni/net.d) and its path to the API server",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: SandboxImagePullFailed, Link: chain.LinkContainers,
		Summary:  "the container runtime could not pull the pod sandbox (pause) image",
		NextStep: "check the runtime's sandbox image setting on the node (containerd: sandbox_image or pinned_images.sandbox; CRI-O: pause_image) and that the node can pull it, or pre-load it on air-gapped nodes",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: RuntimeHandlerMissing, Link: chain.LinkContainers,
		Summary:  "the pod's RuntimeClass does not exist, or the node's container runtime has no handler of that name",
		NextStep: runtimeHandlerStep,
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
		if d, ok := nodeSetupWords(message); ok {
			return d, true // a seccomp profile, a user namespace, a shim (runtime_setup.go)
		}
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

// pauseImageRE is a sandbox (pause) image reference in an error.
var pauseImageRE = regexp.MustCompile(`[/"]pause(?:-[a-z0-9]+)?:[0-9]`)

// apiDialRE is a network plugin dialing the API server (or its datastore)
// through the cluster's Service network and timing out or being refused.
// ipamWordRE is the IPAM daemon or plugin named as a word ("ipamd",
// "calico-ipam", "host-local ipam"), not a piece of another name: an image
// called ipamdev-ui is not the AWS VPC CNI's ipamd (Azure/ipam#345, an ACR
// "manifest tagged by" error for such an image).
var ipamWordRE = regexp.MustCompile(`(?i)\bipamd?\b`)

// ipamdRE is the AWS VPC CNI's IPAM daemon named as a word.
var ipamdRE = regexp.MustCompile(`(?i)\bipamd\b`)

var apiDialRE = regexp.MustCompile(`dial tcp \[?[0-9a-f.:]+\]?:(?:443|6443|2379|10090|50051)(?:\]|: )?.*(?:i/o timeout|connection refused|no route to host)`)

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
	d := se.decoded(sandboxCause(se, err))
	switch d.Cause {
	case PodIPExhausted:
		d.Summary = "no free IP address for the pod: " + se.tail
		if se.plugin != "" {
			d.Summary = fmt.Sprintf("CNI plugin %q has no free IP address for the pod: %s", se.plugin, se.tail)
		}
		return d
	case CNINotReady:
		d.Summary = "the node's network plugin is not ready: " + se.tail
		d.NextStep = sandboxNoCNIStep
		if se.plugin != "" {
			d.Summary = fmt.Sprintf("CNI plugin %q is not installed or not ready on the node: %s", se.plugin, se.tail)
			d.NextStep = sandboxCNIStep(se.plugin)
		}
		return d
	case CNIDatastoreUnreachable:
		d.Summary = "the network plugin cannot reach its datastore: " + se.tail
		if se.plugin != "" {
			d.Summary = fmt.Sprintf("CNI plugin %q cannot reach or authenticate to its datastore: %s", se.plugin, se.tail)
		}
		return d
	case SandboxImagePullFailed:
		d.Summary = "the runtime could not get the pod sandbox (pause) image: " + se.tail
		return d
	case RuntimeHandlerMissing:
		d.Summary = "the pod's runtime handler is not available on the node: " + se.tail
		d.NextStep = runtimeHandlerStep
		return d
	}
	switch se.kind {
	case "cni":
		d.Summary = fmt.Sprintf("CNI plugin %q failed to set up the pod network: %s", se.plugin, se.tail)
		d.NextStep = sandboxCNIStep(se.plugin)
	default:
		d.Summary = "the pod sandbox could not be created: " + se.tail
	}
	return d
}

// sandboxCause names what a sandbox error says about the network plugin, in
// the words of the plugins themselves: host-local IPAM ("no IP addresses
// available in range set"), the AWS VPC CNI and its ipamd, Azure CNI,
// Calico's IPAM and datastore client, Cilium's agent, libcni's plugin
// lookup, and the runtimes' "cni config uninitialized".
func sandboxCause(se sandboxError, raw string) chain.CauseID {
	lower := strings.ToLower(raw)
	has := func(subs ...string) bool {
		for _, s := range subs {
			if strings.Contains(lower, s) {
				return true
			}
		}
		return false
	}
	switch {
	case se.kind == "runtime-handler":
		return RuntimeHandlerMissing
	case se.kind == "sandbox-image", has("sandbox image", "pause image", "failed to pull sandbox"), pauseImageRE.MatchString(raw):
		return SandboxImagePullFailed
	case has("connection is unauthorized", "error getting clusterinformation", "unable to connect to cilium",
		"127.0.0.1:50051", "datastore", "the server has asked for the client to provide credentials",
		"etcdserver", "failed to connect to etcd", "resource does not exist: clusterinformation",
		"unable to return a response in the time allotted", "cilium-agent", "cilium.sock", "cni-server.sock"),
		apiDialRE.MatchString(raw), has("unauthorized") && !has("image"), ipamdRE.MatchString(raw):
		return CNIDatastoreUnreachable
	case has("no ip addresses available", "failed to assign an ip address", "failed to allocate address",
		"failed to allocate for range", "no more free affinity blocks", "failed to request ipv4 addresses",
		"failed to request ipv6 addresses", "ip pool exhausted", "no available ip", "no free ip", "range is full",
		"insufficientfreeaddressesinsubnet", "subnet is full", "ipam exhausted", "no addresses available",
		"cannot allocate ip", "out of ip addresses", "not enough ips available", "no available addresses",
		"ip address is not available", "no ips available", "all ips are assigned", "cannot allocate new block",
		"per host block limit", "to allocate more",
		// azure-vnet-ipam (aks-engine, Azure CNI): every address pool of
		// the node is handed out.
		"no available address pools"):
		return PodIPExhausted
	case se.kind == "cni-not-initialized", has("cni config uninitialized", "cni plugin not initialized",
		"network plugin is not ready", "networkpluginnotready", "no networks found in", "failed to find plugin",
		"no network config found", "no valid networks found", "calico/nodename: no such file",
		"is not running yet", "readinessindicatorfile", "cni config not initialized", "subnet.env",
		"cni config unintialized"):
		return CNINotReady
	}
	return SandboxCreationFailed
}

const runtimeHandlerStep = "check spec.template.spec.runtimeClassName against kubectl get runtimeclass (its HANDLER column): every node the pods may land on must configure that handler in its container runtime (containerd: a runtimes section of that name in its CRI config; CRI-O: crio.runtime.runtimes), or the RuntimeClass's scheduling.nodeSelector must keep the pods on nodes that do"

const sandboxNoCNIStep = "install or repair the cluster's network plugin: its DaemonSet must run on the node and write a config to /etc/cni/net.d"

func sandboxCNIStep(plugin string) string {
	return fmt.Sprintf("check the %q CNI plugin on the node: its DaemonSet pod there (kubectl get pods -A -o wide --field-selector spec.nodeName={NODE}), its logs, /etc/cni/net.d and /opt/cni/bin", plugin)
}

// sandboxNetworkNotReady decodes "network is not ready: container runtime
// network not ready: NetworkReady=false reason:R message:M" (kubelet.go,
// RuntimeCondition.String).
func sandboxNetworkNotReady(message string) Decoded {
	why := message
	if _, m, ok := strings.Cut(message, " message:"); ok && strings.TrimSpace(m) != "" {
		why = m
	}
	return Decoded{Cause: CNINotReady,
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
