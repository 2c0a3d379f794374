package decode

import (
	"regexp"
	"strings"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Node autoscalers answer a pending pod with their own events: the cluster
// autoscaler's NotTriggerScaleUp ("pod didn't trigger scale-up: ...",
// cluster-autoscaler/processors/status/eventing_scale_up_processor.go) and
// Karpenter's FailedScheduling ("Failed to schedule pod, incompatible with
// nodepool ...", pkg/controllers/provisioning/scheduling). They say why no
// new node would help, which is the next step the scheduler's reasons
// (about the nodes that exist) cannot give.
const (
	ScaleUpNotTriggered chain.CauseID = "ScaleUpNotTriggered"
	NoNodePoolFits      chain.CauseID = "NoNodePoolFits"
)

var autoscalerCauses = []Cause{
	{ID: ScaleUpNotTriggered, Link: chain.LinkNodeAssignment,
		Summary:  "no node fits, and the cluster autoscaler will not add one: no node group could fit the pod",
		NextStep: "read the autoscaler's reasons: a node group at its max size (raise it), or no group whose nodes would fit the pod (its requests, nodeSelector, affinity, tolerations against the groups' templates)",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: NoNodePoolFits, Link: chain.LinkNodeAssignment,
		Summary:  "no node fits, and Karpenter has no NodePool and instance type that satisfies the pod",
		NextStep: "compare the pod's requests, nodeSelector, affinity and tolerations with the NodePools' requirements and limits (kubectl get nodepools -o yaml); a NodePool at its limits needs them raised",
		Terminal: TerminalRule{Mode: AfterGrace}},
}

var (
	// caNotTriggeredRE matches "pod didn't trigger scale-up: %s" and its
	// older forms "pod didn't trigger scale-up (it wouldn't fit if a new
	// node is added)" and "...: N max node group size reached".
	caNotTriggeredRE = regexp.MustCompile(`(?s)pod didn't trigger scale-up(?: \(([^)]*)\))?(?::\s*(.*))?$`)
	karpenterWords   = []string{"incompatible with nodepool", "incompatible with provisioner", "no instance type",
		"all available instance types exceed limits", "instance types exceed limits", "could not schedule pod",
		"did not tolerate", "no nodepools found", "no provisioners found"}
)

// Autoscaler decodes a node autoscaler's refusal to add a node for a pod.
// ok is false for anything else, including the scale-ups themselves (the
// walk weighs those as progress).
func Autoscaler(reason, message string) (Decoded, bool) {
	msg := strings.TrimSpace(message)
	if m := caNotTriggeredRE.FindStringSubmatch(msg); m != nil || reason == "NotTriggerScaleUp" {
		d := Decoded{Cause: ScaleUpNotTriggered, Summary: "the cluster autoscaler will not add a node: " + rtOneLine(msg)}
		if m != nil {
			why := strings.TrimSpace(strings.Join([]string{m[1], m[2]}, " "))
			if why != "" {
				d.Details = []chain.Detail{{Key: "reasons", Value: rtOneLine(why)}}
				if strings.Contains(why, "max node group size reached") || strings.Contains(why, "max cluster") {
					d.NextStep = "a node group that would fit the pod is at its maximum size: raise its max (or the cluster's limits), or lower the pod's requests"
				}
			}
		}
		return d, true
	}
	lower := strings.ToLower(msg)
	if strings.Contains(lower, "karpenter") || strings.Contains(lower, "nodepool") || strings.Contains(lower, "provisioner") || strings.Contains(lower, "instance type") {
		for _, w := range karpenterWords {
			if strings.Contains(lower, w) {
				d := Decoded{Cause: NoNodePoolFits, Summary: "Karpenter cannot provide a node for the pod: " + rtOneLine(msg)}
				if strings.Contains(lower, "exceed limits") {
					d.NextStep = "the NodePool is at its spec.limits: raise them (kubectl edit nodepool NAME) or free capacity"
				}
				return d, true
			}
		}
	}
	return Decoded{}, false
}
