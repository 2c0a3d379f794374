package diagnose

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// verdict names the first broken link; with none broken, the first link
// still progressing or unknown; with none of those, healthy.
func (w *walker) verdict(links []chain.Link) chain.Verdict {
	pick := func(st chain.Status) *chain.Link {
		for i := range links {
			if links[i].Status == st {
				return &links[i]
			}
		}
		return nil
	}
	l := pick(chain.StatusBroken)
	health := chain.Broken
	if l == nil {
		for i := range links {
			if links[i].Status == chain.StatusProgressing || links[i].Status == chain.StatusUnknown {
				l = &links[i]
				health = chain.Progressing
				if l.Status == chain.StatusUnknown {
					health = chain.Unknown
				}
				break
			}
		}
	}
	if l == nil {
		return chain.Verdict{Health: chain.Healthy, Summary: lastPodLink(links).Summary}
	}
	v := chain.Verdict{Health: health, Link: l.ID, Summary: l.Summary}
	if len(l.Findings) > 0 {
		f := l.Findings[0]
		v.Cause, v.NextStep, v.Terminal = f.Cause, f.NextStep, f.Terminal
		v.Summary = f.Summary
		// Only pod findings carry Of (collector.findings): a Deployment's
		// "2 out of 3 new replicas have been updated" is not "1/3 pods".
		if f.Of > 0 && isPodFinding(&f) {
			v.Summary = fmt.Sprintf("%d/%d pods: %s", len(f.Objects), f.Of, f.Summary)
		}
	}
	if health == chain.Broken && w.deadlineExceeded() {
		// The controller has given up on this rollout: nothing will change
		// without a new spec, whatever the cause's own rule says.
		v.Terminal = true
	}
	return v
}

// progressDeadline places ProgressDeadlineExceeded. The condition is a
// symptom: when a later link explains why the rollout stalled, that link is
// the verdict and the deadline only makes it terminal; when nothing else
// explains it, the deadline itself is the broken link.
func (w *walker) progressDeadline(links []chain.Link) {
	if !w.deadlineExceeded() {
		return
	}
	cond, _ := w.progressingCondition()
	rsLink := linkByID(links, chain.LinkReplicaSet)
	if rsLink == nil {
		return
	}
	for i := range links {
		if links[i].Status == chain.StatusBroken || nodeComing(&links[i]) {
			rsLink.Notes = append(rsLink.Notes, "progress deadline exceeded: "+cond.Message)
			return
		}
	}
	d, ok := decode.DeploymentCondition(cond)
	if !ok {
		return
	}
	obj := objectName("deployment", w.d.Name)
	c := &collector{}
	c.add(sighting{d: d, object: obj, since: cond.LastTransitionTime.Time,
		evidence: []chain.Evidence{conditionEvidence(obj, string(cond.Type), string(cond.Status), cond.Reason, cond.Message)}})
	l := w.finish(chain.LinkReplicaSet, rsLink.Summary, c, 0)
	l.Notes = rsLink.Notes
	*rsLink = l
}

// nodeComing says a pending pod's node is on its way: the node-assignment
// link progresses on the scheduler's own reason because a scale-up or a
// preemption is under way. That reason explains the stalled rollout and
// the pod binds once the node is there, whatever the controller's clock
// said: the deadline is a note, never the verdict.
func nodeComing(l *chain.Link) bool {
	if l.ID != chain.LinkNodeAssignment || l.Status != chain.StatusProgressing || len(l.Findings) == 0 {
		return false
	}
	f := l.Findings[0]
	return f.Progressing && family(f.Cause) == "scheduler"
}

// deadlineExceeded says the Deployment controller gave up on the rollout
// that is being judged. The condition outlives the rollout it was about:
// after the user applies a fix it stays until the controller syncs the new
// spec, and a rollback that reuses an old ReplicaSet keeps the message of
// the one that timed out. So it counts only once the controller observed
// the current generation and, when the current ReplicaSet is known, only
// when it names it (pkg/controller/deployment/progress.go:
// "ReplicaSet %q has timed out progressing.").
func (w *walker) deadlineExceeded() bool {
	if w.d == nil || w.d.Status.ObservedGeneration < w.d.Generation {
		return false
	}
	c, ok := w.progressingCondition()
	if !ok || c.Status != corev1.ConditionFalse || c.Reason != "ProgressDeadlineExceeded" {
		return false
	}
	if w.rs != nil {
		return strings.Contains(c.Message, fmt.Sprintf("ReplicaSet %q has timed out progressing.", w.rs.Name))
	}
	return true
}

// progressingCondition is the Deployment's Progressing condition.
func (w *walker) progressingCondition() (appsv1.DeploymentCondition, bool) {
	for _, c := range w.d.Status.Conditions {
		if c.Type == appsv1.DeploymentProgressing {
			return c, true
		}
	}
	return appsv1.DeploymentCondition{}, false
}

// linkByID finds a link by its ID rather than its position, so the chain
// can gain a link without this code pointing at the wrong one.
func linkByID(links []chain.Link, id chain.LinkID) *chain.Link {
	for i := range links {
		if links[i].ID == id {
			return &links[i]
		}
	}
	return nil
}

// gapNotes says on the verdict's link (the last link when healthy) that
// events could not be read: the walk then judged on object status alone,
// and causes only events tell (a scheduler's or kubelet's message, a
// ReplicaSet's FailedCreate) may be missing from it.
func gapNotes(r *chain.Report, s *chain.Snapshot) {
	if len(s.EventsOf) > 0 && len(r.Links) > 0 {
		l := r.Link(r.Verdict.Link)
		if l == nil {
			l = lastPodLink(r.Links)
		}
		var of []string
		for _, o := range s.EventsOf {
			of = append(of, strings.ToLower(o.Kind)+"/"+o.Name)
		}
		l.Notes = append(l.Notes, fmt.Sprintf("the namespace holds too many events to read them all: only those about %s were read, so counts that rest on events cover those alone",
			strings.Join(of, " and ")))
	}
	g := s.Gap(chain.ResourceEvents)
	if g == nil || len(r.Links) == 0 {
		return
	}
	l := r.Link(r.Verdict.Link)
	if l == nil {
		l = lastPodLink(r.Links)
	}
	note := fmt.Sprintf("events not read (cannot %s %s: %s): this verdict rests on object status alone, and causes only events tell may be missing", g.Verb, g.Resource, g.Message)
	if g.Forbidden {
		note = fmt.Sprintf("events not read: %s %s is forbidden, so this verdict rests on object status alone and causes only events tell may be missing", g.Verb, g.Resource)
		if g.Check != "" {
			note += "; check the permission: " + g.Check
		}
	}
	l.Notes = append(l.Notes, note)
}

// lastPodLink is the last link about the workload's own pods (ready, or a
// Job's completion), the one that says a healthy workload is done: the
// serving link past it is about Services.
func lastPodLink(links []chain.Link) *chain.Link {
	for i := len(links) - 1; i > 0; i-- {
		if links[i].ID != chain.LinkServing && links[i].ID != chain.LinkOwned {
			return &links[i]
		}
	}
	return &links[0]
}
