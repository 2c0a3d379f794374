package decode

import (
	"strings"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// What explain makes of a message alone: which component's wording it
// is, the reasons it could have come with, and the words that stand for a
// reason.

// explainMessage decodes a message pasted without its reason: the wording
// says which component wrote it, and so which decoders to ask.
func explainMessage(message string) []Decoded {
	if message == "" {
		return nil
	}
	if d, ok := ReasonWord(message); ok {
		return []Decoded{d}
	}
	// Before validation's: Contour's route status wraps its cache's
	// errors in `service "web" is invalid: ...`, as the API server words
	// a refused manifest.
	if d, ok := gatewayWords(message); ok {
		return []Decoded{d}
	}
	if d, ok := ProducerWords(message); ok {
		return []Decoded{d}
	}
	if d, ok := PullSecretWords(message); ok {
		return []Decoded{d}
	}
	// Before validation's and the scheduler's: the StatefulSet controller
	// wraps a refused claim's "is invalid", the scheduler names a claim
	// being deleted.
	if d, ok := WorkloadWords(message); ok {
		return []Decoded{d}
	}
	// Before validation's and the controllers': what the node cannot give
	// (a security profile, a user namespace, a device, a shim, a resize)
	// and a sidecar refused for a dropped restartPolicy, whatever wraps it.
	if d, ok := nodeWords(message); ok {
		return []Decoded{d}
	}
	// Before validation's too: the Rollouts controller words an invalid
	// spec as the API server words a refused manifest.
	if d, ok := RolloutWords("", message); ok {
		return []Decoded{d}
	}
	if d, ok := HPAWords("", message); ok {
		return []Decoded{d}
	}
	if d, ok := SnapshotSource(message); ok {
		return []Decoded{d}
	}
	if d, ok := JobWords(message); ok {
		return []Decoded{d}
	}
	if d, ok := CronJobWords("", message); ok {
		return []Decoded{d}
	}
	if d, ok := Validation(message); ok {
		return []Decoded{d}
	}
	if d, ok := Autoscaler("", message); ok {
		return []Decoded{d}
	}
	if schedulerWords(message) {
		if rs := Scheduling("FailedScheduling", message).Reasons; len(rs) > 0 && rs[0].Cause != UnschedulableOther {
			return rs
		}
	}
	if d, ok := controllerMessage(message); ok {
		return []Decoded{d}
	}
	if d, ok := Serving("", message); ok {
		return []Decoded{d}
	}
	if d, ok := fixedMessage(message); ok {
		return []Decoded{d}
	}
	if d, ok := nodeTaintWords(message); ok {
		return []Decoded{d}
	}
	if d, ok := ImagePull("Pulling", message); ok && strings.HasSuffix(message, `"`) {
		// the whole message is the kubelet's Pulling line, nothing after it
		return []Decoded{d}
	}
	var found []Decoded
	for _, m := range []string{message, "Error: " + message} {
		for _, g := range guessReasons(message) {
			if m != message && g.reason != "Failed" {
				continue // only the kubelet's Failed event prefixes "Error: "
			}
			d, ok := explainKubelet(g.reason, m)
			// A guessed reason proves nothing when its decoder gives the
			// same cause for any text at all (its catch-all), unless the
			// message has that family's words.
			if ok && (g.family || d.Cause != catchAll(g.reason)) {
				found = append(found, d)
			}
		}
	}
	if len(found) == 0 {
		if rs := Scheduling("FailedScheduling", message).Reasons; schedulerWords(message) && len(rs) > 0 {
			return rs
		}
		return nil
	}
	return rank(found)[:1]
}

// schedulerWords says a message is the scheduler's (any release).
func schedulerWords(m string) bool {
	for _, w := range []string{"nodes are available", "no nodes available to schedule pods", "failed to fit in any node",
		"No nodes are available that match", "fit failure", "node(s) ", "Insufficient ", "Too many pods",
		"pod has unbound", "waiting for scheduling gates", "persistentvolumeclaim \"", "didn't match",
		"PersistentVolumeClaim is not bound", "SchedulerPredicates failed"} {
		if strings.Contains(m, w) {
			return true
		}
	}
	return false
}

// controllerMessage decodes the controllers' and admission's messages: a
// refused create, a progress deadline, a ReplicaSet that could not be made.
func controllerMessage(m string) (Decoded, bool) {
	switch {
	case strings.Contains(m, "has timed out progressing") || strings.Contains(m, "exceeded its progress deadline"):
		return ProgressDeadline(progressDeadlineText(m)), true
	case strings.Contains(m, "Failed to create new replica set"):
		return ReplicaSetCreateError(m[strings.Index(m, "Failed to create new replica set"):]), true
	}
	if d, ok := decodeAdmission(m); ok {
		return d, true
	}
	if _, rest, ok := strings.Cut(m, " is forbidden: "); ok && !strings.Contains(rest, "\n") {
		// The API server refused the pod for a reason no decoder knows
		// (a namespace being deleted, quota that could not be checked).
		return podCreateFailed(strings.TrimSpace(rest)), true
	}
	if strings.HasPrefix(m, failedCreatePrefix) {
		rest := strings.TrimSpace(strings.TrimPrefix(m, failedCreatePrefix))
		if rest == "" {
			return emptyDenial(), true
		}
		return FailedCreate(m), true
	}
	return Decoded{}, false
}

// progressDeadlineText finds the condition's own message in a wrapper such
// as `kubectl rollout status`'s or a CI tool's.
func progressDeadlineText(m string) string {
	for _, prefix := range []string{`ReplicaSet "`, `Deployment "`} {
		if i := strings.Index(m, prefix); i >= 0 {
			if j := strings.Index(m[i:], "has timed out progressing."); j >= 0 {
				return m[i : i+j+len("has timed out progressing.")]
			}
		}
	}
	return m
}

// emptyDenial is a create refused with no words at all: only an admission
// webhook answers that way (a denial whose status message is empty, before
// 1.9 printed as a bare "Error creating: ").
func emptyDenial() Decoded {
	return Decoded{Cause: WebhookDenied,
		Summary:  "the API server refused the pods with an empty error: an admission webhook denied them without a message",
		NextStep: "list the webhooks that intercept pod creation (kubectl get validatingwebhookconfigurations,mutatingwebhookconfigurations) and read their backends' logs"}
}

// guess is a reason to try a message with; family says the message has
// the words of that reason's family, so even its catch-all is an answer.
type guess struct {
	reason string
	family bool
}

// guessReasons are the reasons a kubelet message may have come with, tried
// when the user gave none. Event reasons whose decoders check the wording
// come first; reasons whose decoders would claim any text are tried only
// when the message has their family's words.
func guessReasons(m string) []guess {
	lower := strings.ToLower(m)
	has := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(lower, w) {
				return true
			}
		}
		return false
	}
	var gs []guess
	add := func(family bool, reasons ...string) {
		for _, r := range reasons {
			gs = append(gs, guess{r, family})
		}
	}
	if has("lifecycle hook", "poststart", "prestop") {
		if has("prestop", "quit", "shutdown", "terminat", "drain", " stop") || strings.Contains(m, "([sleep ") || strings.HasPrefix(m, "Sleep lifecycle hook") {
			add(true, "FailedPreStopHook")
		} else {
			add(true, "FailedPostStartHook")
		}
	}
	add(false, "Failed", "BackOff", "Unhealthy", "Killing", "FailedKillPod", "Pulling")
	if has("restarting failed container") {
		add(true, "CrashLoopBackOff")
	}
	if (has("cni", "network plugin", "networkplugin", "sandbox", "network for pod") || ipamWordRE.MatchString(m)) && !has("killpodsandbox") {
		add(true, "FailedCreatePodSandBox")
	}
	if has("pull", "manifest", "registry", "image", "docker login", "repository", "toomanyrequests") {
		add(true, "ErrImagePull")
	}
	if has("apply default image tag", "invalid reference format", "couldn't parse image", "did not resolve to an alias") {
		add(true, "InvalidImageName")
	}
	if has("pull policy of never") {
		add(true, "ErrImageNeverPull")
	}
	if has("volume", "mount", "attach") {
		add(true, "FailedMount")
	}
	if has("configmap", "secret", "runasnonroot", "couldn't find key", "non-numeric user", "non-root") {
		add(true, "CreateContainerConfigError")
	}
	if has("network is not ready", "networkready=false", "networkpluginnotready", "cni config uninitialized") {
		add(true, "NetworkNotReady")
	}
	if has("oci runtime", "runc", "crun", "starting container process", "executable file", "exec format", "cgroup",
		"container init", "failed to create containerd", "failed to start", "failed to create shim", "rootfs", "permission denied",
		"no such file or directory", "cannot start container", "container create failed", "exec:", "exec ", "error response from daemon",
		"container name", "reserving", "task") {
		add(true, "RunContainerError", "CreateContainerError")
	}
	if has("low on resource", "exceeds the total limit", "ephemeral storage limit", "exceeds the limit", "had condition", "evict", "shutting") {
		add(true, "Evicted")
	}
	if has("didn't have enough resource", "did not have enough resource", "pod was rejected", "predicate nodeaffinity failed", "allocate failed") {
		add(true, "OutOfcpu")
	}
	return gs
}

// catchAll is the cause a reason's decoder gives a message it cannot read.
func catchAll(reason string) chain.CauseID {
	d, _ := explainKubelet(reason, "\x00")
	return d.Cause
}

// reasonWords are the reasons users paste alone: waiting and terminated
// reasons, pod status reasons and `kubectl get pods` STATUS words
// (kubectl's printers add "Init:" for init containers).
var reasonWords = map[string]chain.CauseID{
	"OOMKilled": OOMKilled, "OOM Killed": OOMKilled, "CrashLoopBackOff": CrashLoopBackOff, "Error": CrashLoopBackOff,
	"Completed": ContainerCompleted, "Init:CrashLoopBackOff": InitContainerFailed, "Init:Error": InitContainerFailed,
	"Init:OOMKilled": OOMKilled,
	"ErrImagePull":   ImagePullFailed, "ImagePullBackOff": ImagePullFailed, "Init:ErrImagePull": ImagePullFailed,
	"Init:ImagePullBackOff": ImagePullFailed, "InvalidImageName": InvalidImageName, "ErrImageNeverPull": ImageNeverPulled,
	"RegistryUnavailable": RegistryUnreachable, "ErrImagePullNoSpace": ImagePullNoSpace,
	"CreateContainerConfigError": ContainerConfigError, "CreateContainerError": CreateContainerError,
	"RunContainerError": ContainerStartFailed, "StartError": ContainerStartFailed, "ContainerCannotRun": ContainerStartFailed,
	"PreStartHookError": ContainerStartFailed, "PreCreateHookError": CreateContainerError,
	"PostStartHookError": PostStartHookFailed, "FailedPostStartHook": PostStartHookFailed, "FailedPreStopHook": PreStopHookFailed,
	"Evicted": PodEvicted, "ContainerStatusUnknown": PodEvicted,
	"OutOfcpu": KubeletAdmissionRejected, "OutOfmemory": KubeletAdmissionRejected, "OutOfpods": KubeletAdmissionRejected,
	"OutOfephemeral-storage": KubeletAdmissionRejected, "NodeAffinity": KubeletAdmissionRejected,
	"UnexpectedAdmissionError": KubeletAdmissionRejected, "NodeSelectorMismatching": KubeletAdmissionRejected,
	"ContainerCreating": ContainersCreating, "PodInitializing": ContainersCreating,
	"FailedCreate": PodCreateFailed, "ProgressDeadlineExceeded": ProgressDeadlineExceeded,
	"ReplicaSetCreateError": ReplicaSetCreateFailed, "FailedMount": VolumeMountFailed, "FailedAttachVolume": VolumeMountFailed,
	"FailedCreatePodSandBox": SandboxCreationFailed, "NetworkNotReady": CNINotReady, "FailedKillPod": SandboxKillFailed,
	"SandboxChanged": SandboxCreationFailed, "FailedKillPodSandBox": SandboxKillFailed, "FailedPodSandBoxStatus": SandboxCreationFailed,
	"SchedulingGated": SchedulingGated, "NotTriggerScaleUp": ScaleUpNotTriggered, "TriggeredScaleUp": ScaleUpTriggered,
	"Unschedulable": UnschedulableOther, "FailedScheduling": UnschedulableOther,
	"ImageInspectError": ImagePullFailed, "SignatureValidationFailed": ImagePullFailed,
	// The kubelet's waiting reason for a pod it would not run (AppArmor,
	// before 1.30), the in-place resize statuses, the kubelet's refusal of
	// a native sidecar with SidecarContainers off.
	"Blocked": AppArmorProfileNotLoaded, "Infeasible": PodResizeInfeasible, "Deferred": PodResizeDeferred,
	"InitContainerRestartPolicyForbidden": KubeletAdmissionRejected,
	// The kubelet's node pressure conditions and events (nodestatus/setters.go).
	"KubeletHasInsufficientMemory": NodeMemoryPressure, "NodeHasInsufficientMemory": NodeMemoryPressure,
	"KubeletHasDiskPressure": NodeDiskPressure, "NodeHasDiskPressure": NodeDiskPressure,
	"KubeletHasInsufficientPID": NodePIDPressure, "NodeHasInsufficientPID": NodePIDPressure,
	"DeploymentPaused": DeploymentPaused,
}

// ReasonWord decodes a bare reason, as a `kubectl get pods` STATUS or a
// state's reason pasted alone. The walk asks it too, about a container's
// waiting reason that came without words the decoders know.
func ReasonWord(s string) (Decoded, bool) {
	s = strings.TrimSpace(s)
	id, ok := reasonWords[s]
	if !ok && strings.HasPrefix(s, "OutOf") && !strings.ContainsAny(s, " \t") {
		id, ok = KubeletAdmissionRejected, true
	}
	if !ok {
		return Decoded{}, false
	}
	d := Decoded{Cause: id, Details: []chain.Detail{{Key: "reason", Value: s}}}
	if id == ContainersCreating || id == ImagePulling || id == ScaleUpTriggered || id == PodResizeDeferred {
		d.Progressing = true
	}
	return d, true
}
