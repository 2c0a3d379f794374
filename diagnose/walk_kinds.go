package diagnose

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// podLinks: a pod no controller owns has the pod-level links alone: the
// API server stored it, the scheduler placed it, the kubelet started it,
// and it turned ready. Nothing replaces it when it ends.
func (w *walker) podLinks() []chain.Link {
	p := w.s.Workload().(*corev1.Pod)
	one := int32(1)
	w.want = &one
	_, notes := w.keepLive([]*corev1.Pod{p}, "")
	summary := fmt.Sprintf("phase %s, no controller", p.Status.Phase)
	if c := metav1.GetControllerOfNoCopy(p); c != nil {
		// An operator's own pod (a CloneSet's), walked from its owner.
		summary = fmt.Sprintf("phase %s, controlled by %s %s", p.Status.Phase, c.Kind, c.Name)
	}
	stored := w.storedWorkload(p, -1, summary, "")
	if podFinished(p) && metav1.GetControllerOfNoCopy(p) == nil {
		stored.Notes = append(stored.Notes, fmt.Sprintf("the pod ended (%s) and no controller replaces it", p.Status.Phase))
	}
	stored.Notes = append(stored.Notes, notes...)
	links := []chain.Link{stored, w.nodeAssignment(), w.containers()}
	obj := objectName("pod", p.Name)
	return append(links, w.ready(links, &rollout{obj: obj, want: 1, status: func() (string, bool, string) {
		if isReady(p) {
			return "ready", true, "Ready True"
		}
		return "waiting for the pod to be ready", false, "phase " + string(p.Status.Phase)
	}}))
}

// notFound is the chain of an object that does not exist: stored broken
// with cause, the rest not reached.
func (w *walker) notFound(cause chain.CauseID) []chain.Link {
	kind := w.s.KindOf()
	obj := objectName(kind.Resource(), w.s.Name)
	c := &collector{}
	c.add(sighting{d: decode.Decoded{Cause: cause,
		Summary: fmt.Sprintf("%s %q not found in namespace %q", kind.Resource(), w.s.Name, w.s.Namespace)},
		object:   obj,
		evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Message: fmt.Sprintf("no %s %s/%s in the snapshot", kind, w.s.Namespace, w.s.Name)}}})
	links := []chain.Link{w.finish(chain.LinkStored, kind.Resource()+" not found", c, 0)}
	for _, id := range chain.ChainOf(kind)[1:] {
		links = append(links, notReached(id, "no "+kind.Resource()))
	}
	return links
}

// storedWorkload: the API server holds the workload and, for kinds whose
// status has an observedGeneration (observed >= 0), its controller has seen
// the latest spec. suspended names a Job's or CronJob's suspension.
func (w *walker) storedWorkload(obj metav1.Object, observed int64, summary string, suspended chain.CauseID) chain.Link {
	name := objectName(w.s.KindOf().Resource(), obj.GetName())
	c := &collector{}
	ev := func(field, msg string) []chain.Evidence {
		return []chain.Evidence{{Source: chain.SourceObjectStatus, Object: name, Field: field, Message: msg}}
	}
	switch {
	case obj.GetDeletionTimestamp() != nil:
		c.add(sighting{d: decode.Decoded{Cause: decode.WorkloadDeleting}, object: name, since: obj.GetDeletionTimestamp().Time,
			evidence: ev("metadata.deletionTimestamp", obj.GetDeletionTimestamp().UTC().Format(time.RFC3339))})
	case suspended != "":
		c.add(sighting{d: decode.Decoded{Cause: suspended}, object: name, evidence: ev("spec.suspend", "true")})
	}
	if observed >= 0 && observed < obj.GetGeneration() {
		s := sighting{d: decode.Decoded{Cause: decode.GenerationNotObserved, Progressing: true,
			Summary: fmt.Sprintf("generation %d not observed yet (observed %d)", obj.GetGeneration(), observed)},
			object: name, evidence: ev("status.observedGeneration", fmt.Sprintf("%d < metadata.generation %d", observed, obj.GetGeneration()))}
		if obj.GetGeneration() <= 1 {
			s.since = obj.GetCreationTimestamp().Time
		}
		c.add(s)
		summary = fmt.Sprintf("generation %d not observed yet (observed %d); %s", obj.GetGeneration(), observed, summary)
	} else if observed >= 0 {
		summary = fmt.Sprintf("generation %d observed; %s", obj.GetGeneration(), summary)
	}
	return w.finish(chain.LinkStored, summary, c, 0)
}

// ownedPods are the snapshot's pods the workload (or Job) controls, by name.
func (w *walker) ownedPods(owner metav1.Object) []*corev1.Pod {
	var out []*corev1.Pod
	for i := range w.s.Pods {
		if metav1.IsControlledBy(&w.s.Pods[i], owner) {
			out = append(out, &w.s.Pods[i])
		}
	}
	return out
}

// keepLive keeps the live pods in w.pods, which every later link reads,
// and says which ended (replacedBy replaces them) and how many terminate.
func (w *walker) keepLive(candidates []*corev1.Pod, replacedBy string) (dead []deadPod, notes []string) {
	terminating := 0
	for _, p := range candidates {
		switch {
		case p.DeletionTimestamp != nil:
			terminating++
		case p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded:
			dp := w.ended(p)
			dead = append(dead, dp)
			// Evictions that name a cause to fix count against the
			// rollout; a preemption or a node shutdown does not.
			if dp.evicted && !isGeneric(dp.why.Cause) {
				w.gone = append(w.gone, dp)
			}
			if endedWithoutReason(p) && !dp.evicted {
				w.silent = append(w.silent, dp)
			}
		default:
			w.pods = append(w.pods, p)
		}
	}
	if replacedBy != "" {
		notes = append(notes, deadPodNotes(dead, replacedBy)...)
	}
	if terminating > 0 {
		notes = append(notes, fmt.Sprintf("%s terminating", plural(int32(terminating), "pod")))
	}
	return dead, notes
}

// createFailures reads the owner's FailedCreate events (the StatefulSet,
// DaemonSet, Job and CronJob controllers all record them on the owner,
// as the ReplicaSet controller does): the newest says what blocks now.
func (w *walker) createFailures(c *collector, kind, name string, uid types.UID, newestPod time.Time) {
	if total, first, newest := w.failedCreates(kind, name, uid, newestPod, false); newest != nil {
		c.add(sighting{d: decode.FailedCreate(eventMessage(*newest)), object: objectName(strings.ToLower(kind), name), since: first, repeats: total,
			evidence: []chain.Evidence{eventEvidence(*newest)}})
	}
}

// podsNotCreated is the wait of a controller that creates its pods
// itself (a StatefulSet's, a CloneSet's) and has missing of the want it
// wants with nothing said why (cause): it starts with the controller's
// last act, the owner's creation or its newest pod since (a scale-up),
// once the controller observed the spec; before, no clock runs.
// statusReplicas are the pods the owner's status counts.
func (w *walker) podsNotCreated(c *collector, owner metav1.Object, cause chain.CauseID, missing, want, statusReplicas int32, observed bool) {
	obj := objectName(w.s.KindOf().Resource(), owner.GetName())
	s := sighting{d: decode.Decoded{Cause: cause, Progressing: true,
		Summary: fmt.Sprintf("%d of %d pods not created yet", missing, want)}, object: obj,
		evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "status.replicas",
			Message: fmt.Sprintf("%d of spec.replicas %d", statusReplicas, want)}}}
	if observed {
		s.since = owner.GetCreationTimestamp().Time
		if n := newestCreated(w.pods); n.After(s.since) {
			s.since = n
		}
	}
	c.add(s)
}

// failedCreates sums an owner's FailedCreate events: each refused pod has
// its own generated name, so each refusal is its own event (until the
// correlator combines them): the repeats are the sum of their counts, the
// start the oldest of them, and the newest says what blocks now. Unless
// keepOld, a refusal older than the newest pod (newestPod) is history (a
// quota since raised), not why a later scale-up waits.
func (w *walker) failedCreates(kind, name string, uid types.UID, newestPod time.Time, keepOld bool) (total int32, first time.Time, newest *chain.Event) {
	evs := w.s.EventsFor(kind, name, uid)
	for i := range evs {
		e := &evs[i]
		if e.Reason != "FailedCreate" || !keepOld && !newestPod.IsZero() && e.Last.Before(newestPod) {
			continue
		}
		total += e.Count
		if first.IsZero() || e.First.Before(first) {
			first = e.First
		}
		newest = e
	}
	return total, first, newest
}

// ordinal is a StatefulSet pod's ordinal, -1 when its name has none.
func ordinal(set, pod string) int {
	rest, ok := strings.CutPrefix(pod, set+"-")
	if !ok {
		return -1
	}
	n, err := strconv.Atoi(rest)
	if err != nil {
		return -1
	}
	return n
}

// byOrdinal sorts a StatefulSet's pods by ordinal (web-2 before web-10).
func byOrdinal(set string, pods []*corev1.Pod) {
	sort.SliceStable(pods, func(i, j int) bool { return ordinal(set, pods[i].Name) < ordinal(set, pods[j].Name) })
}

// isReady says the pod's Ready condition is True.
func isReady(p *corev1.Pod) bool {
	c := podCondition(p, corev1.PodReady)
	return c != nil && c.Status == corev1.ConditionTrue
}

// someNames lists up to maxNoteNames names, "+N more" after.
func someNames(list []string) string {
	out := strings.Join(list[:min(len(list), maxNoteNames)], ", ")
	if more := len(list) - maxNoteNames; more > 0 {
		out += fmt.Sprintf(" +%d more", more)
	}
	return out
}
