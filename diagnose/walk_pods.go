package diagnose

import (
	"fmt"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// podsLink: the ReplicaSet controller created the pods, or admission told it
// why not.
func (w *walker) podsLink() chain.Link {
	if w.d == nil && w.ro == nil || (w.rs == nil && w.s.Gap(chain.ResourceReplicaSets) == nil) {
		return notReached(chain.LinkPods, "no current ReplicaSet")
	}
	if g := w.s.Gap(chain.ResourcePods); g != nil {
		return unknown(chain.LinkPods, g)
	}
	var (
		candidates []*corev1.Pod
		notes      []string
	)
	desired := w.wanted()
	if w.rs != nil {
		candidates = w.s.PodsOf(w.rs)
		desired = replicas(w.rs.Spec.Replicas)
	} else {
		// The ReplicaSets could not be read, so which pods are current is
		// not known: judging old and new together says "4/3 pods".
		candidates, notes = newestTemplate(w.s.Pods)
	}
	_, ended := w.keepLive(candidates, "the ReplicaSet")
	notes = append(notes, ended...)
	have := int32(len(w.pods))
	summary := fmt.Sprintf("%d/%d pods created", have, desired)
	c := &collector{}
	if have < desired && w.rs != nil {
		newest := newestCreated(candidates)
		w.failedCreate(c, newest)
		if c.empty() && len(w.gone) > 0 {
			// Pods the kubelet evicted or refused are why the count is
			// short: the containers link names what removed them.
			notes = append(notes, fmt.Sprintf("%d of %d pods not replaced yet", desired-have, desired))
		} else if c.empty() {
			obj := objectName("replicaset", w.rs.Name)
			s := sighting{d: decode.Decoded{Cause: decode.PodsNotCreated, Progressing: true,
				Summary: fmt.Sprintf("%d of %d pods not created yet", desired-have, desired)},
				object: obj,
				evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "status.replicas",
					Message: fmt.Sprintf("%d of spec.replicas %d", w.rs.Status.Replicas, desired)}}}
			// The wait starts with the last thing the controller did: the
			// ReplicaSet's creation, or the newest pod it made since (an
			// HPA scale-up or a rollback reuses an old ReplicaSet). While
			// the controller has not even seen the new spec.replicas, it
			// has not started: no clock runs.
			if w.rs.Status.ObservedGeneration >= w.rs.Generation {
				s.since = w.rs.CreationTimestamp.Time
				if newest.After(s.since) {
					s.since = newest
				}
			}
			c.add(s)
		}
	}
	l := w.finish(chain.LinkPods, summary, c, 0)
	l.Notes = append(l.Notes, notes...)
	return l
}

// failedCreate reads why the ReplicaSet controller could not create pods:
// the ReplicaFailure condition first (it does not expire), then its
// FailedCreate events. newestPod is when the ReplicaSet's newest pod was
// created.
func (w *walker) failedCreate(c *collector, newestPod time.Time) {
	obj := objectName("replicaset", w.rs.Name)
	for _, cond := range w.rs.Status.Conditions {
		if cond.Type == appsv1.ReplicaSetReplicaFailure && cond.Status == corev1.ConditionTrue {
			c.add(sighting{d: decode.FailedCreate(cond.Message), object: obj, since: cond.LastTransitionTime.Time,
				evidence: []chain.Evidence{conditionEvidence(obj, string(cond.Type), string(cond.Status), cond.Reason, cond.Message)}})
		}
	}
	if owner := w.s.Workload(); c.empty() && owner != nil {
		// The Deployment controller copies the condition from the
		// ReplicaSet (deployment/sync.go), as the Rollouts controller
		// does: a capture of the Deployment alone still says why.
		dobj := objectName(w.s.KindOf().Resource(), owner.GetName())
		for _, cond := range w.ownerConditions() {
			if cond.Type == appsv1.DeploymentReplicaFailure && cond.Status == corev1.ConditionTrue && cond.Reason == "FailedCreate" {
				c.add(sighting{d: decode.FailedCreate(cond.Message), object: dobj, since: cond.LastTransitionTime.Time,
					evidence: []chain.Evidence{conditionEvidence(dobj, string(cond.Type), string(cond.Status), cond.Reason, cond.Message)}})
			}
		}
	}
	if c.empty() {
		w.createFailures(c, "ReplicaSet", w.rs.Name, w.rs.UID, newestPod)
		return
	}
	// The condition holds the error; its events, old ones too, add the
	// repeats.
	total, _, _ := w.failedCreates("ReplicaSet", w.rs.Name, w.rs.UID, newestPod, true)
	for _, k := range c.order {
		if f := c.byKey[k]; total > f.Repeats {
			f.Repeats = total
		}
	}
}

// newestCreated is the creation time of the newest pod, zero with none.
func newestCreated(pods []*corev1.Pod) time.Time {
	var t time.Time
	for _, p := range pods {
		if c := p.CreationTimestamp.Time; c.After(t) {
			t = c
		}
	}
	return t
}

// newestTemplate picks, when the ReplicaSets could not be read, the pods
// of the newest pod template: pods are grouped by their pod-template-hash
// label (the Deployment controller puts it on each ReplicaSet's pods), and
// the group whose newest pod is newest is the rollout's current one. The
// other groups are said in notes, not judged.
func newestTemplate(all []corev1.Pod) ([]*corev1.Pod, []string) {
	groups := map[string][]*corev1.Pod{}
	var hashes []string
	for i := range all {
		h := all[i].Labels[appsv1.DefaultDeploymentUniqueLabelKey]
		if _, ok := groups[h]; !ok {
			hashes = append(hashes, h)
		}
		groups[h] = append(groups[h], &all[i])
	}
	sort.Strings(hashes)
	pick := ""
	for i, h := range hashes {
		if i == 0 || newestCreated(groups[h]).After(newestCreated(groups[pick])) {
			pick = h
		}
	}
	var notes []string
	for _, h := range hashes {
		if h == pick {
			continue
		}
		what := "pod-template-hash " + h
		if h == "" {
			what = "no pod-template-hash label"
		}
		// "older" is how the newest pod's age ranked them, all the walk
		// can know without the ReplicaSets.
		var names []string
		for _, p := range groups[h] {
			names = append(names, p.Name)
		}
		notes = append(notes, fmt.Sprintf("%s of an older pod template (%s) not judged, as the ReplicaSets could not be read: %s",
			plural(int32(len(names)), "pod"), what, strings.Join(names, ", ")))
	}
	return groups[pick], notes
}

// deadPod is a pod of the ReplicaSet that ended, and why: decoded once,
// for the pods link's notes and the containers link's findings.
type deadPod struct {
	pod *corev1.Pod
	// evicted says the kubelet removed it, for the reason why.
	evicted bool
	why     decode.Decoded
	// evidence is its status's reason, or the Evicted event its status
	// lacks.
	evidence chain.Evidence
}

// ended decodes why the kubelet removed a pod: its status, or, when the
// status kept no message, the kubelet's Evicted event about it. A pod whose
// containers all exited 0 on the eviction's SIGTERM ends Succeeded with no
// reason at all (kubernetes/kubernetes#120182): the event is its only trace.
func (w *walker) ended(p *corev1.Pod) deadPod {
	obj := objectName("pod", p.Name)
	dp := deadPod{pod: p, evidence: chain.Evidence{Source: chain.SourceObjectStatus, Object: obj, Field: "status.reason",
		Reason: p.Status.Reason, Message: p.Status.Message}}
	reason, msg := p.Status.Reason, p.Status.Message
	if msg == "" {
		if e, ok := w.evictedEvent(p); ok {
			reason, msg = reasonEvicted, eventMessage(e)
			dp.evidence = eventEvidence(e)
		}
	}
	dp.why, dp.evicted = decode.Eviction(reason, msg)
	if d, ok := decode.SecurityWords(msg); ok && !dp.evicted && p.Status.Phase == corev1.PodFailed {
		// The kubelet refused it for a profile it cannot enforce (reason
		// AppArmor, 1.30+): a refusal with a cause to fix, as OutOfcpu is.
		dp.why, dp.evicted = d, true
	}
	return dp
}

// endedWithoutReason says the pod ended Succeeded with no reason: how an
// eviction ends a pod whose containers exit 0 on its SIGTERM
// (kubernetes/kubernetes#120182), its Evicted event the only trace.
func endedWithoutReason(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded && p.Status.Reason == ""
}

// reasonEvicted is the reason of the kubelet's eviction, in a pod's status
// and its event (pkg/kubelet/eviction/helpers.go).
const reasonEvicted = "Evicted"

// evictedEvent is the kubelet's newest Evicted event about a pod whose
// status says it was evicted, or says nothing (Succeeded, no reason).
func (w *walker) evictedEvent(p *corev1.Pod) (chain.Event, bool) {
	if p.Status.Reason != reasonEvicted && !endedWithoutReason(p) {
		return chain.Event{}, false
	}
	evs := w.s.EventsFor("Pod", p.Name, p.UID)
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Reason == reasonEvicted {
			return evs[i], true
		}
	}
	return chain.Event{}, false
}

// deadPodNotes says which pods ended and why, one note for the pods that
// ended alike: a Deployment whose pods are evicted again and again has
// dozens.
func deadPodNotes(dead []deadPod, by string) []string {
	var order []string
	names := map[string][]string{}
	for _, dp := range dead {
		p := dp.pod
		how := strings.ToLower(string(p.Status.Phase))
		if dp.evicted {
			how += " (" + dp.why.Summary + ")"
		} else if p.Status.Reason != "" {
			how += " (" + p.Status.Reason + ")"
		}
		if _, ok := names[how]; !ok {
			order = append(order, how)
		}
		names[how] = append(names[how], p.Name)
	}
	var notes []string
	for _, how := range order {
		n := names[how]
		if len(n) == 1 {
			notes = append(notes, fmt.Sprintf("pod %s %s; %s replaces it", n[0], how, by))
			continue
		}
		notes = append(notes, fmt.Sprintf("%d pods %s: %s; %s replaces them", len(n), how, someNames(n), by))
	}
	return notes
}

// maxNoteNames is how many pods a note names.
const maxNoteNames = 3
