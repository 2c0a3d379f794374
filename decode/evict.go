package decode

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// PodEvicted: the kubelet stopped a running pod to reclaim a node resource
// (or for a critical pod, or a node shutdown). The pod is Failed and its
// ReplicaSet creates a replacement.
const PodEvicted chain.CauseID = "PodEvicted"

// The evictions whose next step differs, named by the resource, and the
// kubelet's refusal to admit a pod it was assigned.
const (
	EvictedMemoryPressure         chain.CauseID = "EvictedMemoryPressure"
	EvictedDiskPressure           chain.CauseID = "EvictedDiskPressure"
	EphemeralStorageLimitExceeded chain.CauseID = "EphemeralStorageLimitExceeded"
	KubeletAdmissionRejected      chain.CauseID = "KubeletAdmissionRejected"
)

// evictCauses are the catalogue entries for evictions. The ReplicaSet
// replaces an evicted pod, so an eviction is a fact about the pods while the
// replacements run, and the broken link (containers) while they do not: it
// is terminal once that lasted the grace window.
var evictCauses = []Cause{
	{
		ID:       PodEvicted,
		Link:     chain.LinkContainers,
		Summary:  "the kubelet evicted the pod to reclaim a node resource under pressure",
		NextStep: "set spec.template.spec.containers[].resources.requests to the real usage of the resource named, so the scheduler reserves it; check the node with kubectl describe node",
		Terminal: TerminalRule{Mode: Transient},
		Generic:  true,
	},
	{
		ID:       EvictedMemoryPressure,
		Link:     chain.LinkContainers,
		Summary:  "the kubelet evicted the pod because its node ran low on memory",
		NextStep: "set spec.template.spec.containers[].resources.requests.memory to the real usage (and a limit), so the scheduler reserves it and the pod is not first in line; kubectl describe node shows MemoryPressure",
		Terminal: TerminalRule{Mode: AfterGrace},
	},
	{
		ID:       EvictedDiskPressure,
		Link:     chain.LinkContainers,
		Summary:  "the kubelet evicted the pod because its node ran low on disk (nodefs, imagefs or inodes)",
		NextStep: "free the node's disk (images, logs, emptyDir data) or give it more; set resources.requests/limits.ephemeral-storage on the containers so heavy writers are bounded; kubectl describe node shows DiskPressure",
		Terminal: TerminalRule{Mode: AfterGrace},
	},
	{
		ID:       EphemeralStorageLimitExceeded,
		Link:     chain.LinkContainers,
		Summary:  "the kubelet evicted the pod for using more local disk than its own ephemeral-storage limit (or an emptyDir sizeLimit)",
		NextStep: "raise spec.template.spec.containers[].resources.limits.ephemeral-storage (or the emptyDir sizeLimit), or write less to the container's filesystem, its logs and emptyDir volumes",
		Terminal: TerminalRule{Mode: AfterGrace},
	},
	{
		ID:       KubeletAdmissionRejected,
		Link:     chain.LinkContainers,
		Summary:  "the kubelet refused to run the pod on the node it was scheduled to (not enough cpu, memory or pods left there, node affinity or a device it lacks)",
		NextStep: "the ReplicaSet creates a replacement; if it recurs, look for pods the scheduler does not see on the node (static pods, a second scheduler) or extended resources the device plugin lost: kubectl describe node {NODE}",
		Terminal: TerminalRule{Mode: AfterGrace},
	},
}

// Reasons and fixed messages of the kubelet's eviction, preemption and
// node-shutdown managers (pkg/kubelet/eviction/helpers.go,
// pkg/kubelet/preemption/preemption.go,
// pkg/kubelet/nodeshutdown/nodeshutdown_manager.go).
const (
	reasonEvicted              = "Evicted"
	reasonPreempting           = "Preempting"
	reasonTerminated           = "Terminated"
	reasonNodeShutdown         = "NodeShutdown"
	preemptedMessage           = "Preempted in order to admit critical pod"
	nodeShutdownMessage        = "Pod was terminated in response to imminent node shutdown."
	nodeShutdownRejectedPrefix = "Pod was rejected as the node is shutting down."
)

// The fragments of evictionMessage and its siblings, each ending ". ".
var (
	evictLowRe       = regexp.MustCompile(`The node was low on resource: \[?(\S+?)\]?(?:\.(?:\s|$)|\s|$)`)
	evictThresholdRe = regexp.MustCompile(`Threshold quantity: (\S+?), available: (\S+?)\.(?:\s|$)`)
	evictUsageRe     = regexp.MustCompile(`(Container|Pod) (\S+) was using (\S+?), (?:request is|which exceeds its request of) (\S*?)(?:, has larger consumption of \S+?)?\.(?:\s|$)`)
	evictConditionRe = regexp.MustCompile(`The node had condition: \[(.*?)\]\.?`)
	evictCtrLimitRe  = regexp.MustCompile(`Container (\S+) exceeded its local ephemeral storage limit "(\S+?)"\.?`)
	evictPodLimitRe  = regexp.MustCompile(`Pod ephemeral local storage usage exceeds the total limit of containers (\S+?)\.?(?:\s|$)`)
	evictEmptyDirRe  = regexp.MustCompile(`Usage of EmptyDir volume "(\S+?)" exceeds the limit "(\S+?)"\.?`)
)

// Eviction decodes a pod's status reason/message Evicted (and the kubelet's
// Evicted event), the Preempting and node-shutdown terminations, naming the
// resource under pressure and the container that used more than it requested.
func Eviction(reason, message string) (d Decoded, ok bool) {
	switch {
	case reason == reasonEvicted:
		return evicted(message), true
	case reason == reasonTerminated && strings.HasPrefix(message, nodeShutdownMessage),
		strings.Contains(message, "node is shutting down"), strings.HasPrefix(message, "Node is shutting, evicting pods"):
		return Decoded{
			Cause:    PodEvicted,
			Summary:  "stopped because its node is shutting down",
			NextStep: "the ReplicaSet creates a replacement on another node; nothing to fix in the Deployment",
			Details:  []chain.Detail{{Key: "by", Value: "node-shutdown"}},
		}, true
	case kubeletRejected(reason, message):
		return admissionRejected(reason, message), true
	case reason == reasonPreempting && strings.HasPrefix(message, preemptedMessage):
		return Decoded{
			Cause:    PodEvicted,
			Summary:  "preempted by the kubelet to admit a critical pod",
			NextStep: "the ReplicaSet creates a replacement; if it recurs, add node capacity or lower the pods' requests so critical pods fit",
			Details:  []chain.Detail{{Key: "by", Value: "preemption"}},
		}, true
	}
	return Decoded{}, false
}

// evicted decodes the message of an Evicted pod or event.
func evicted(message string) Decoded {
	if m := evictCtrLimitRe.FindStringSubmatch(message); m != nil {
		return evictedStorage(fmt.Sprintf("container %s exceeded its ephemeral-storage limit %s", m[1], m[2]),
			fmt.Sprintf("raise spec.template.spec.containers[%s].resources.limits.ephemeral-storage (%s), or write less to the container's filesystem and logs", m[1], m[2]),
			chain.Detail{Key: "container", Value: m[1]}, chain.Detail{Key: "limit", Value: m[2]})
	}
	if m := evictPodLimitRe.FindStringSubmatch(message); m != nil {
		return evictedStorage(fmt.Sprintf("the pod exceeded its total ephemeral-storage limit %s", m[1]),
			"raise spec.template.spec.containers[].resources.limits.ephemeral-storage, or write less to the containers' filesystems, logs and emptyDir volumes",
			chain.Detail{Key: "limit", Value: m[1]})
	}
	if m := evictEmptyDirRe.FindStringSubmatch(message); m != nil {
		return evictedStorage(fmt.Sprintf("emptyDir volume %q exceeded its size limit %s", m[1], m[2]),
			fmt.Sprintf("raise spec.template.spec.volumes[%s].emptyDir.sizeLimit (%s), or write less to it", m[1], m[2]),
			chain.Detail{Key: "volume", Value: m[1]}, chain.Detail{Key: "limit", Value: m[2]})
	}
	if m := evictLowRe.FindStringSubmatch(message); m != nil {
		return evictedPressure(m[1], message)
	}
	if m := evictConditionRe.FindStringSubmatch(message); m != nil {
		cond := strings.Join(strings.Fields(m[1]), ", ")
		resource := evictConditionResource(cond)
		return Decoded{
			Cause:    pressureCause(resource),
			Summary:  fmt.Sprintf("rejected by the kubelet: the node has condition %s", cond),
			NextStep: "the ReplicaSet creates a replacement; check the node with kubectl describe node, where " + cond + " says what runs low",
			Details:  []chain.Detail{{Key: "resource", Value: resource}, {Key: "condition", Value: cond}},
		}
	}
	return Decoded{Cause: PodEvicted, Summary: "evicted: " + kubeletHead(message)}
}

// evictedStorage is an eviction for exceeding a local storage limit.
func evictedStorage(summary, next string, facts ...chain.Detail) Decoded {
	return Decoded{
		Cause:    EphemeralStorageLimitExceeded,
		Summary:  "evicted: " + summary,
		NextStep: next,
		Details:  append([]chain.Detail{{Key: "resource", Value: "ephemeral-storage"}}, facts...),
	}
}

// evictedPressure is an eviction for node pressure on resource, blaming the
// containers (or pod) the kubelet says used more than they requested.
func evictedPressure(resource, message string) Decoded {
	details := []chain.Detail{{Key: "resource", Value: resource}}
	if m := evictThresholdRe.FindStringSubmatch(message); m != nil {
		details = append(details, chain.Detail{Key: "threshold", Value: m[1]}, chain.Detail{Key: "available", Value: m[2]})
	}
	summary := fmt.Sprintf("evicted: the node was low on %s", resource)
	var blamed []string
	for _, m := range evictUsageRe.FindAllStringSubmatch(message, -1) {
		who, request := strings.ToLower(m[1]), m[4]
		if request == "" || request == "0" {
			request = "none"
		}
		details = append(details, chain.Detail{Key: who, Value: m[2]},
			chain.Detail{Key: "usage", Value: m[3]}, chain.Detail{Key: "request", Value: request})
		blamed = append(blamed, fmt.Sprintf("%s %s used %s with a request of %s", who, m[2], m[3], request))
	}
	if len(blamed) > 0 {
		summary += "; " + strings.Join(blamed, ", ")
	}
	return Decoded{Cause: pressureCause(resource), Summary: summary, NextStep: evictPressureStep(resource, message), Details: details}
}

// pressureCause names an eviction by the resource the node ran low on
// (the eviction manager's signals: memory, nodefs and imagefs as
// ephemeral-storage or by name, inodes, pids).
func pressureCause(resource string) chain.CauseID {
	switch resource {
	case "memory":
		return EvictedMemoryPressure
	case "ephemeral-storage", "nodefs", "imagefs", "inodes", "nodefs.inodesFree", "imagefs.inodesFree", "storage", "DiskPressure":
		return EvictedDiskPressure
	case "MemoryPressure":
		return EvictedMemoryPressure
	}
	return PodEvicted
}

// The kubelet's admission refusals (pkg/kubelet/lifecycle/predicate.go):
// status.reason "OutOf" + resource, "NodeAffinity", "NodeSelectorMismatching"
// (before 1.22), "UnexpectedAdmissionError", "NodePorts", "InvalidNodeInfo",
// and the message "Pod Node didn't have enough resource: %s, requested: %d,
// used: %d, capacity: %d" or "Pod was rejected: ..." (1.27 and later).
var (
	rejectReasons = map[string]bool{"NodeAffinity": true, "NodeSelectorMismatching": true, "UnexpectedAdmissionError": true,
		"NodePorts": true, "InvalidNodeInfo": true, "PodOSNotSupported": true, "PodOSSelectorNodeLabelDoesNotMatch": true,
		"TopologyAffinityError": true, "SMTAlignmentError": true, "UnexpectedPredicateFailureType": true, "Rejected": true}
	rejectResourceRe = regexp.MustCompile(`(?:didn't|did not) have enough resource: (\S+?), requested: (\d+), used: (\d+), capacity: (\d+)`)
)

func kubeletRejected(reason, message string) bool {
	return strings.HasPrefix(reason, "OutOf") || rejectReasons[reason] ||
		strings.Contains(message, "Pod was rejected: ") || rejectResourceRe.MatchString(message) ||
		strings.Contains(message, "Predicate NodeAffinity failed") || strings.Contains(message, "Allocate failed due to ")
}

func admissionRejected(reason, message string) Decoded {
	msg := strings.TrimSpace(message)
	if sd, ok := SecurityWords(msg); ok {
		// A security admission of the kubelet (AppArmor, 1.30 on: pod
		// Failed with reason AppArmor, "Pod was rejected: Cannot enforce
		// AppArmor: ..."): its own cause says what to fix.
		return sd
	}
	d := Decoded{Cause: KubeletAdmissionRejected, Details: []chain.Detail{{Key: "reason", Value: reason}}}
	if m := rejectResourceRe.FindStringSubmatch(msg); m != nil {
		d.Summary = fmt.Sprintf("the kubelet refused the pod: not enough %s left on its node (requested %s, used %s of %s)", m[1], m[2], m[3], m[4])
		d.Details = append(d.Details, chain.Detail{Key: "resource", Value: m[1]})
		return d
	}
	switch {
	case msg != "":
		d.Summary = "the kubelet refused the pod: " + kubeletHead(msg)
	case reason != "":
		d.Summary = "the kubelet refused the pod: " + reason
	}
	return d
}

// evictPressureStep says what to change for each starved resource.
func evictPressureStep(resource, message string) string {
	field := "spec.template.spec.containers[].resources.requests"
	if m := evictUsageRe.FindStringSubmatch(message); m != nil && m[1] == "Container" {
		field = fmt.Sprintf("spec.template.spec.containers[%s].resources.requests", m[2])
	}
	switch resource {
	case "memory":
		return fmt.Sprintf("set %s.memory to the real usage so the scheduler reserves it (the ReplicaSet replaces evicted pods); check the node with kubectl describe node", field)
	case "ephemeral-storage":
		return fmt.Sprintf("the node's disk ran low: set %s.ephemeral-storage (and limits), move scratch data to a volume, and check the node's disk", field)
	case "inodes":
		return "the node ran out of inodes: find the pods writing many small files (kubectl describe node), and clean up the node's disk"
	case "pids":
		return "the node ran out of process IDs: look for a process leak in the pods on the node, and set the kubelet's podPidsLimit"
	}
	return fmt.Sprintf("set %s to the real usage, and check the node with kubectl describe node", field)
}

// evictConditionResource maps a node pressure condition to its resource.
func evictConditionResource(cond string) string {
	switch {
	case strings.Contains(cond, "MemoryPressure"):
		return "memory"
	case strings.Contains(cond, "DiskPressure"):
		return "ephemeral-storage"
	case strings.Contains(cond, "PIDPressure"):
		return "pids"
	}
	return cond
}
