package decode

import (
	"testing"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// klEvictionCases are the kubelet's eviction, preemption and node-shutdown
// texts. Eviction formats (pkg/kubelet/eviction/helpers.go): nodeLowMessageFmt
// "The node was low on resource: %v. ", thresholdMetMessageFmt "Threshold
// quantity: %v, available: %v. ", containerMessageFmt "Container %s was using
// %s, request is %s, has larger consumption of %v. ", and the storage limit
// formats; the same text is the pod's status.message and the Evicted event's.
var klEvictionCases = []klCase{
	{
		name: "memory pressure, container over its request", reason: "Evicted",
		message: "The node was low on resource: memory. Threshold quantity: 100Mi, available: 87284Ki. Container web was using 1402304Ki, request is 256Mi, has larger consumption of memory. ",
		ok:      true,
		want: Decoded{
			Cause:    EvictedMemoryPressure,
			Summary:  "evicted: the node was low on memory; container web used 1402304Ki with a request of 256Mi",
			NextStep: "set spec.template.spec.containers[web].resources.requests.memory to the real usage so the scheduler reserves it (the ReplicaSet replaces evicted pods); check the node with kubectl describe node",
			Details: []chain.Detail{
				{Key: "resource", Value: "memory"}, {Key: "threshold", Value: "100Mi"}, {Key: "available", Value: "87284Ki"},
				{Key: "container", Value: "web"}, {Key: "usage", Value: "1402304Ki"}, {Key: "request", Value: "256Mi"},
			},
		},
	},
	{
		name: "disk pressure, no request", reason: "Evicted",
		message: "The node was low on resource: ephemeral-storage. Threshold quantity: 2146223340, available: 1887212Ki. Container web was using 6410572Ki, request is 0, has larger consumption of ephemeral-storage. ",
		ok:      true,
		want: Decoded{
			Cause:    EvictedDiskPressure,
			Summary:  "evicted: the node was low on ephemeral-storage; container web used 6410572Ki with a request of none",
			NextStep: "the node's disk ran low: set spec.template.spec.containers[web].resources.requests.ephemeral-storage (and limits), move scratch data to a volume, and check the node's disk",
			Details: []chain.Detail{
				{Key: "resource", Value: "ephemeral-storage"}, {Key: "threshold", Value: "2146223340"}, {Key: "available", Value: "1887212Ki"},
				{Key: "container", Value: "web"}, {Key: "usage", Value: "6410572Ki"}, {Key: "request", Value: "none"},
			},
		},
	},
	{
		name: "memory pressure, nobody over its request", reason: "Evicted",
		message: "The node was low on resource: memory. Threshold quantity: 100Mi, available: 87284Ki. ",
		ok:      true,
		want: Decoded{
			Cause:    EvictedMemoryPressure,
			Summary:  "evicted: the node was low on memory",
			NextStep: "set spec.template.spec.containers[].resources.requests.memory to the real usage so the scheduler reserves it (the ReplicaSet replaces evicted pods); check the node with kubectl describe node",
			Details:  []chain.Detail{{Key: "resource", Value: "memory"}, {Key: "threshold", Value: "100Mi"}, {Key: "available", Value: "87284Ki"}},
		},
	},
	{
		// helpers.go containerEphemeralStorageMessageFmt "Container %s exceeded its local ephemeral storage limit %q. "
		name: "container storage limit", reason: "Evicted",
		message: `Container web exceeded its local ephemeral storage limit "1Gi". `,
		ok:      true,
		want: Decoded{
			Cause:    EphemeralStorageLimitExceeded,
			Summary:  "evicted: container web exceeded its ephemeral-storage limit 1Gi",
			NextStep: "raise spec.template.spec.containers[web].resources.limits.ephemeral-storage (1Gi), or write less to the container's filesystem and logs",
			Details:  []chain.Detail{{Key: "resource", Value: "ephemeral-storage"}, {Key: "container", Value: "web"}, {Key: "limit", Value: "1Gi"}},
		},
	},
	{
		// helpers.go podEphemeralStorageMessageFmt "Pod ephemeral local storage usage exceeds the total limit of containers %s. "
		name: "pod storage limit", reason: "Evicted",
		message: "Pod ephemeral local storage usage exceeds the total limit of containers 2Gi. ",
		ok:      true,
		want: Decoded{
			Cause:    EphemeralStorageLimitExceeded,
			Summary:  "evicted: the pod exceeded its total ephemeral-storage limit 2Gi",
			NextStep: "raise spec.template.spec.containers[].resources.limits.ephemeral-storage, or write less to the containers' filesystems, logs and emptyDir volumes",
			Details:  []chain.Detail{{Key: "resource", Value: "ephemeral-storage"}, {Key: "limit", Value: "2Gi"}},
		},
	},
	{
		// helpers.go emptyDirMessageFmt "Usage of EmptyDir volume %q exceeds the limit %q. "
		name: "emptyDir limit", reason: "Evicted",
		message: `Usage of EmptyDir volume "cache" exceeds the limit "512Mi". `,
		ok:      true,
		want: Decoded{
			Cause:    EphemeralStorageLimitExceeded,
			Summary:  `evicted: emptyDir volume "cache" exceeded its size limit 512Mi`,
			NextStep: "raise spec.template.spec.volumes[cache].emptyDir.sizeLimit (512Mi), or write less to it",
			Details:  []chain.Detail{{Key: "resource", Value: "ephemeral-storage"}, {Key: "volume", Value: "cache"}, {Key: "limit", Value: "512Mi"}},
		},
	},
	{
		// pkg/kubelet/eviction/eviction_manager.go Admit: nodeConditionMessageFmt "The node had condition: %v. "
		name: "rejected under node condition", reason: "Evicted",
		message: "The node had condition: [DiskPressure]. ",
		ok:      true,
		want: Decoded{
			Cause:    EvictedDiskPressure,
			Summary:  "rejected by the kubelet: the node has condition DiskPressure",
			NextStep: "the ReplicaSet creates a replacement; check the node with kubectl describe node, where DiskPressure says what runs low",
			Details:  []chain.Detail{{Key: "resource", Value: "ephemeral-storage"}, {Key: "condition", Value: "DiskPressure"}},
		},
	},
	{
		// pkg/kubelet/preemption/preemption.go: events.PreemptContainer "Preempting", "Preempted in order to admit critical pod"
		name: "preempted", reason: "Preempting",
		message: "Preempted in order to admit critical pod",
		ok:      true,
		want: Decoded{
			Cause:    PodEvicted,
			Summary:  "preempted by the kubelet to admit a critical pod",
			NextStep: "the ReplicaSet creates a replacement; if it recurs, add node capacity or lower the pods' requests so critical pods fit",
			Details:  []chain.Detail{{Key: "by", Value: "preemption"}},
		},
	},
	{
		// pkg/kubelet/nodeshutdown/nodeshutdown_manager.go: nodeShutdownReason "Terminated",
		// nodeShutdownMessage "Pod was terminated in response to imminent node shutdown."
		name: "node shutdown", reason: "Terminated",
		message: "Pod was terminated in response to imminent node shutdown.",
		ok:      true,
		want: Decoded{
			Cause:    PodEvicted,
			Summary:  "stopped because its node is shutting down",
			NextStep: "the ReplicaSet creates a replacement on another node; nothing to fix in the Deployment",
			Details:  []chain.Detail{{Key: "by", Value: "node-shutdown"}},
		},
	},
	{
		// nodeshutdown_manager.go: NodeShutdownNotAdmittedReason "NodeShutdown",
		// nodeShutdownNotAdmittedMessage "Pod was rejected as the node is shutting down."
		name: "rejected during shutdown", reason: "NodeShutdown",
		message: "Pod was rejected as the node is shutting down.",
		ok:      true,
		want: Decoded{
			Cause:    PodEvicted,
			Summary:  "stopped because its node is shutting down",
			NextStep: "the ReplicaSet creates a replacement on another node; nothing to fix in the Deployment",
			Details:  []chain.Detail{{Key: "by", Value: "node-shutdown"}},
		},
	},
	{
		// pkg/kubelet/kuberuntime/kuberuntime_container.go: "Stopping container %s"
		name: "plain stop", reason: "Killing",
		message: "Stopping container web",
	},
}

func TestEviction(t *testing.T) {
	klRun(t, Eviction, klEvictionCases)
}

func FuzzEviction(f *testing.F) {
	klSeed(f, klEvictionCases)
	f.Fuzz(func(t *testing.T, reason, message string) {
		klCheck(t, Eviction, evictCauses, reason, message)
	})
}
