package diagnose

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

// schedTaint decodes the taint wordings that name the taint: v1.19-v1.34
// "node(s) had untolerated taint {%s: %s}" and the older
// "node(s) had taint {%s: %s}, that the pod didn't tolerate". Neither says
// the effect.
func schedTaint(text string) (schedFact, bool) {
	inner, ok := schedBetween(text, "node(s) had untolerated taint {", "}")
	if !ok {
		inner, ok = schedBetween(text, "node(s) had taint {", "}, that the pod didn't tolerate")
	}
	if !ok {
		return schedFact{}, false
	}
	key, value, ok := strings.Cut(inner, ":")
	key, value = strings.TrimSpace(key), strings.TrimSpace(value)
	if !ok || key == "" {
		return schedFact{}, false
	}
	switch key {
	case "node.cloudprovider.kubernetes.io/uninitialized":
		return schedFact{cause: NodeUninitialized, what: "not initialized by the cloud controller manager {" + inner + "}",
			details: []chain.Detail{{Key: "key", Value: key}, {Key: "value", Value: value}}}, true
	case "node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable", "node.kubernetes.io/network-unavailable",
		"node.kubernetes.io/out-of-service":
		return schedFact{cause: NodeNotReady, what: "node condition taint {" + inner + "}",
			next: schedTolerationStep(key, value), details: []chain.Detail{{Key: "key", Value: key}, {Key: "value", Value: value}}}, true
	case "node.kubernetes.io/memory-pressure", "node.kubernetes.io/disk-pressure", "node.kubernetes.io/pid-pressure":
		// The catalogue's next step for each resource says what to free.
		return schedFact{cause: pressureTaints[key], what: "node pressure taint {" + inner + "}",
			details: []chain.Detail{{Key: "key", Value: key}, {Key: "value", Value: value}}}, true
	case "node.kubernetes.io/unschedulable":
		return schedFact{cause: NodeUnschedulable, what: "cordoned {" + inner + "}",
			next: schedTolerationStep(key, value), details: []chain.Detail{{Key: "key", Value: key}, {Key: "value", Value: value}}}, true
	}
	return schedFact{cause: UntoleratedTaint,
		what:    "untolerated taint {" + inner + "}",
		next:    schedTolerationStep(key, value),
		details: []chain.Detail{{Key: "key", Value: key}, {Key: "value", Value: value}}}, true
}

// pressureTaints are the taints the node lifecycle controller sets from
// the pressure conditions (k8s.io/api core/v1 well_known_taints.go).
var pressureTaints = map[string]chain.CauseID{"node.kubernetes.io/memory-pressure": NodeMemoryPressure,
	"node.kubernetes.io/disk-pressure": NodeDiskPressure, "node.kubernetes.io/pid-pressure": NodePIDPressure}

// schedTolerationStep is the fix for one named taint. Taints under
// node.kubernetes.io/ are set by Kubernetes from node conditions (not-ready,
// unreachable, disk-pressure, ...): tolerating them hides a sick node.
func schedTolerationStep(key, value string) string {
	if strings.HasPrefix(key, "node.kubernetes.io/") || strings.HasPrefix(key, "node.cloudprovider.kubernetes.io/") {
		return fmt.Sprintf("the nodes carry the %s taint that Kubernetes sets from a node condition: fix the nodes (kubectl describe nodes: Conditions, Taints) rather than tolerating it", key)
	}
	toleration := fmt.Sprintf("{key: %q, operator: \"Exists\"}", key)
	if value != "" {
		toleration = fmt.Sprintf("{key: %q, operator: \"Equal\", value: %q}", key, value)
	}
	return fmt.Sprintf("add a toleration %s to spec.template.spec.tolerations, or remove the taint: kubectl taint nodes NODE %s-", toleration, key)
}

// schedPVCMissing decodes the VolumeBinding PreFilter's lister error
// ('persistentvolumeclaim "data" not found') and its wording for a generic
// ephemeral volume whose claim is not created yet. Both are PreFilter
// messages: they stand for every node and carry no count.
func schedPVCMissing(text string) (schedFact, bool) {
	// volumebinding/binder.go wraps the lister error: "error getting PVC %q: %v".
	if rest, ok := strings.CutPrefix(text, `error getting PVC "`); ok {
		if _, inner, ok := strings.Cut(rest, `": `); ok {
			if f, ok := schedPVCMissing(inner); ok {
				f.what = text
				return f, true
			}
		}
		return schedFact{}, false
	}
	if claim, rest, ok := strings.Cut(text, `" bound to non-existent persistentvolume "`); ok && strings.HasPrefix(claim, `persistentvolumeclaim "`) {
		// volumebinding/binder.go (1.26+): "persistentvolumeclaim %q bound
		// to non-existent persistentvolume %q".
		pv := strings.TrimSuffix(rest, `"`)
		return schedFact{cause: PVNotFound, what: text,
			next:    fmt.Sprintf("PersistentVolume %q, which claim %q is bound to, does not exist: recreate it, or delete and recreate the claim so it binds anew", pv, strings.TrimPrefix(claim, `persistentvolumeclaim "`)),
			details: []chain.Detail{{Key: "claim", Value: strings.TrimPrefix(claim, `persistentvolumeclaim "`)}, {Key: "volume", Value: pv}}}, true
	}
	if name, ok := schedBetween(text, `persistentvolume "`, `" not found`); ok && !strings.Contains(name, `"`) {
		return schedFact{cause: PVNotFound, what: text,
			next:    fmt.Sprintf("PersistentVolume %q, which a claim of the pod is bound to, does not exist: recreate it, or delete and recreate the claim so it binds anew", name),
			details: []chain.Detail{{Key: "volume", Value: name}}}, true
	}
	if name, ok := schedBetween(text, `persistentvolumeclaim "`, `" not found`); ok && !strings.Contains(name, `"`) {
		return schedFact{cause: PVCNotFound, what: text,
			next:    fmt.Sprintf("create PersistentVolumeClaim %q in the pod's namespace, or fix spec.template.spec.volumes[].persistentVolumeClaim.claimName", name),
			details: []chain.Detail{{Key: "claim", Value: name}}}, true
	}
	if name, ok := schedBetween(text, `waiting for ephemeral volume controller to create the persistentvolumeclaim "`, `"`); ok && !strings.Contains(name, `"`) {
		return schedFact{cause: PVCNotFound, what: text,
			next:    "the ephemeral volume controller (kube-controller-manager) creates this claim from spec.template.spec.volumes[].ephemeral; if it lasts, check kube-controller-manager",
			details: []chain.Detail{{Key: "claim", Value: name}}}, true
	}
	return schedFact{}, false
}

// schedGates decodes schedulinggates/scheduling_gates.go "waiting for
// scheduling gates: %v".
func schedGates(text string) (schedFact, bool) {
	gates, ok := schedBetween(text, "waiting for scheduling gates: [", "]")
	if !ok {
		return schedFact{}, false
	}
	return schedFact{cause: SchedulingGated, what: text,
		details: []chain.Detail{{Key: "gates", Value: gates}}}, true
}

// schedPluginError unwraps the framework's plugin errors (framework/runtime/
// framework.go "running PreFilter plugin %q: %w", "running %q filter plugin:
// %w") and decodes what the plugin said.
func schedPluginError(text string) (schedFact, bool) {
	var plugin, inner string
	if rest, ok := strings.CutPrefix(text, `running PreFilter plugin "`); ok {
		plugin, inner, ok = strings.Cut(rest, `": `)
		if !ok {
			return schedFact{}, false
		}
	} else if rest, ok := strings.CutPrefix(text, `running "`); ok {
		plugin, inner, ok = strings.Cut(rest, `" filter plugin: `)
		if !ok {
			return schedFact{}, false
		}
	} else {
		return schedFact{}, false
	}
	f, ok := schedExact[inner]
	for i := 0; !ok && i < len(schedPatterns); i++ {
		f, ok = schedPatterns[i](inner)
	}
	if !ok {
		return schedFact{}, false
	}
	f.details = append([]chain.Detail{{Key: "plugin", Value: plugin}}, f.details...)
	return f, true
}

// schedBetween returns what lies between prefix and suffix when text is
// exactly prefix + value + suffix.
func schedBetween(text, prefix, suffix string) (string, bool) {
	if len(text) < len(prefix)+len(suffix) || !strings.HasPrefix(text, prefix) || !strings.HasSuffix(text, suffix) {
		return "", false
	}
	return text[len(prefix) : len(text)-len(suffix)], true
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
