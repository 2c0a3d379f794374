package decode

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// syncErrorRE matches the kubelet's FailedSync of releases before 1.10
// ("Error syncing pod, skipping: " around PodSyncResult.Error's `failed to
// %q for %q with %v: %q`, pkg/kubelet/container/sync_result.go): the
// action, its target (a container, "POD" for the sandbox), the error
// reason and its message.
var syncErrorRE = regexp.MustCompile(`(?s)^(?:Error syncing pod(?:, skipping)?: )?failed to "(\w+)" for "([^"]*)" with (\w+): (.*)$`)

// syncError unwraps a FailedSync into the reason and message a current
// kubelet reports for the same failure.
func syncError(message string) (reason, msg string, ok bool) {
	rest, found := strings.CutPrefix(message, "Error syncing pod, skipping: ")
	if !found {
		rest, _ = strings.CutPrefix(message, "Error syncing pod: ")
	}
	if inner, found := strings.CutPrefix(rest, "failed to instantiate volume plugin"); found {
		return "FailedMount", strings.TrimSpace(inner), true
	}
	m := syncErrorRE.FindStringSubmatch(rest)
	if m == nil {
		if i := strings.Index(rest, " with PostStart handler: "); i >= 0 && strings.HasPrefix(rest, `failed to "StartContainer"`) {
			return reasonFailedPostStartHook, rest[i+len(" with "):], true
		}
		return "", "", false
	}
	action, target, reason, msg := m[1], m[2], m[3], unquoteLoose(strings.TrimSpace(m[4]))
	switch {
	case action == "SetupNetwork":
		return "FailedCreatePodSandBox", msg, true
	case action == "KillPodSandbox":
		return "", "", false // FailedKillPod's own decoder reads the wrapper
	case target == "POD" && (reason == "ErrImagePull" || reason == "ImagePullBackOff"):
		// The infra (pause) container of dockershim is the sandbox.
		return "FailedCreatePodSandBox", "failed to pull sandbox image: " + msg, true
	case strings.HasPrefix(msg, "PostStart handler: "):
		return reasonFailedPostStartHook, msg, true
	}
	return reason, msg, true
}

// unquoteLoose reads a %q-quoted message, or strips its quotes when the
// paste lost the escaping.
func unquoteLoose(s string) string {
	if v, err := strconv.Unquote(s); err == nil {
		return v
	}
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	return strings.ReplaceAll(s, `\"`, `"`)
}

// fixedMessages are kubelet and autoscaler messages that are the same
// every time, so their words alone name the cause.
var fixedMessages = []struct {
	words   string
	cause   chain.CauseID
	summary string
}{
	// kuberuntime_container.go: a container whose status was lost when its
	// pod was evicted or deleted.
	{"The container could not be located when the pod was", PodEvicted, "the container's fate is unknown: its pod was evicted or deleted while it ran"},
	// status/generate.go: the Initialized condition's message.
	{"containers with incomplete status: [", InitContainerFailed, "init containers have not completed"},
	{"Pod sandbox changed, it will be killed and re-created", SandboxCreationFailed, "the pod's sandbox changed (a node or runtime restart, or a sandbox that died): the kubelet recreates it"},
	{"Failed create pod sandbox.", SandboxCreationFailed, "the runtime could not create the pod sandbox"},
	// events.go since 1.31: the hook's output moved to the kubelet's log.
	{"PostStartHook failed", PostStartHookFailed, "the postStart hook failed"},
	{"PreStopHook failed", PreStopHookFailed, "the preStop hook failed"},
	{"PostStart handler: ", PostStartHookFailed, "the postStart hook failed"},
	// 1.4-1.9: the kill of a container whose liveness probe failed.
	{"is unhealthy, it will be killed and re-created", LivenessProbeFailed, "the liveness probe fails, so the kubelet restarts the container"},
	// nodestatus/setters.go: the kubelet's pressure conditions on its node
	// (reasons KubeletHasInsufficientMemory, KubeletHasDiskPressure,
	// KubeletHasInsufficientPID), pasted from kubectl describe node.
	{"kubelet has insufficient memory available", NodeMemoryPressure, "the node is under memory pressure"},
	{"kubelet has disk pressure", NodeDiskPressure, "the node is under disk pressure"},
	{"kubelet has insufficient PID available", NodePIDPressure, "the node is under PID pressure"},
	// The events the kubelet records on its node for the same conditions.
	{"NodeHasInsufficientMemory", NodeMemoryPressure, "the node is under memory pressure"},
	{"NodeHasDiskPressure", NodeDiskPressure, "the node is under disk pressure"},
	{"NodeHasInsufficientPID", NodePIDPressure, "the node is under PID pressure"},
	// deployment/sync.go checkPausedConditions: the Progressing condition
	// (Unknown, DeploymentPaused) of a paused Deployment.
	{"Deployment is paused", DeploymentPaused, "the Deployment is paused: the controller rolls out no template change"},
	{"pod triggered scale-up", ScaleUpTriggered, "the cluster autoscaler is adding a node for the pod"},
	{karpenterNominatePrefix, ScaleUpTriggered, "Karpenter is providing a node for the pod"},
}

// karpenterNominatePrefix begins Karpenter's nomination event's message
// (kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/events.go
// NominatePodEvent: "Pod should schedule on: %s"); the walk, which weighs
// the event as a scale-up, keeps its own.
const karpenterNominatePrefix = "Pod should schedule on: "

// nodeTaintRE is a node's taint as kubectl describe node and kubectl get
// nodes print it (KEY[=VALUE]:EFFECT), for the taints Kubernetes itself
// sets on a node (k8s.io/api core/v1 well_known_taints.go).
var nodeTaintRE = regexp.MustCompile(`\b(node(?:\.cloudprovider)?\.kubernetes\.io/[a-z-]+)(?:=(\S*?))?:(?:NoSchedule|PreferNoSchedule|NoExecute)\b`)

// nodeTaintWords decodes a node's taint pasted from kubectl describe node
// ("Taints: node.kubernetes.io/disk-pressure:NoSchedule") as the reason
// the scheduler keeps pods off that node: the pressure by its resource,
// the cloud controller manager that has not initialized the node.
func nodeTaintWords(m string) (Decoded, bool) {
	for _, t := range nodeTaintRE.FindAllStringSubmatch(m, -1) {
		f, ok := schedTaint("node(s) had untolerated taint {" + t[1] + ": " + t[2] + "}")
		if ok && f.cause != UntoleratedTaint {
			return Decoded{Cause: f.cause, Summary: "the node carries " + t[0] + ": " + f.what, NextStep: f.next, Details: f.details}, true
		}
	}
	return Decoded{}, false
}

func fixedMessage(m string) (Decoded, bool) {
	for _, f := range fixedMessages {
		if strings.HasSuffix(f.words, ".") && m != f.words {
			continue // a sentence of its own, not the start of a longer error
		}
		if strings.Contains(m, f.words) {
			return Decoded{Cause: f.cause, Summary: f.summary + ": " + rtOneLine(m), Progressing: f.cause == ScaleUpTriggered}, true
		}
	}
	return Decoded{}, false
}

// pasteLeadRE is what tools print before an event's message: a timestamp
// and the reason, or the reason and the object (kind/name), or the reason
// and a column gap. A reason followed by one space is a sentence ("Failed
// to pull image ...").
var pasteLeadRE = regexp.MustCompile(`(?s)^(?:\d{4}-\d\d-\d\dT[\d:.]+Z\s+([A-Z][A-Za-z]+)\s+|([A-Z][A-Za-z]+)\s+[a-z]+(?:\.[a-z0-9.]+)?/\S+\s+|([A-Z][A-Za-z]+)\s{2,})(.+)$`)

// eventReasons are the reasons a pasted line may start with.
var eventReasons = map[string]bool{
	"Failed": true, "FailedMount": true, "FailedAttachVolume": true, "FailedScheduling": true, "BackOff": true,
	"Unhealthy": true, "FailedCreate": true, "FailedCreatePodSandBox": true, "FailedKillPod": true, "Killing": true,
	"Evicted": true, "NotTriggerScaleUp": true, "FailedPostStartHook": true, "FailedPreStopHook": true,
	"NetworkNotReady": true, "FailedMapVolume": true, "ProgressDeadlineExceeded": true, "ReplicaSetCreateError": true,
	"FailedSync": true, "InspectFailed": true, "ErrImageNeverPull": true,
}

// leadingReason splits "REASON message" (with a timestamp or an object
// before or after the reason) when the first word is an event reason.
func leadingReason(m string) (reason, rest string, ok bool) {
	sm := pasteLeadRE.FindStringSubmatch(m)
	if sm == nil {
		return "", "", false
	}
	r := sm[1] + sm[2] + sm[3]
	if !eventReasons[r] {
		return "", "", false
	}
	return r, sm[4], true
}
