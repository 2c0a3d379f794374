package decode

import (
	"fmt"
	"regexp"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// SidecarRestartPolicyDropped is a pod refused because an init container
// has probes or lifecycle hooks that only a native sidecar (restartPolicy:
// Always) may have: the field was set in the template but did not reach the
// API server's validation (pkg/apis/core/validation, "may not be set for
// init containers without restartPolicy=Always"). A mutating webhook or a
// tool built with client libraries older than 1.28 re-encodes the pod
// without it; without the probes the same pod is created and its sidecar,
// now an ordinary init container, never completes.
const SidecarRestartPolicyDropped chain.CauseID = "SidecarRestartPolicyDropped"

var sidecarCauses = []Cause{
	{ID: SidecarRestartPolicyDropped, Link: chain.LinkPods,
		Summary:  "the pods were refused: an init container meant as a native sidecar lost its restartPolicy: Always on the way (a mutating webhook or a tool built against an API older than 1.28), so its probes or lifecycle hooks are not allowed",
		NextStep: "find what rewrites the pod (kubectl get mutatingwebhookconfigurations; the tool that applied it) and upgrade it to client libraries of 1.28 or later (or make it patch instead of re-encoding the pod); until then move the sidecar to spec.containers",
		Terminal: TerminalRule{Mode: Immediate}},
}

// sidecarRefusedRE is a pod's validation error for an init container's
// probe or hook without restartPolicy=Always; it names the init container
// by its index.
var sidecarRefusedRE = regexp.MustCompile(`(?s)\b[Pp]ods? "([^"]+)" is invalid: .*?(spec\.initContainers\[\d+\])\.(\w+): Forbidden: may not be set for init containers without restartPolicy=Always`)

// sidecarForbiddenRE is the kubelet's admission of a pod with a native
// sidecar when SidecarContainers is off (lifecycle/predicate.go, reason
// InitContainerRestartPolicyForbidden, 1.28 to 1.32).
var sidecarForbiddenRE = regexp.MustCompile(`Init container "([^"]+)" may not have a non-default restartPolicy`)

// sidecarRefused decodes a pod refused for a sidecar whose restartPolicy
// was dropped. A Deployment or other template refused the same way is the
// manifest's own error, left to validation.
func sidecarRefused(message string) (Decoded, bool) {
	if m := sidecarForbiddenRE.FindStringSubmatch(message); m != nil {
		return Decoded{Cause: KubeletAdmissionRejected,
			Summary:  fmt.Sprintf("the kubelet refused the pod: init container %q is a native sidecar (restartPolicy: Always) and the node runs without SidecarContainers", m[1]),
			NextStep: "upgrade the node's kubelet to 1.29 or later (or turn the SidecarContainers feature gate on), or drop the sidecar's restartPolicy and run it as an ordinary container",
			Details:  []chain.Detail{{Key: "initContainer", Value: m[1]}}}, true
	}
	m := sidecarRefusedRE.FindStringSubmatch(message)
	if m == nil {
		return Decoded{}, false
	}
	return Decoded{Cause: SidecarRestartPolicyDropped,
		Summary: fmt.Sprintf("pod %s was refused: %s has a %s but no restartPolicy: Always, which something dropped on the way to the API server", m[1], m[2], m[3]),
		Details: []chain.Detail{{Key: "pod", Value: m[1]}, {Key: "initContainer", Value: m[2]}, {Key: "field", Value: m[3]}}}, true
}
