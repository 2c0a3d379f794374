package diagnose

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// scaleUpWindow is how long a triggered scale-up counts as under way: the
// cluster autoscaler gives up on a node that has not registered after its
// --max-node-provision-time, 15 minutes by default.
const scaleUpWindow = 15 * time.Minute

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
			continue
		}
		n := w.unscheduled(c, p)
		notes = append(notes, n...)
	}
	summary := fmt.Sprintf("%d/%d pods scheduled", scheduled, len(w.pods))
	l := w.finish(chain.LinkNodeAssignment, summary, c, len(w.pods))
	l.Notes = notes
	return l
}

// unscheduled decodes one pending pod: the PodScheduled condition first (it
// does not expire), the newest FailedScheduling event second.
func (w *walker) unscheduled(c *collector, p *corev1.Pod) (notes []string) {
	obj := objectName("pod", p.Name)
	evs := w.s.EventsFor("Pod", p.Name, p.UID)
	var (
		res      SchedulingResult
		evidence chain.Evidence
		since    = p.CreationTimestamp.Time
		repeats  int32
		found    bool
	)
	for _, cond := range p.Status.Conditions {
		if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionFalse && (cond.Message != "" || cond.Reason != "") {
			res = Scheduling(cond.Reason, cond.Message)
			evidence = conditionEvidence(obj, string(cond.Type), string(cond.Status), cond.Reason, cond.Message)
			since, found = cond.LastTransitionTime.Time, true
		}
	}
	var (
		scaleUp      *chain.Event
		notTriggered bool // a NotTriggerScaleUp newer than any TriggeredScaleUp
	)
	for i := len(evs) - 1; i >= 0; i-- {
		e := evs[i]
		switch e.Reason {
		case "FailedScheduling":
			if repeats == 0 {
				repeats = e.Count
				if !found || len(res.Reasons) == 0 {
					res = Scheduling(e.Reason, eventMessage(e))
					evidence = eventEvidence(e)
					since, found = e.First, true
				}
			}
		case "TriggeredScaleUp":
			if scaleUp == nil && !notTriggered {
				scaleUp = &evs[i]
			}
		case "NotTriggerScaleUp":
			notTriggered = notTriggered || scaleUp == nil
			notes = append(notes, fmt.Sprintf("cluster autoscaler on pod %s: %s", p.Name, e.Message))
		}
	}
	if scaleUp != nil && w.s.Now.Sub(scaleUp.Last) > scaleUpWindow {
		notes = append(notes, fmt.Sprintf("cluster autoscaler on pod %s, %s before this snapshot and no node since: %s",
			p.Name, w.s.Now.Sub(scaleUp.Last).Round(time.Second), scaleUp.Message))
		scaleUp = nil
	}
	if !found || len(res.Reasons) == 0 {
		c.add(sighting{d: Decoded{Cause: SchedulingPending, Progressing: true}, object: obj, since: p.CreationTimestamp.Time,
			evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "spec.nodeName",
				Message: "no node assigned and no scheduling condition or event yet"}}})
		return notes
	}
	if scaleUp != nil {
		// The autoscaler is adding a node for this pod: the shortage is
		// being fixed, and waiting for the node is the next step. The
		// scheduler's reasons stay as details (what the new node must
		// offer) rather than findings of their own, whose grace would
		// otherwise run out long before a node can boot.
		d := Decoded{Cause: ScaleUpTriggered, Progressing: true,
			Summary: "no node fits and the cluster autoscaler is adding one: " + eventMessage(*scaleUp)}
		for _, r := range res.Reasons {
			d.Details = append(d.Details, chain.Detail{Key: "unschedulable", Value: r.Summary})
		}
		c.add(sighting{d: d, object: obj, since: scaleUp.First, repeats: repeats,
			evidence: []chain.Evidence{evidence, eventEvidence(*scaleUp)}})
		return notes
	}
	// The preemption clause stays in the verbatim evidence; as a detail it
	// would only repeat it.
	for _, d := range res.Reasons {
		c.add(sighting{d: d, object: obj, since: since, repeats: repeats, evidence: []chain.Evidence{evidence}})
	}
	return notes
}
