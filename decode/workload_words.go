package decode

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// What the daemon set, StatefulSet and node lifecycle controllers say, as
// their events and the node's and pod's status words: a daemon pod that
// failed and is recreated, a node a daemon pod cannot be placed on, a node
// that stopped reporting.

// FailedPodRecreated: a pod of a DaemonSet or StatefulSet reached phase
// Failed and its controller deletes and recreates it.
const FailedPodRecreated chain.CauseID = "FailedPodRecreated"

var workloadEventCauses = []Cause{
	{ID: FailedPodRecreated, Link: chain.LinkPods,
		Summary:  "a pod of the DaemonSet or StatefulSet reached phase Failed (rejected by its node's kubelet, evicted, or stopped with its node), so the controller deletes and recreates it; when it repeats, the node keeps failing it",
		NextStep: "read the failed pod's status.reason and message before it is replaced (kubectl get pods -n {NAMESPACE} -o wide --field-selector status.phase=Failed; OutOfcpu, NodeAffinity, Evicted, ...), then fix the node or the template",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 3}},
}

var (
	// daemon_controller.go (1.6+): "Found failed daemon pod %s/%s on node
	// %s, will try to kill it" (1.6 swapped the pod and node names).
	daemonFailedRE = regexp.MustCompile(`Found failed daemon pod (\S+) on node (\S+), will try to kill it`)
	// daemon_controller.go (1.3-1.11): "failed to place pod on %q: %s".
	daemonPlaceRE = regexp.MustCompile(`^failed to place pod on "([^"]*)": (.*)$`)
	// predicates/error.go InsufficientResourceError.Error (1.5-1.11).
	insufficientResourceRE = regexp.MustCompile(`^Node didn't have enough resource: (\S+), requested: (\d+), used: (\d+), capacity: (\d+)$`)
	// stateful_set_control.go (1.10-1.26): "StatefulSet %s/%s is recreating
	// failed Pod %s".
	statefulRecreateRE = regexp.MustCompile(`StatefulSet (\S+) is recreating failed Pod (\S+)`)
	// node lifecycle controller: the pod status of a node that stopped
	// reporting (util/node: "Node %v which was running pod %v is
	// unresponsive") and the node's event ("Node %s status is now: %s").
	nodeUnresponsiveRE = regexp.MustCompile(`Node (\S+) which was running pod (\S+) is unresponsive`)
	nodeStatusNowRE    = regexp.MustCompile(`^Node (\S+) status is now: NodeNotReady$`)
)

// WorkloadWords decodes the daemon set, StatefulSet and node lifecycle
// controllers' messages, the claims' (ClaimWords), and the StatefulSet
// and OpenKruise CloneSet controllers' FailedCreate wrappers around the
// API server's error.
func WorkloadWords(message string) (Decoded, bool) {
	m := strings.TrimSpace(message)
	if statefulSetFailed.MatchString(m) || cloneSetFailedRE.MatchString(m) {
		return FailedCreate(m), true
	}
	if d, ok := ClaimWords(m); ok {
		return d, true
	}
	if d, ok := NodeGoneWords(m); ok {
		return d, true
	}
	if sm := daemonFailedRE.FindStringSubmatch(m); sm != nil {
		return Decoded{Cause: FailedPodRecreated,
			Summary: fmt.Sprintf("daemon pod %s failed on node %s and is recreated", sm[1], sm[2]),
			Details: []chain.Detail{{Key: "pod", Value: sm[1]}, {Key: "node", Value: sm[2]}}}, true
	}
	if sm := statefulRecreateRE.FindStringSubmatch(m); sm != nil {
		return Decoded{Cause: FailedPodRecreated,
			Summary: fmt.Sprintf("pod %s of StatefulSet %s failed and is recreated", sm[2], sm[1]),
			Details: []chain.Detail{{Key: "pod", Value: sm[2]}}}, true
	}
	if sm := daemonPlaceRE.FindStringSubmatch(m); sm != nil {
		return daemonPlacement(sm[1], strings.TrimSpace(sm[2])), true
	}
	if m == "This daemon set is selecting all pods. A non-empty selector is required." {
		return Decoded{Cause: SelectorMissing, Summary: "the DaemonSet's selector is empty, so it would select every pod: the controller does nothing",
			NextStep: "set spec.selector.matchLabels to the labels of spec.template.metadata.labels (apps/v1 requires it)"}, true
	}
	return Decoded{}, false
}

// daemonPlacement decodes why the daemon set controller (before 1.12 it
// placed its pods itself) could not place a pod on a node: the resource
// the node lacked, or the predicate that failed, as the scheduler names it.
func daemonPlacement(node, why string) Decoded {
	text := why
	if sm := insufficientResourceRE.FindStringSubmatch(why); sm != nil {
		text = "Insufficient " + sm[1]
	} else if why == "host port conflict" {
		text = "PodFitsHostPorts"
	}
	d := schedClause(text, 0, 0, false)
	d.Summary = fmt.Sprintf("node %s: %s", node, why)
	d.Details = append([]chain.Detail{{Key: "node", Value: node}}, d.Details...)
	return d
}

// NodeGoneWords decodes the node lifecycle controller's words about a node
// that stopped reporting or is NotReady: its conditions' message, the pods'
// NodeNotReady event and NodeLost status, the node's own event. The walk
// asks it about the node a pod was on.
func NodeGoneWords(m string) (Decoded, bool) {
	gone := func(summary string, details ...chain.Detail) (Decoded, bool) {
		return Decoded{Cause: NodeNotReady, Summary: summary, Details: details}, true
	}
	switch {
	case strings.Contains(m, "Kubelet stopped posting node status"):
		return gone("the node's kubelet stopped posting its status (condition Unknown): the node is down, unreachable, or its kubelet stopped")
	case strings.Contains(m, "Kubelet never posted node status"):
		return gone("the node's kubelet never posted its status: it never joined, or cannot reach the API server")
	case m == "Node is not ready":
		return gone("the pod's node is not ready: its pods are marked not ready and evicted after the toleration's time")
	case m == "NodeLost":
		return gone("the pod's node stopped reporting (NodeLost): its state is unknown")
	}
	if sm := nodeUnresponsiveRE.FindStringSubmatch(m); sm != nil {
		return gone(fmt.Sprintf("node %s, which ran pod %s, stopped reporting: the pod's state is unknown", sm[1], sm[2]),
			chain.Detail{Key: "node", Value: sm[1]})
	}
	if sm := nodeStatusNowRE.FindStringSubmatch(m); sm != nil {
		return gone(fmt.Sprintf("node %s turned NotReady", sm[1]), chain.Detail{Key: "node", Value: sm[1]})
	}
	return Decoded{}, false
}

// workloadReasons are the reasons explain hands to WorkloadWords.
var workloadReasons = append([]string{"FailedDaemonPod", "FailedPlacement", "SelectingAll", "RecreatingFailedPod",
	"NodeNotReady", "NodeStatusUnknown", "NodeStatusNeverUpdated", "NodeLost"}, claimReasons...)

func explainWorkload(_, message string) []Decoded {
	if d, ok := WorkloadWords(message); ok {
		return []Decoded{d}
	}
	return nil
}
