package decode

import (
	"fmt"
	"strings"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// schedFact is what one reason clause says, before the node count is added.
type schedFact struct {
	cause chain.CauseID
	// what is the specific summary without the "2 of 5 nodes: " prefix.
	what string
	// next is a next step more specific than the catalogue's; empty keeps
	// the catalogue's.
	next    string
	details []chain.Detail
}

// schedExact maps the fixed reason strings of the scheduler plugins
// (pkg/scheduler/framework/plugins/*, v1.37.2, plus the wording of older
// releases still running in clusters) to their facts.
var schedExact = map[string]schedFact{
	// scheduler.go ErrNoNodesAvailable
	"no nodes available to schedule pods": {cause: NoNodesAvailable, what: "no nodes available to schedule pods"},
	// noderesources/fit.go
	"Too many pods": {cause: TooManyPods, what: "too many pods"},
	// tainttoleration: v1.35+ and the pre-1.19 wording.
	"node(s) had untolerated taint(s)":                {cause: UntoleratedTaint, what: "untolerated taint(s)"},
	"node(s) had taints that the pod didn't tolerate": {cause: UntoleratedTaint, what: "taints that the pod didn't tolerate"},
	// nodeaffinity, and the pre-1.19 predicate wording.
	"node(s) didn't match Pod's node affinity/selector": {cause: NodeAffinityMismatch, what: "node affinity/selector did not match"},
	"node(s) didn't match node selector":                {cause: NodeAffinityMismatch, what: "node selector did not match"},
	"node(s) didn't match scheduler-enforced node affinity": {cause: NodeAffinityMismatch,
		what: "scheduler-enforced node affinity did not match",
		next: "the scheduler profile's NodeAffinity addedAffinity excludes these nodes: check spec.template.spec.schedulerName and the kube-scheduler configuration"},
	"pod affinity terms conflict": {cause: NodeAffinityMismatch,
		what: "required node affinity terms select no node (conflicting metadata.name matchFields)",
		next: "fix the metadata.name matchFields in spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution so that some node satisfies them"},
	// interpodaffinity/filtering.go
	"node(s) didn't match pod affinity rules": {cause: PodAffinityUnsatisfied, what: "pod affinity rules not satisfied"},
	"node(s) didn't match pod anti-affinity rules": {cause: PodAntiAffinityConflict,
		what: "pod anti-affinity rules conflict with pods on the nodes"},
	"node(s) didn't satisfy existing pods anti-affinity rules": {cause: PodAntiAffinityConflict,
		what: "existing pods' anti-affinity rules exclude the pod",
		next: "pods already on those nodes have a podAntiAffinity matching this pod's labels: find them with kubectl get pods -A -o wide, change spec.template.metadata.labels, or add nodes"},
	// podtopologyspread/plugin.go
	"node(s) didn't match pod topology spread constraints": {cause: TopologySpreadUnsatisfied,
		what: "topology spread constraints not satisfied"},
	"node(s) didn't match pod topology spread constraints (missing required label)": {cause: TopologySpreadUnsatisfied,
		what: "nodes lack a topologyKey label of the topology spread constraints",
		next: "label the nodes with every topologyKey of spec.template.spec.topologySpreadConstraints (kubectl get nodes -L KEY), or fix the keys"},
	// volumebinding/volume_binding.go and binder.go
	"pod has unbound immediate PersistentVolumeClaims": {cause: UnboundPVC,
		what: "pod has unbound immediate PersistentVolumeClaims",
		next: "kubectl describe pvc in the pod's namespace: an Immediate-binding claim waits for a matching PersistentVolume or for its StorageClass provisioner"},
	"node(s) didn't find available persistent volumes to bind": {cause: UnboundPVC,
		what: "no available persistent volume to bind",
		next: "create a PersistentVolume matching the claim (storageClassName, size, accessModes, node affinity) or fix the StorageClass provisioner; kubectl describe pvc"},
	"node(s) did not have enough free storage": {cause: InsufficientStorageCapacity,
		what: "not enough free storage to provision the claims"},
	"node(s) didn't have enough free storage": {cause: InsufficientStorageCapacity,
		what: "not enough free storage to provision the claims"},
	"node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)": {cause: PVNotFound,
		what: "a claim is bound to a PersistentVolume that does not exist"},
	"pvc(s) bound to non-existent pv(s)": {cause: PVNotFound,
		what: "a claim is bound to a PersistentVolume that does not exist"},
	// Node conditions as the scheduler named them in 1.10-1.17
	// (predicates/error.go) before they became taints.
	"node(s) had memory pressure":                 {cause: NodeMemoryPressure, what: "memory pressure"},
	"node(s) had disk pressure":                   {cause: NodeDiskPressure, what: "disk pressure"},
	"node(s) had pid pressure":                    {cause: NodePIDPressure, what: "PID pressure"},
	"node(s) were out of disk space":              {cause: NodeDiskPressure, what: "out of disk space"},
	"node(s) were not ready":                      {cause: NodeNotReady, what: "not ready"},
	"node(s) had network unavailable":             {cause: NodeNotReady, what: "network unavailable"},
	"node(s) didn't match Pod's node affinity":    {cause: NodeAffinityMismatch, what: "node affinity did not match"},
	"node(s) didn't have requested volumes":       {cause: VolumeNodeAffinityConflict, what: "requested volumes not available on the nodes"},
	"node(s) had no available disk":               {cause: VolumeLimitExceeded, what: "no available disk"},
	"node(s) had no available volume topology":    {cause: VolumeNodeAffinityConflict, what: "no available volume topology"},
	"Too many pods (allocatable)":                 {cause: TooManyPods, what: "too many pods"},
	"node(s) didn't match the requested hostname": {cause: NodeNameMismatch, what: "requested host name did not match"},
	// 1.10-1.19's one wording for inter-pod affinity and anti-affinity;
	// spreading replicas apart is by far its most common use.
	"node(s) didn't match pod affinity/anti-affinity": {cause: PodAntiAffinityConflict,
		what: "pod affinity/anti-affinity rules not satisfied"},
	"node(s) didn't match pod affinity/anti-affinity rules": {cause: PodAntiAffinityConflict,
		what: "pod affinity/anti-affinity rules not satisfied"},
	// volumebinding before 1.19 and the scheduler's predicates in 1.3-1.9.
	"pod has unbound PersistentVolumeClaims": {cause: UnboundPVC, what: "pod has unbound PersistentVolumeClaims"},
	"node(s) didn't match PersistentVolume's node affinity": {cause: VolumeNodeAffinityConflict,
		what: "PersistentVolume's node affinity excludes the nodes"},
	"node(s) had volume node affinity conflict": {cause: VolumeNodeAffinityConflict,
		what: "volume node affinity conflict"},
	// volumezone/volume_zone.go
	"node(s) had no available volume zone": {cause: VolumeNodeAffinityConflict,
		what: "no node in the PersistentVolume's zone",
		next: "the volume lives in a zone without a fitting node: add one there (kubectl get nodes -L topology.kubernetes.io/zone) or use a StorageClass with volumeBindingMode: WaitForFirstConsumer"},
	// nodeunschedulable, nodeports, nodevolumelimits, nodename
	"node(s) were unschedulable":                                 {cause: NodeUnschedulable, what: "cordoned (unschedulable)"},
	"node(s) didn't have free ports for the requested pod ports": {cause: NodePortConflict, what: "requested host ports in use"},
	"node(s) exceed max volume count":                            {cause: VolumeLimitExceeded, what: "volume attach limit reached"},
	"node(s) didn't match the requested node name":               {cause: NodeNameMismatch, what: "requested node name did not match"},
}

// schedPatterns decode the reasons that carry a value, in order; plugin
// errors that wrap a reason are unwrapped after them (schedPluginError).
var schedPatterns = []func(string) (schedFact, bool){
	schedInsufficient,
	schedTaint,
	schedPVCMissing,
	schedClaimDeleting,
	schedGates,
	schedPreFilterAbsent,
}

// schedClause decodes one reason clause. nodes is its count (0 for none),
// total the message's node count (-1 for none). A clause cut by the event
// note's truncation is never guessed at.
func schedClause(text string, nodes, total int, truncated bool) Decoded {
	f, ok := schedLookup(text)
	if !ok || truncated {
		f = schedFact{cause: UnschedulableOther, what: text,
			details: []chain.Detail{{Key: "reason", Value: text}}}
	}
	summary := f.what
	if nodes > 0 && total > 0 {
		summary = fmt.Sprintf("%d of %d nodes: %s", nodes, total, f.what)
	}
	return Decoded{Cause: f.cause, Summary: summary, NextStep: f.next, Details: f.details, Nodes: nodes}
}

func schedLookup(text string) (schedFact, bool) {
	// The event recorder's aggregation suffix (before 1.10 it was added to
	// the message: "... (repeated 5 times)").
	if i := strings.Index(text, " (repeated "); i > 0 && strings.HasSuffix(text, " times)") {
		text = text[:i]
	}
	if f, ok := schedExact[text]; ok {
		return f, true
	}
	if claim, ok := schedBetween(text, `PersistentVolumeClaim is not bound: "`, `"`); ok {
		// predicates.go (1.3-1.9): "PersistentVolumeClaim is not bound: %q",
		// under "SchedulerPredicates failed due to %v, which is unexpected".
		return schedFact{cause: UnboundPVC, what: text, details: []chain.Detail{{Key: "claim", Value: claim}}}, true
	}
	if rest, ok := strings.CutPrefix(text, "SchedulerPredicates failed due to "); ok {
		return schedLookup(strings.TrimSuffix(rest, ", which is unexpected"))
	}
	if rest, ok := strings.CutPrefix(text, `error while running "`); ok {
		// framework.go 1.16-1.18: "error while running %q filter plugin for pod %q: %v".
		if _, inner, ok := strings.Cut(rest, `": `); ok {
			return schedLookup(inner)
		}
	}
	if f, ok := schedPredicates[text]; ok {
		return f, true
	}
	for _, p := range schedPatterns {
		if f, ok := p(text); ok {
			return f, true
		}
	}
	return schedPluginError(text)
}

// schedPredicates are the predicate names the scheduler printed instead of
// reasons in 1.5-1.9 ("No nodes are available that match all of the
// predicates: MatchNodeSelector (2)", plugin/pkg/scheduler/algorithm/
// predicates/error.go), some still seen in the 1.10+ histogram.
var schedPredicates = map[string]schedFact{
	"MatchNodeSelector":                     {cause: NodeAffinityMismatch, what: "node selector did not match (MatchNodeSelector)"},
	"NodeAffinity":                          {cause: NodeAffinityMismatch, what: "node affinity did not match"},
	"PodFitsHostPorts":                      {cause: NodePortConflict, what: "requested host ports in use (PodFitsHostPorts)"},
	"PodFitsPorts":                          {cause: NodePortConflict, what: "requested host ports in use (PodFitsPorts)"},
	"PodToleratesNodeTaints":                {cause: UntoleratedTaint, what: "taints the pod does not tolerate (PodToleratesNodeTaints)"},
	"PodToleratesNodeNoExecuteTaints":       {cause: UntoleratedTaint, what: "NoExecute taints the pod does not tolerate"},
	"CheckNodeMemoryPressure":               {cause: NodeMemoryPressure, what: "memory pressure (CheckNodeMemoryPressure)"},
	"CheckNodeDiskPressure":                 {cause: NodeDiskPressure, what: "disk pressure (CheckNodeDiskPressure)"},
	"CheckNodePIDPressure":                  {cause: NodePIDPressure, what: "PID pressure (CheckNodePIDPressure)"},
	"NodeOutOfDisk":                         {cause: NodeDiskPressure, what: "out of disk (NodeOutOfDisk)"},
	"NodeUnderMemoryPressure":               {cause: NodeMemoryPressure, what: "memory pressure"},
	"NodeUnderDiskPressure":                 {cause: NodeDiskPressure, what: "disk pressure"},
	"NodeUnderPIDPressure":                  {cause: NodePIDPressure, what: "PID pressure"},
	"CheckNodeCondition":                    {cause: NodeNotReady, what: "node not ready (CheckNodeCondition)"},
	"NodeNotReady":                          {cause: NodeNotReady, what: "node not ready"},
	"NodeNetworkUnavailable":                {cause: NodeNotReady, what: "node network unavailable"},
	"NodeUnknownCondition":                  {cause: NodeNotReady, what: "node condition unknown"},
	"CheckNodeUnschedulable":                {cause: NodeUnschedulable, what: "cordoned (CheckNodeUnschedulable)"},
	"NodeUnschedulable":                     {cause: NodeUnschedulable, what: "cordoned"},
	"MatchInterPodAffinity":                 {cause: PodAntiAffinityConflict, what: "inter-pod affinity or anti-affinity rules not satisfied (MatchInterPodAffinity)"},
	"PodAffinityRulesNotMatch":              {cause: PodAffinityUnsatisfied, what: "pod affinity rules not satisfied"},
	"PodAntiAffinityRulesNotMatch":          {cause: PodAntiAffinityConflict, what: "pod anti-affinity rules conflict with pods on the nodes"},
	"ExistingPodsAntiAffinityRulesNotMatch": {cause: PodAntiAffinityConflict, what: "existing pods' anti-affinity rules exclude the pod"},
	"NoVolumeZoneConflict":                  {cause: VolumeNodeAffinityConflict, what: "no node in the volume's zone (NoVolumeZoneConflict)"},
	"NoVolumeNodeConflict":                  {cause: VolumeNodeAffinityConflict, what: "volume node affinity conflict (NoVolumeNodeConflict)"},
	"VolumeNodeAffinityConflict":            {cause: VolumeNodeAffinityConflict, what: "volume node affinity conflict"},
	"VolumeBindingNoMatch":                  {cause: UnboundPVC, what: "no available persistent volume to bind"},
	"CheckVolumeBinding":                    {cause: UnboundPVC, what: "volumes could not be bound (CheckVolumeBinding)"},
	"MaxEBSVolumeCount":                     {cause: VolumeLimitExceeded, what: "EBS volume attach limit reached (MaxEBSVolumeCount)"},
	"MaxGCEPDVolumeCount":                   {cause: VolumeLimitExceeded, what: "GCE PD volume attach limit reached (MaxGCEPDVolumeCount)"},
	"MaxAzureDiskVolumeCount":               {cause: VolumeLimitExceeded, what: "Azure disk attach limit reached (MaxAzureDiskVolumeCount)"},
	"MaxCSIVolumeCountPred":                 {cause: VolumeLimitExceeded, what: "CSI volume attach limit reached"},
	"MaxVolumeCount":                        {cause: VolumeLimitExceeded, what: "volume attach limit reached"},
	"HostName":                              {cause: NodeNameMismatch, what: "requested node name did not match (HostName)"},
	"PodFitsHost":                           {cause: NodeNameMismatch, what: "requested node name did not match (PodFitsHost)"},
}

// schedInsufficient decodes noderesources/fit.go "Insufficient %v": cpu,
// memory and ephemeral-storage have their own causes, any other name is an
// extended resource (nvidia.com/gpu, hugepages-2Mi, ...).
func schedInsufficient(text string) (schedFact, bool) {
	name, ok := strings.CutPrefix(text, "Insufficient ")
	if !ok || name == "" || strings.ContainsAny(name, " \t") {
		return schedFact{}, false
	}
	what := "insufficient " + name
	switch strings.ToLower(name) {
	case "pods":
		// The node's pod capacity, named so before 1.18 ("Too many pods" since).
		return schedFact{cause: TooManyPods, what: "too many pods (insufficient pods)"}, true
	case "cpu":
		return schedFact{cause: InsufficientCPU, what: what}, true
	case "memory":
		return schedFact{cause: InsufficientMemory, what: what}, true
	case "ephemeral-storage":
		return schedFact{cause: InsufficientEphemeralStorage, what: what}, true
	}
	return schedFact{cause: InsufficientExtendedResource, what: what,
		next:    fmt.Sprintf("lower the %s request in spec.template.spec.containers[].resources, or add nodes whose device plugin advertises %s (Allocatable in kubectl describe nodes)", name, name),
		details: []chain.Detail{{Key: "resource", Value: name}}}, true
}

// schedulingGated decodes a PodScheduled condition with reason
// SchedulingGated, which the API server sets (pkg/registry/core/pod/
// strategy.go) while spec.schedulingGates is not empty.
func schedulingGated(message string) Decoded {
	d := Decoded{Cause: SchedulingGated, Summary: "scheduling is blocked by spec.schedulingGates"}
	if f, ok := schedGates(strings.TrimSpace(message)); ok {
		d.Summary, d.Details = f.what, f.details
	}
	return d
}

// schedNoNodes is a FitError over zero nodes with no reason at all.
func schedNoNodes(msg string) Decoded {
	return Decoded{Cause: NoNodesAvailable, Summary: strings.TrimSuffix(msg, ".")}
}
