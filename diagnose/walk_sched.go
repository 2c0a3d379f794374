package diagnose

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// scaleUpWindow is how long a triggered scale-up counts as under way: the
// cluster autoscaler gives up on a node that has not registered after its
// --max-node-provision-time, 15 minutes by default, and Karpenter deletes
// a NodeClaim whose node has not registered after its registrationTTL, 15
// minutes too (pkg/controllers/nodeclaim/lifecycle/liveness.go).
const scaleUpWindow = 15 * time.Minute

// Karpenter's nomination event (kubernetes-sigs/karpenter
// pkg/controllers/provisioning/scheduling/events.go NominatePodEvent):
// Normal "Nominated", "Pod should schedule on: %s" with "nodeclaim/%s"
// and/or "node/%s". The kube-scheduler emits no event of that reason.
const (
	karpenterNominated      = "Nominated"
	karpenterNominatePrefix = "Pod should schedule on: "
)

// nodeAssignment: the scheduler wrote a node name into every pod, or said
// per plugin why no node fits.
func (w *walker) nodeAssignment() chain.Link {
	if len(w.pods) == 0 {
		return notReached(chain.LinkNodeAssignment, "no pods")
	}
	c := &collector{}
	var notes []string
	scheduled := 0
	for _, p := range w.pods {
		if p.Spec.NodeName != "" {
			scheduled++
			w.nodeGone(c, p)
			continue
		}
		for _, n := range w.unscheduled(c, p) {
			notes = appendUnique(notes, n)
		}
	}
	w.daemonPortNodes(c)
	summary := fmt.Sprintf("%d/%d pods scheduled", scheduled, len(w.pods))
	l := w.finish(chain.LinkNodeAssignment, summary, c, len(w.pods))
	l.Notes = notes
	return l
}

// unscheduled decodes one pending pod: the PodScheduled condition first (it
// does not expire), the newest FailedScheduling event second.
func (w *walker) unscheduled(c *collector, p *corev1.Pod) []string {
	obj := objectName("pod", p.Name)
	evs := w.s.EventsFor("Pod", p.Name, p.UID)
	var (
		res      decode.SchedulingResult
		evidence chain.Evidence
		since    = p.CreationTimestamp.Time
		repeats  int32
		found    bool
	)
	for _, cond := range p.Status.Conditions {
		if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionFalse && (cond.Message != "" || cond.Reason != "") {
			res = decode.Scheduling(cond.Reason, cond.Message)
			evidence = conditionEvidence(obj, string(cond.Type), string(cond.Status), cond.Reason, cond.Message)
			since, found = cond.LastTransitionTime.Time, true
		}
	}
	for i := len(evs) - 1; i >= 0; i-- {
		e := evs[i]
		if e.Reason != "FailedScheduling" {
			continue
		}
		if _, ok := decode.Autoscaler(e.Reason, eventMessage(e)); ok {
			continue // Karpenter's, weighed by provisioning
		}
		repeats = e.Count
		if !found || len(res.Reasons) == 0 {
			res = decode.Scheduling(e.Reason, eventMessage(e))
			evidence = eventEvidence(e)
			since, found = e.First, true
		}
		break
	}
	res.Reasons = w.daemonPinned(p, res.Reasons)
	scaleUp, refusal, notes := w.provisioning(p, evs)
	if refusal != nil {
		d, _ := decode.Autoscaler(refusal.Reason, eventMessage(*refusal))
		ev := []chain.Evidence{eventEvidence(*refusal)}
		at := refusal.First
		if found {
			// The pod has waited since the scheduler first said no.
			ev = append([]chain.Evidence{evidence}, ev...)
			if since.Before(at) {
				at = since
			}
		}
		if specific := schedSpecific(res.Reasons); len(specific) > 0 && d.Cause == decode.ScaleUpNotTriggered {
			// The scheduler names what the pod lacks on the nodes there
			// are (a selector, a resource, a volume's zone); the
			// autoscaler only adds that no new node would change it: its
			// words are a detail of each reason, and no node is coming.
			for _, r := range specific {
				r.Details = append(r.Details, chain.Detail{Key: "autoscaler", Value: oneLine(eventMessage(*refusal))})
				c.add(sighting{d: r, object: obj, since: at, repeats: repeats, evidence: ev})
			}
			return notes
		}
		// The autoscaler says no new node would help and the scheduler
		// names nothing more specific, or Karpenter names the NodePool
		// requirement no instance type meets: its reasons are the next
		// step.
		for _, r := range res.Reasons {
			d.Details = append(d.Details, chain.Detail{Key: "unschedulable", Value: r.Summary})
		}
		c.add(sighting{d: d, object: obj, since: at, repeats: refusal.Count, evidence: ev})
		return notes
	}
	if !found || len(res.Reasons) == 0 {
		c.add(sighting{d: decode.Decoded{Cause: decode.SchedulingPending, Progressing: true}, object: obj, since: p.CreationTimestamp.Time,
			evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "spec.nodeName",
				Message: "no node assigned and no scheduling condition or event yet"}}})
		return notes
	}
	if scaleUp != nil {
		// The autoscaler is adding a node for this pod: the scheduler's
		// reason (what the nodes lack) stays the cause, as progress while
		// the node boots, so its grace does not run out before a node can
		// come; the scale-up is a note and each reason's detail. Once the
		// provisioning window passed, provisioning drops the scale-up and
		// the reasons are failures again.
		notes = appendUnique(notes, fmt.Sprintf("%s: %s", scaleUpWho(scaleUp), eventMessage(*scaleUp)))
		for _, d := range res.Reasons {
			d.Progressing = true
			d.Details = append(d.Details, chain.Detail{Key: "scale-up", Value: oneLine(eventMessage(*scaleUp))})
			d.NextStep = scaleUpStep(d)
			c.add(sighting{d: d, object: obj, repeats: repeats, evidence: []chain.Evidence{evidence, eventEvidence(*scaleUp)}})
		}
		return notes
	}
	if node := p.Status.NominatedNodeName; node != "" {
		// Preemption is under way: the scheduler evicts lower-priority
		// pods from the node and holds it for this one, which binds once
		// they have left (their graceful termination can be long). The
		// scheduler clears the nomination when preemption no longer
		// helps, so while it is set the shortage is being fixed: progress,
		// with no grace clock to run out.
		notes = appendUnique(notes, fmt.Sprintf("pod %s: preemption nominated node %s", p.Name, node))
		for _, d := range res.Reasons {
			d.Progressing = true
			c.add(sighting{d: d, object: obj, repeats: repeats, evidence: []chain.Evidence{evidence}})
		}
		return notes
	}
	// The preemption clause stays in the verbatim evidence; as a detail it
	// would only repeat it.
	for _, d := range res.Reasons {
		c.add(sighting{d: d, object: obj, since: since, repeats: repeats, evidence: []chain.Evidence{evidence}})
	}
	return notes
}

// provisioning finds, in a pending pod's events (oldest first), the node
// autoscaler's newest word: that a node is on its way (a cluster autoscaler
// TriggeredScaleUp or a Karpenter Nominated, unless the provisioning window
// has passed), or that none will come (NotTriggerScaleUp, Karpenter's
// FailedScheduling).
func (w *walker) provisioning(p *corev1.Pod, evs []chain.Event) (scaleUp, refusal *chain.Event, notes []string) {
	for i := len(evs) - 1; i >= 0; i-- {
		e := evs[i]
		switch {
		case e.Reason == "TriggeredScaleUp",
			// Karpenter launches (or found) a node for the pod.
			e.Reason == karpenterNominated && e.Type == corev1.EventTypeNormal &&
				strings.HasPrefix(eventMessage(e), karpenterNominatePrefix):
			if scaleUp == nil && refusal == nil {
				scaleUp = &evs[i]
			}
		default:
			if _, ok := decode.Autoscaler(e.Reason, eventMessage(e)); ok && e.Type == corev1.EventTypeWarning || e.Reason == "NotTriggerScaleUp" {
				if scaleUp == nil && refusal == nil {
					refusal = &evs[i]
				}
			}
		}
	}
	if scaleUp != nil && w.s.Now.Sub(scaleUp.Last) > scaleUpWindow {
		notes = append(notes, fmt.Sprintf("%s on pod %s, %s before this snapshot and no node since: %s",
			provisioner(scaleUp), p.Name, w.s.Now.Sub(scaleUp.Last).Round(time.Second), scaleUp.Message))
		scaleUp = nil
	}
	return scaleUp, refusal, notes
}

// scaleUpWho says who is providing a node, for a pending pod's note.
func scaleUpWho(e *chain.Event) string {
	if e.Reason == karpenterNominated {
		return "Karpenter is providing a node"
	}
	return "the cluster autoscaler is adding a node"
}

// scaleUpStep is the next step of a scheduler reason while a node is on
// its way: wait for it, and what to change if it does not fit either.
func scaleUpStep(d decode.Decoded) string {
	step := d.NextStep
	if c, ok := decode.Lookup(d.Cause); ok && step == "" {
		step = c.Step
	}
	return "wait for the new node (kubectl get nodes -w); if the pod still does not fit on it: " + step
}

// schedSpecific keeps the scheduler's reasons that name what the nodes
// lack or what rules them out: all but the ones it does not decode.
func schedSpecific(rs []decode.Decoded) []decode.Decoded {
	var out []decode.Decoded
	for _, r := range rs {
		if r.Cause != decode.UnschedulableOther && r.Cause != "" {
			out = append(out, r)
		}
	}
	return out
}

// provisioner names who said a node is coming.
func provisioner(e *chain.Event) string {
	if e.Reason == karpenterNominated {
		return "Karpenter"
	}
	return "cluster autoscaler"
}
