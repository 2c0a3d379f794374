package decode

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Resize causes: an in-place resize (InPlacePodVerticalScaling) the kubelet
// did not grant. It reports them on the PodResizePending condition (1.33+,
// reason Infeasible or Deferred; status.resize from 1.27 to 1.32), as
// ResizeInfeasible and ResizeDeferred events (pkg/kubelet/events/resize.go),
// and since 1.37 the API server refuses a resize larger than the node
// (plugin/pkg/admission/podresize). The pod keeps running with its old
// resources meanwhile.
const (
	// PodResizeInfeasible is a resize the node can never grant.
	PodResizeInfeasible chain.CauseID = "PodResizeInfeasible"
	// PodResizeDeferred is a resize that waits for other pods to free room.
	PodResizeDeferred chain.CauseID = "PodResizeDeferred"
)

var resizeCauses = []Cause{
	{ID: PodResizeInfeasible, Link: chain.LinkContainers,
		Summary:  "an in-place resize of the pod's resources can never be granted on its node (more than the node has, a static CPU or memory manager policy, swap, Windows, or the feature off there); the pod runs on with its old resources",
		NextStep: "resize to what the node can hold (kubectl get node {NODE} -o jsonpath='{.status.allocatable}'), or change the workload's template so the pod is recreated and scheduled on a node that fits",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: PodResizeDeferred, Link: chain.LinkContainers,
		Summary:  "an in-place resize waits for room on the pod's node: other pods hold the resources it asks for; the kubelet retries as they leave",
		NextStep: "wait, or free the node (kubectl describe node {NODE} shows what its pods request), resize to less, or recreate the pod so the scheduler places it where it fits",
		// The kubelet grants it as soon as room frees up: progress, however long.
		Terminal: TerminalRule{Mode: Transient}},
}

// resizeFitRE is the kubelet's "RESOURCE, requested: N, [used: N, ]capacity:
// N" (allocation_manager.go, lifecycle/predicate.go) and the 1.37 admission's
// "RESOURCE, requested: N, allocatable: N".
var resizeFitRE = regexp.MustCompile(`(cpu|memory), requested: (\d+), (?:used: (\d+), )?(?:capacity|allocatable): (\d+)`)

// resizeInfeasibleWords are the kubelet's and the admission's reasons a
// resize is infeasible, in every release since the PodResizePending
// condition.
var resizeInfeasibleWords = []string{"Pod resize Infeasible", "Node didn't have enough capacity", "Resize is infeasible",
	"In-place resize of containers with swap", "In-place pod resize is not supported", "In-place pod-level resources resize is not supported",
	"InPlacePodVerticalScaling is disabled", "InPlacePodLevelResourcesVerticalScaling is disabled", "node didn't have enough allocatable resources", "pod resize is only supported on linux nodes"}

// resizeWords decodes a resize the node did not grant.
func resizeWords(message string) (Decoded, bool) {
	var d Decoded
	switch {
	case strings.Contains(message, "Pod resize Deferred") || strings.Contains(message, "PodResizePending") && strings.Contains(message, "Deferred"):
		d = Decoded{Cause: PodResizeDeferred, Progressing: true, Summary: "the in-place resize waits for room on the node"}
	case strings.Contains(message, "PodResizePending") && strings.Contains(message, "Infeasible"):
		d = Decoded{Cause: PodResizeInfeasible, Summary: "the node cannot grant the in-place resize"}
	default:
		for _, w := range resizeInfeasibleWords {
			if strings.Contains(message, w) {
				d = Decoded{Cause: PodResizeInfeasible, Summary: "the node cannot grant the in-place resize: " + resizeWhy(message, w)}
				break
			}
		}
		if d.Cause == "" {
			return Decoded{}, false
		}
	}
	if m := resizeFitRE.FindStringSubmatch(message); m != nil {
		d.Details = []chain.Detail{{Key: "resource", Value: m[1]}, {Key: "requested", Value: m[2]}, {Key: "capacity", Value: m[4]}}
		unit := "bytes"
		if m[1] == "cpu" {
			unit = "millicores"
		}
		if m[3] != "" {
			d.Details = append(d.Details, chain.Detail{Key: "used", Value: m[3]})
			d.Summary = fmt.Sprintf("the resize asks for %s %s of %s, the node has %s (%s used by other pods)", m[2], unit, m[1], m[4], m[3])
		} else {
			d.Summary = fmt.Sprintf("the resize asks for %s %s of %s, more than the node's %s", m[2], unit, m[1], m[4])
		}
	}
	return d, true
}

// resizeWhy is the kubelet's own reason, without the event's JSON around it.
func resizeWhy(message, word string) string {
	if i := strings.Index(message, `"error":"`); i >= 0 {
		why := message[i+len(`"error":"`):]
		if j := strings.LastIndex(why, `"}`); j >= 0 {
			why = why[:j]
		}
		return strings.ReplaceAll(why, `\"`, `"`)
	}
	if i := strings.Index(message, word); i >= 0 {
		return rtOneLine(message[i:])
	}
	return rtOneLine(message)
}

// resizeReasons are the PodResizePending condition's reasons and the
// kubelet's resize events (pkg/kubelet/events/event.go).
var resizeReasons = []string{"Infeasible", "Deferred", "ResizeInfeasible", "ResizeDeferred"}

// Resize decodes a resize reason with its message; the reason alone
// tells the two apart when the message is the kubelet's admission wording
// ("Node didn't have enough resource" is also a pod it refused). The walk
// asks it about a pod's PodResizePending condition or status.resize.
func Resize(reason, message string) Decoded {
	d, ok := resizeWords(message)
	deferred := reason == "Deferred" || reason == "ResizeDeferred"
	switch {
	case ok && (d.Cause == PodResizeDeferred) == deferred:
	case deferred:
		d = Decoded{Cause: PodResizeDeferred, Progressing: true, Summary: strings.TrimSuffix("the in-place resize waits for room on the node: "+rtOneLine(message), ": ")}
	default:
		d = Decoded{Cause: PodResizeInfeasible, Summary: strings.TrimSuffix("the node cannot grant the in-place resize: "+rtOneLine(message), ": ")}
	}
	if m := resizeFitRE.FindStringSubmatch(message); m != nil && d.Details == nil {
		d.Details = []chain.Detail{{Key: "resource", Value: m[1]}, {Key: "requested", Value: m[2]}, {Key: "capacity", Value: m[4]}}
	}
	return d
}

func explainResize(reason, message string) []Decoded {
	return []Decoded{Resize(reason, message)}
}
