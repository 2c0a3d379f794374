package decode

import (
	"regexp"
	"strings"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Runtime setup causes: the runtime fails before the container's process
// exists, for a reason of the node rather than of the image: the devices it
// was to inject (CDI specs, the NVIDIA hook), or its own shim. They wrap
// the same "failed to create containerd task: failed to create shim task:
// OCI runtime create failed" as every start error, and the words after that
// name them.
const (
	// DeviceInjectionFailed is a device (a GPU) the runtime could not add to
	// the container: a CDI device no CDI spec on the node resolves, or the
	// NVIDIA container runtime hook failing (no driver loaded).
	DeviceInjectionFailed chain.CauseID = "DeviceInjectionFailed"
	// RuntimeShimFailed is the runtime's shim that would not start: its
	// binary missing from the runtime's PATH, or a shim of another version
	// than the running daemon (containerd 2.x's shim API 3 under a 1.7
	// daemon not restarted after an upgrade).
	RuntimeShimFailed chain.CauseID = "RuntimeShimFailed"
)

var runtimeSetupCauses = []Cause{
	{ID: DeviceInjectionFailed, Link: chain.LinkContainers,
		Summary:  "the runtime could not give the container its device (GPU): no CDI spec on the node resolves it, or the NVIDIA runtime hook failed",
		NextStep: "on the node, check the device stack: the driver is loaded (nvidia-smi), the CDI specs under /etc/cdi and /var/run/cdi name the requested devices (nvidia-ctk cdi generate / nvidia-ctk cdi list), and the device plugin or GPU operator pods are healthy",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 2}},
	{ID: RuntimeShimFailed, Link: chain.LinkContainers,
		Summary:  "the container runtime could not start its shim (containerd-shim-*): the binary is missing from its PATH, or of another version than the running daemon",
		NextStep: "on the node, check the shim binaries next to containerd (which containerd-shim-runc-v2) and that the daemon runs the version installed with them: after upgrading containerd restart it (systemctl restart containerd); journalctl -u containerd tells which shim failed",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 2}},
}

// cdiDevicesRE names the devices of the CDI library's "unresolvable CDI
// devices %s".
var cdiDevicesRE = regexp.MustCompile(`unresolvable CDI devices ([^:"\\]+)`)

// runtimeSetupWords decodes the device and shim failures in a runtime's
// error, wherever the kubelet or a log shows it.
func runtimeSetupWords(message string) (Decoded, bool) {
	switch {
	case strings.Contains(message, "unresolvable CDI devices") || strings.Contains(message, "CDI device injection failed") ||
		strings.Contains(message, "failed to inject CDI devices"):
		d := Decoded{Cause: DeviceInjectionFailed, Summary: "no CDI spec on the node resolves the container's devices: " + rtOneLine(rtTail(message))}
		if m := cdiDevicesRE.FindStringSubmatch(message); m != nil {
			devices := strings.TrimSpace(m[1])
			d.Summary = "no CDI spec on the node resolves " + devices
			d.Details = []chain.Detail{{Key: "devices", Value: devices}}
		}
		return d, true
	case nvidiaHookRE.MatchString(message):
		return Decoded{Cause: DeviceInjectionFailed,
			Summary: "the NVIDIA runtime hook failed before the container started: " + nvidiaHookRE.FindString(message)}, true
	case strings.Contains(message, "unsupported shim version"):
		// containerd 2.x's shims speak API 3; a 1.7 daemon still running
		// after the upgrade (containerd/containerd#10984) knows up to 2.
		return Decoded{Cause: RuntimeShimFailed, Summary: "the runtime's shim is of a newer version than the running daemon: " + rtOneLine(rtTail(message)),
			NextStep: "restart containerd on the node so the upgraded daemon runs (systemctl restart containerd), or install the shim of the daemon's own version; containerd --version and containerd-shim-runc-v2 -v tell them"}, true
	case strings.Contains(message, "failed to start shim"):
		return Decoded{Cause: RuntimeShimFailed, Summary: "the runtime could not start its shim: " + rtOneLine(rtTail(message))}, true
	}
	return Decoded{}, false
}

// nvidiaHookRE is nvidia-container-cli's error as runc's prestart hook
// relays it ("nvidia-container-cli: initialization error: nvml error:
// driver not loaded").
var nvidiaHookRE = regexp.MustCompile(`nvidia-container-cli(?:\.real)?: initialization error: [^\n]*`)

// nodeSetupWords is what the runtime says about the node's setup rather
// than the container's: security profiles, user namespaces, devices, shims.
func nodeSetupWords(message string) (Decoded, bool) {
	if d, ok := SecurityWords(message); ok {
		return d, true
	}
	return runtimeSetupWords(message)
}

// nodeWords is what explain reads in a message alone before any other
// decoder: the node's setup, a resize it did not grant, a sidecar refused.
func nodeWords(message string) (Decoded, bool) {
	if d, ok := nodeSetupWords(message); ok {
		return d, true
	}
	if d, ok := resizeWords(message); ok {
		return d, true
	}
	return sidecarRefused(message)
}
