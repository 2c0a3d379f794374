package decode

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Security causes: the pod asks for a seccomp or AppArmor profile, or for a
// user namespace, that the node (its kernel, kubelet or runtime) cannot
// give. The runtime refuses the same way on every retry, so they are not
// the generic create or start failures: the fix is on the node or in the
// pod's securityContext, not in the image.
const (
	// SeccompProfileNotFound is a Localhost seccomp profile whose file is
	// not under the kubelet's seccomp root on the node (or a node whose
	// kernel or runtime has seccomp off).
	SeccompProfileNotFound chain.CauseID = "SeccompProfileNotFound"
	// AppArmorProfileNotLoaded is an AppArmor profile that is not loaded in
	// the node's kernel, or AppArmor off on the host: the kubelet's
	// admission ("Cannot enforce AppArmor", the containers Blocked) before
	// 1.30, the runtime's "apparmor profile not found" since.
	AppArmorProfileNotLoaded chain.CauseID = "AppArmorProfileNotLoaded"
	// UserNamespaceUnsupported is a pod with hostUsers: false on a node
	// whose kubelet, runtime, OCI runtime or kernel cannot give it a user
	// namespace (idmapped mounts of its filesystems).
	UserNamespaceUnsupported chain.CauseID = "UserNamespaceUnsupported"
)

var securityCauses = []Cause{
	{ID: SeccompProfileNotFound, Link: chain.LinkContainers,
		Summary:  "the container's seccomp profile cannot be applied on its node: the Localhost profile's file is not there (or seccomp is off in the node's kernel or runtime)",
		NextStep: "put the profile's file on every node the pod may run on, under the kubelet's seccomp root (/var/lib/kubelet/seccomp/ + securityContext.seccompProfile.localhostProfile), e.g. with a DaemonSet or the Security Profiles Operator; or use type RuntimeDefault",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 2}},
	{ID: AppArmorProfileNotLoaded, Link: chain.LinkContainers,
		Summary:  "the container's AppArmor profile is not loaded on its node (or AppArmor is off on the host)",
		NextStep: "load the profile on every node the pod may run on (apparmor_parser -r /etc/apparmor.d/PROFILE, or a loader DaemonSet) and check it with aa-status; on hosts without AppArmor drop securityContext.appArmorProfile (and the container.apparmor.security.beta.kubernetes.io annotations) or keep the pod off them",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 2}},
	{ID: UserNamespaceUnsupported, Link: chain.LinkContainers,
		Summary:  "the pod asks for a user namespace (hostUsers: false) that its node cannot give: the kubelet's feature gate, the runtime or its handler, the OCI runtime or the kernel's idmapped mounts",
		NextStep: "run the pod on nodes that support user namespaces (Linux 6.3+ with idmapped mounts for the filesystems used, containerd 2.0+ or CRI-O 1.25+ with a runc or crun that supports idmap mounts, the UserNamespacesSupport gate on before 1.33), or remove spec.hostUsers: false",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 2}},
}

var (
	// seccompFileRE is the runtimes' "cannot load seccomp profile %q"
	// (containerd contrib/seccomp, dockershim helpers_linux.go) and CRI-O's
	// "unable to load local profile %q" (internal/config/seccomp).
	seccompFileRE = regexp.MustCompile(`(?:cannot load seccomp profile|unable to load local profile) \\?"([^"\\]+)\\?"`)
	// appArmorProfileRE names the profile in the kubelet's admission
	// ("profile %q is not loaded", pkg/security/apparmor/validate.go) and
	// containerd's ("apparmor profile not found %s", sputil/apparmor_linux.go).
	appArmorProfileRE = regexp.MustCompile(`profile "([^"]+)" is not loaded|apparmor profile not found (\S+)`)
	// blockedRowRE is a kubectl get pods row whose STATUS is Blocked: the
	// kubelet's waiting reason for containers of a pod it would not run.
	blockedRowRE = regexp.MustCompile(`\s\d+/\d+\s+Blocked(?:\s|$)`)
)

// SecurityWords decodes the kubelet's and the runtimes' words for a profile
// or user namespace the node cannot apply, wherever they appear: a waiting
// state, a Failed or FailedCreatePodSandBox event, a pod status, a log.
// Exported for the walk, which asks it about a pod's status message.
func SecurityWords(message string) (Decoded, bool) {
	lower := strings.ToLower(message)
	has := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(lower, w) {
				return true
			}
		}
		return false
	}
	switch {
	case has("cannot load seccomp profile", "seccomp is not enabled", "failed to generate seccomp", "seccomp is not supported",
		"setup seccomp: unable to load local profile"):
		d := Decoded{Cause: SeccompProfileNotFound, Summary: "the seccomp profile cannot be applied on the node: " + rtOneLine(rtTail(message))}
		if m := seccompFileRE.FindStringSubmatch(message); m != nil {
			d.Summary = fmt.Sprintf("seccomp profile %q is not on the node", m[1])
			d.Details = []chain.Detail{{Key: "profile", Value: m[1]}}
		} else if has("not enabled", "not supported") {
			d.Summary = "the node's kernel or runtime has seccomp off, so a pod with a seccomp profile cannot run there"
			d.NextStep = "run the pod on nodes with seccomp (a kernel built with CONFIG_SECCOMP and a runtime with seccomp support), or set securityContext.seccompProfile.type Unconfined for it"
		}
		return d, true
	case has("cannot enforce apparmor", "apparmor profile not found", "apparmor failed to apply profile", "apparmor is not enabled",
		"apparmor is not supported", "apparmor_parser", "apply apparmor profile"), blockedRowRE.MatchString(message):
		d := Decoded{Cause: AppArmorProfileNotLoaded, Summary: "the AppArmor profile is not loaded on the node: " + rtOneLine(rtTail(message))}
		switch m := appArmorProfileRE.FindStringSubmatch(message); {
		case m != nil:
			name := m[1] + m[2]
			d.Summary = fmt.Sprintf("AppArmor profile %q is not loaded on the node", name)
			d.Details = []chain.Detail{{Key: "profile", Value: name}}
		case has("not enabled on the host", "apparmor is not supported"):
			d.Summary = "AppArmor is not enabled on the node's host, so a pod with an AppArmor profile cannot run there"
			d.NextStep = "run the pod on nodes with AppArmor (Ubuntu, Debian, SUSE), or drop its securityContext.appArmorProfile and container.apparmor.security.beta.kubernetes.io annotations (set by a PodSecurityPolicy, a chart or an operator) on SELinux hosts"
		case has("apparmor_parser", "/proc/self/attr/apparmor/exec"):
			d.Summary = "the runtime's AppArmor profile is not loaded on the node (no apparmor_parser there to load it): " + rtOneLine(rtTail(message))
			d.NextStep = "install AppArmor's userspace tools on the node (the apparmor package, which brings apparmor_parser) and restart the runtime so it loads its default profile, or turn AppArmor off in the kernel"
		case blockedRowRE.MatchString(message):
			d.Summary = "the pod's containers are Blocked: the kubelet would not run it, most often for an AppArmor profile it cannot enforce"
			d.NextStep = "kubectl describe pod {POD} shows the reason (Cannot enforce AppArmor: ...): load the profile on the node, or drop it from the pod"
		}
		return d, true
	case has("does not support user namespaces", "can't set spec.hostusers", "create mapped mount", "idmapped mount",
		"idmap mounts not supported", "idmap mounts specified but oci runtime does not support", "cannot be mapped to a host id"):
		return Decoded{Cause: UserNamespaceUnsupported,
			Summary: "the node cannot give the pod a user namespace (hostUsers: false): " + rtOneLine(rtTail(message))}, true
	}
	return Decoded{}, false
}
