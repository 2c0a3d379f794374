package decode

import (
	"time"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Causes decoded from the scheduler's PodScheduled=False condition and
// FailedScheduling events, one per Filter/PreFilter plugin reason.
const (
	NoNodesAvailable             chain.CauseID = "NoNodesAvailable"
	InsufficientCPU              chain.CauseID = "InsufficientCPU"
	InsufficientMemory           chain.CauseID = "InsufficientMemory"
	InsufficientEphemeralStorage chain.CauseID = "InsufficientEphemeralStorage"
	TooManyPods                  chain.CauseID = "TooManyPods"
	InsufficientExtendedResource chain.CauseID = "InsufficientExtendedResource"
	UntoleratedTaint             chain.CauseID = "UntoleratedTaint"
	NodeAffinityMismatch         chain.CauseID = "NodeAffinityMismatch"
	PodAffinityUnsatisfied       chain.CauseID = "PodAffinityUnsatisfied"
	PodAntiAffinityConflict      chain.CauseID = "PodAntiAffinityConflict"
	TopologySpreadUnsatisfied    chain.CauseID = "TopologySpreadUnsatisfied"
	UnboundPVC                   chain.CauseID = "UnboundPVC"
	PVCNotFound                  chain.CauseID = "PVCNotFound"
	VolumeNodeAffinityConflict   chain.CauseID = "VolumeNodeAffinityConflict"
	NodeUnschedulable            chain.CauseID = "NodeUnschedulable"
	NodePortConflict             chain.CauseID = "NodePortConflict"
	VolumeLimitExceeded          chain.CauseID = "VolumeLimitExceeded"
	SchedulingGated              chain.CauseID = "SchedulingGated"
	NodeNameMismatch             chain.CauseID = "NodeNameMismatch"
	UnschedulableOther           chain.CauseID = "UnschedulableOther"
	// Reasons about the nodes themselves or the storage, whose next step is
	// not in the pod template. Node pressure is named by its resource (the
	// one NodePressure of earlier releases said less than every wording).
	NodeMemoryPressure          chain.CauseID = "NodeMemoryPressure"
	NodeDiskPressure            chain.CauseID = "NodeDiskPressure"
	NodePIDPressure             chain.CauseID = "NodePIDPressure"
	NodeNotReady                chain.CauseID = "NodeNotReady"
	NodeUninitialized           chain.CauseID = "NodeUninitialized"
	InsufficientStorageCapacity chain.CauseID = "InsufficientStorageCapacity"
	PVNotFound                  chain.CauseID = "PVNotFound"
)

// schedExclusions are the reasons that rule a node out because the pod
// never asked for it (its selector, affinity, name or tolerations): the
// scheduler gives each node only its first failing reason, so what the
// remaining nodes (the ones the pod wants) say is the thing to fix. They
// rank after every other reason, whatever their node counts.
var schedExclusions = map[chain.CauseID]bool{NodeAffinityMismatch: true, UntoleratedTaint: true, PodAffinityUnsatisfied: true, NodeNameMismatch: true}

// controlPlaneTaints are the taints kubeadm (and most installers) put on
// control-plane nodes: node-role.kubernetes.io/control-plane since 1.24,
// node-role.kubernetes.io/master before (kubeadm's constants.go). A
// workload's pods are not meant for those nodes.
var controlPlaneTaints = map[string]bool{"node-role.kubernetes.io/control-plane": true, "node-role.kubernetes.io/master": true}

// SchedWeight is what orders one pod's scheduler reasons.
type SchedWeight struct {
	Cause chain.CauseID
	// Nodes is how many nodes gave the reason.
	Nodes int
	// Background marks a reason of nodes no pod of a workload was meant
	// to run on: a control-plane node's taint, which the scheduler names
	// in every summary of a cluster that has such nodes (the pod does not
	// tolerate it, or it would not be named). It is the cause only when
	// nothing else is said. A cordoned node is not background from the
	// message alone: the scheduler's NodeUnschedulable filter runs before
	// NodeAffinity and reports a cordoned node whatever the pod asks for,
	// and the cordoned nodes can be the very ones it asks for (a
	// Deployment pinned to three cordoned control-plane nodes of fourteen,
	// testdata/real/incidents/scheduler.yaml, kube-hetzner#1604).
	Background bool
}

// WeightOf is a decoded scheduler reason's weight.
func WeightOf(d Decoded) SchedWeight {
	w := SchedWeight{Cause: d.Cause, Nodes: d.Nodes}
	if d.Cause == UntoleratedTaint {
		for _, det := range d.Details {
			if det.Key == "key" && controlPlaneTaints[det.Value] {
				w.Background = true
			}
		}
	}
	return w
}

// SchedBefore orders two reasons of one pod: what the nodes the pod wants
// lack first, then exclusions of nodes it never asked for, then the
// background (control-plane nodes); within each, by how many nodes gave
// them. explain ranks a pasted message's reasons by it, and the
// walk the findings seen on as many pods: one rule for both.
func SchedBefore(a, b SchedWeight) (before, decided bool) {
	if family(a.Cause) != "scheduler" || family(b.Cause) != "scheduler" {
		return false, false
	}
	tier := func(w SchedWeight) int {
		switch {
		case w.Background:
			return 2
		case schedExclusions[w.Cause]:
			return 1
		}
		return 0
	}
	if ta, tb := tier(a), tier(b); ta != tb {
		return ta < tb, true
	}
	if a.Nodes != b.Nodes {
		return a.Nodes > b.Nodes, true
	}
	return false, false
}

// schedGrace is the rule of every scheduler cause: a node may be added by a
// cluster autoscaler (the walk weighs TriggeredScaleUp events separately), a
// claim or gate may be handled a moment later, a cordon may be lifted. A
// reason that persists past the grace window will not heal by itself.
var schedGrace = TerminalRule{Mode: AfterGrace}

var schedulerCauses = []Cause{
	{ID: NoNodesAvailable, Link: chain.LinkNodeAssignment,
		Summary:  "no nodes available to schedule pods: the scheduler sees no node at all",
		NextStep: "register nodes and check they are Ready: kubectl get nodes",
		Terminal: schedGrace},
	{ID: InsufficientCPU, Link: chain.LinkNodeAssignment,
		Summary:  "nodes lack free cpu for the pod's requests",
		NextStep: "lower spec.template.spec.containers[].resources.requests.cpu or add capacity; compare with Allocated resources in kubectl describe nodes",
		Terminal: schedGrace},
	{ID: InsufficientMemory, Link: chain.LinkNodeAssignment,
		Summary:  "nodes lack free memory for the pod's requests",
		NextStep: "lower spec.template.spec.containers[].resources.requests.memory or add capacity; compare with Allocated resources in kubectl describe nodes",
		Terminal: schedGrace},
	{ID: InsufficientEphemeralStorage, Link: chain.LinkNodeAssignment,
		Summary:  "nodes lack free ephemeral-storage for the pod's requests",
		NextStep: "lower spec.template.spec.containers[].resources.requests.ephemeral-storage or add node disk; compare with Allocated resources in kubectl describe nodes",
		Terminal: schedGrace},
	{ID: TooManyPods, Link: chain.LinkNodeAssignment,
		Summary:  "nodes already run as many pods as they allow (status.allocatable.pods)",
		NextStep: "add nodes or raise the kubelet's maxPods; see kubectl get nodes -o custom-columns=NAME:.metadata.name,PODS:.status.allocatable.pods",
		Terminal: schedGrace},
	{ID: InsufficientExtendedResource, Link: chain.LinkNodeAssignment,
		Summary:  "nodes lack a free extended resource (a device such as a GPU) the pod requests",
		NextStep: "lower the resource in spec.template.spec.containers[].resources, or add nodes whose device plugin advertises it (Allocatable in kubectl describe nodes)",
		Terminal: schedGrace},
	{ID: UntoleratedTaint, Link: chain.LinkNodeAssignment,
		Summary:  "nodes have taints the pod does not tolerate",
		NextStep: "list taints with kubectl get nodes -o custom-columns=NAME:.metadata.name,TAINTS:.spec.taints and add matching tolerations to spec.template.spec.tolerations",
		Terminal: schedGrace},
	// The pressure named by its resource: the kubelet sets MemoryPressure,
	// DiskPressure and PIDPressure from its eviction signals
	// (pkg/kubelet/eviction), the node lifecycle controller taints the
	// node by them, and the scheduler words them by release (predicates
	// 1.5-1.17, taints since). Each resource has its own next step.
	{ID: NodeMemoryPressure, Link: chain.LinkNodeAssignment,
		Summary:  "nodes are under memory pressure (MemoryPressure, taint node.kubernetes.io/memory-pressure), so the scheduler keeps new pods off them",
		NextStep: "free memory on the nodes or add nodes: kubectl top nodes and kubectl describe node {NODE} (Conditions: MemoryPressure; Allocated resources) show who uses it; set memory requests and limits to the real usage so the scheduler stops overcommitting; do not tolerate the taint",
		Terminal: schedGrace},
	{ID: NodeDiskPressure, Link: chain.LinkNodeAssignment,
		Summary:  "nodes are under disk pressure (DiskPressure, taint node.kubernetes.io/disk-pressure): their nodefs or imagefs runs out of space or inodes",
		NextStep: "free the nodes' disk (unused images: crictl rmi --prune; container logs; emptyDir data) or give them bigger disks; kubectl describe node {NODE} shows DiskPressure and the kubelet's eviction thresholds decide when it clears; do not tolerate the taint",
		Terminal: schedGrace},
	{ID: NodePIDPressure, Link: chain.LinkNodeAssignment,
		Summary:  "nodes are under PID pressure (PIDPressure, taint node.kubernetes.io/pid-pressure): they run out of process IDs",
		NextStep: "find the pods that leak processes or threads on the nodes (kubectl describe node {NODE}; ps on the node), set the kubelet's podPidsLimit, or raise the node's pid_max; do not tolerate the taint",
		Terminal: schedGrace},
	{ID: NodeNotReady, Link: chain.LinkNodeAssignment,
		Summary:  "nodes are NotReady or unreachable (their kubelet stopped reporting), so the scheduler keeps new pods off them",
		NextStep: "fix the nodes: kubectl get nodes, then kubectl describe node {NODE} (Conditions, the kubelet's last heartbeat) and the kubelet's log on the node",
		// A node that restarts comes back: its pods get the default
		// not-ready toleration (300 s) before they are evicted.
		Terminal: TerminalRule{Mode: AfterGrace, Window: 300 * time.Second}},
	// The kubelet started with --cloud-provider=external registers its node
	// with this taint; the cloud controller manager's node controller
	// removes it once it has set the node's addresses, zone and provider
	// ID (k8s.io/cloud-provider controllers/node/node_controller.go).
	{ID: NodeUninitialized, Link: chain.LinkNodeAssignment,
		Summary:  "nodes carry node.cloudprovider.kubernetes.io/uninitialized: the cloud controller manager has not initialized them",
		NextStep: "check the cloud controller manager: is it deployed and running (kubectl -n kube-system get pods | grep cloud-controller), and what does its log say about these nodes (credentials, the provider ID, the node's instance); it removes the taint once it initializes a node. Do not tolerate the taint or remove it by hand",
		Terminal: schedGrace},
	{ID: NodeAffinityMismatch, Link: chain.LinkNodeAssignment,
		Summary:  "nodes do not match the pod's node selector or required node affinity",
		NextStep: "fix spec.template.spec.nodeSelector or spec.template.spec.affinity.nodeAffinity to match node labels (kubectl get nodes --show-labels), or label the nodes",
		Terminal: schedGrace},
	{ID: PodAffinityUnsatisfied, Link: chain.LinkNodeAssignment,
		Summary:  "no node's topology domain runs the pods the pod's required pod affinity asks for",
		NextStep: "check that pods matching spec.template.spec.affinity.podAffinity's labelSelector run (kubectl get pods -A -l SELECTOR -o wide), or relax the rule",
		Terminal: schedGrace},
	{ID: PodAntiAffinityConflict, Link: chain.LinkNodeAssignment,
		Summary:  "pod anti-affinity (the pod's or existing pods') rules out the nodes",
		NextStep: "relax spec.template.spec.affinity.podAntiAffinity (preferred instead of required), lower replicas, or add nodes in new topology domains",
		Terminal: schedGrace},
	{ID: TopologySpreadUnsatisfied, Link: chain.LinkNodeAssignment,
		Summary:  "placing the pod would break its topology spread constraints",
		NextStep: "relax spec.template.spec.topologySpreadConstraints (maxSkew, whenUnsatisfiable: ScheduleAnyway) or add nodes in the under-filled domains",
		Terminal: schedGrace},
	{ID: UnboundPVC, Link: chain.LinkNodeAssignment,
		Summary:  "the pod's PersistentVolumeClaims are not bound and no volume can be bound for them",
		NextStep: "kubectl describe pvc in the pod's namespace: check for a matching PersistentVolume or a working StorageClass provisioner",
		Terminal: schedGrace},
	{ID: PVCNotFound, Link: chain.LinkNodeAssignment,
		Summary:  "a PersistentVolumeClaim the pod mounts does not exist",
		NextStep: "create the claim in the pod's namespace, or fix spec.template.spec.volumes[].persistentVolumeClaim.claimName",
		Terminal: schedGrace},
	{ID: PVNotFound, Link: chain.LinkNodeAssignment,
		Summary:  "a claim of the pod is bound to a PersistentVolume that does not exist",
		NextStep: "kubectl get pvc -n {NAMESPACE} shows the claim's volumeName: recreate that PersistentVolume, or delete and recreate the claim so it binds anew (its data is gone with the volume)",
		Terminal: schedGrace},
	{ID: InsufficientStorageCapacity, Link: chain.LinkNodeAssignment,
		Summary:  "the CSI driver reports too little free storage on the nodes for the pod's claims (storage capacity tracking)",
		NextStep: "lower the claims' storage requests or add storage; kubectl get csistoragecapacities -A shows what each node's topology segment has",
		Terminal: schedGrace},
	{ID: VolumeNodeAffinityConflict, Link: chain.LinkNodeAssignment,
		Summary:  "the pod's PersistentVolumes are pinned to other nodes or zones",
		NextStep: "see kubectl get pv -o custom-columns=NAME:.metadata.name,CLAIM:.spec.claimRef.name,AFFINITY:.spec.nodeAffinity; add a node there, or use a StorageClass with volumeBindingMode: WaitForFirstConsumer",
		Terminal: schedGrace},
	{ID: NodeUnschedulable, Link: chain.LinkNodeAssignment,
		Summary:  "nodes are cordoned (spec.unschedulable)",
		NextStep: "kubectl uncordon {NODE} once maintenance is over, or add nodes; kubectl get nodes shows SchedulingDisabled",
		Terminal: schedGrace},
	{ID: NodePortConflict, Link: chain.LinkNodeAssignment,
		Summary:  "the host ports the pod asks for are taken on the nodes",
		NextStep: "remove or change spec.template.spec.containers[].ports[].hostPort (one pod per host port and node), or add nodes",
		Terminal: schedGrace},
	{ID: VolumeLimitExceeded, Link: chain.LinkNodeAssignment,
		Summary:  "nodes reached their CSI volume attach limit",
		NextStep: "use fewer volumes per pod or add nodes; see limits with kubectl get csinode -o custom-columns=NAME:.metadata.name,DRIVERS:.spec.drivers",
		Terminal: schedGrace},
	{ID: SchedulingGated, Link: chain.LinkNodeAssignment,
		Summary:  "the pod has scheduling gates: the scheduler will not consider it",
		NextStep: "the controller that set spec.schedulingGates must remove them; see kubectl get pod {POD} -o jsonpath='{.spec.schedulingGates}'",
		Terminal: schedGrace},
	{ID: NodeNameMismatch, Link: chain.LinkNodeAssignment,
		Summary:  "no node has the name the pod requests",
		NextStep: "fix spec.template.spec.nodeName (or nodeAffinity matchFields on metadata.name) to an existing node: kubectl get nodes",
		Terminal: schedGrace},
	{ID: UnschedulableOther, Link: chain.LinkNodeAssignment,
		Summary:  "the scheduler rejected the nodes for a reason kubectl-chain does not decode",
		NextStep: "read the full message with kubectl describe pod {POD}; the reason names the scheduler plugin that rejected the nodes",
		Terminal: schedGrace},
}
