package diagnose

import (
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// stored: the API server holds the Deployment and its controller has seen
// the latest spec.
func (w *walker) stored() chain.Link {
	d := w.d
	obj := objectName("deployment", w.s.Name)
	c := &collector{}
	if d == nil {
		c.add(sighting{d: Decoded{Cause: DeploymentNotFound,
			Summary: fmt.Sprintf("deployment %q not found in namespace %q", w.s.Name, w.s.Namespace)},
			object:   obj,
			evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Message: fmt.Sprintf("no Deployment %s/%s in the snapshot", w.s.Namespace, w.s.Name)}}})
		return w.finish(chain.LinkStored, "deployment not found", c, 0)
	}
	ev := func(field, msg string) []chain.Evidence {
		return []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: field, Message: msg}}
	}
	switch {
	case d.DeletionTimestamp != nil:
		c.add(sighting{d: Decoded{Cause: DeploymentDeleting}, object: obj, since: d.DeletionTimestamp.Time,
			evidence: ev("metadata.deletionTimestamp", d.DeletionTimestamp.UTC().Format("2006-01-02T15:04:05Z"))})
	case d.Spec.Paused:
		c.add(sighting{d: Decoded{Cause: DeploymentPaused,
			NextStep: fmt.Sprintf("kubectl rollout resume deployment/%s -n %s", d.Name, d.Namespace)},
			object: obj, evidence: ev("spec.paused", "true")})
	case replicas(d.Spec.Replicas) == 0:
		c.add(sighting{d: Decoded{Cause: ScaledToZero,
			NextStep: fmt.Sprintf("kubectl scale deployment/%s -n %s --replicas=N, or check the HorizontalPodAutoscaler that targets it", d.Name, d.Namespace)},
			object: obj, evidence: ev("spec.replicas", "0")})
	}
	if d.Status.ObservedGeneration < d.Generation {
		s := sighting{d: Decoded{Cause: GenerationNotObserved, Progressing: true,
			Summary: fmt.Sprintf("generation %d not observed yet (observed %d)", d.Generation, d.Status.ObservedGeneration)},
			object: obj, evidence: ev("status.observedGeneration", fmt.Sprintf("%d < metadata.generation %d", d.Status.ObservedGeneration, d.Generation))}
		if d.Generation <= 1 {
			s.since = d.CreationTimestamp.Time
		}
		c.add(s)
	}
	summary := fmt.Sprintf("generation %d observed, %s wanted", d.Generation, plural(replicas(d.Spec.Replicas), "replica"))
	if d.Status.ObservedGeneration < d.Generation {
		summary = fmt.Sprintf("generation %d not observed yet (observed %d), %s wanted", d.Generation, d.Status.ObservedGeneration, plural(replicas(d.Spec.Replicas), "replica"))
	}
	return w.finish(chain.LinkStored, summary, c, 0)
}

// replicaSet: the Deployment controller made a ReplicaSet for the current
// pod template.
func (w *walker) replicaSet() chain.Link {
	if w.d == nil {
		return notReached(chain.LinkReplicaSet, "no deployment")
	}
	if g := w.s.Gap(chain.ResourceReplicaSets); g != nil {
		return unknown(chain.LinkReplicaSet, g)
	}
	w.rs = w.s.CurrentReplicaSet()
	dobj := objectName("deployment", w.d.Name)
	c := &collector{}
	if w.rs == nil {
		for _, cond := range w.d.Status.Conditions {
			failed := cond.Type == appsv1.DeploymentReplicaFailure ||
				cond.Type == appsv1.DeploymentProgressing && cond.Reason == "ReplicaSetCreateError"
			if d, ok := DeploymentCondition(cond); ok && failed {
				c.add(sighting{d: d, object: dobj, since: cond.LastTransitionTime.Time, evidence: []chain.Evidence{conditionEvidence(dobj, string(cond.Type), string(cond.Status), cond.Reason, cond.Message)}})
			}
		}
		if c.empty() {
			s := sighting{d: Decoded{Cause: ReplicaSetNotCreated, Progressing: true}, object: dobj,
				evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: dobj, Message: fmt.Sprintf("none of the %d ReplicaSets owned by the Deployment matches its pod template", len(w.s.OwnedReplicaSets()))}}}
			if w.d.Generation <= 1 {
				s.since = w.d.CreationTimestamp.Time
			}
			c.add(s)
		}
		return w.finish(chain.LinkReplicaSet, "no ReplicaSet for the current template", c, 0)
	}
	summary := fmt.Sprintf("%s is current", w.rs.Name)
	if rev := chain.Revision(w.rs); rev != "" {
		summary += " (revision " + rev + ")"
	}
	l := w.finish(chain.LinkReplicaSet, summary, c, 0)
	for _, rs := range w.s.OwnedReplicaSets() {
		if rs.UID != w.rs.UID && rs.Status.Replicas > 0 {
			l.Notes = append(l.Notes, fmt.Sprintf("old ReplicaSet %s (revision %s) still runs %d pods, %d available",
				rs.Name, chain.Revision(rs), rs.Status.Replicas, rs.Status.AvailableReplicas))
		}
	}
	return l
}

// podsLink: the ReplicaSet controller created the pods, or admission told it
// why not.
func (w *walker) podsLink() chain.Link {
	if w.d == nil || (w.rs == nil && w.s.Gap(chain.ResourceReplicaSets) == nil) {
		return notReached(chain.LinkPods, "no current ReplicaSet")
	}
	if g := w.s.Gap(chain.ResourcePods); g != nil {
		return unknown(chain.LinkPods, g)
	}
	var candidates []*corev1.Pod
	desired := replicas(w.d.Spec.Replicas)
	if w.rs != nil {
		candidates = w.s.PodsOf(w.rs)
		desired = replicas(w.rs.Spec.Replicas)
	} else {
		for i := range w.s.Pods {
			candidates = append(candidates, &w.s.Pods[i])
		}
	}
	var notes []string
	terminating := 0
	for _, p := range candidates {
		switch {
		case p.DeletionTimestamp != nil:
			terminating++
		case p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded:
			notes = append(notes, w.deadPodNote(p))
		default:
			w.pods = append(w.pods, p)
		}
	}
	if terminating > 0 {
		notes = append(notes, fmt.Sprintf("%d pods terminating", terminating))
	}
	have := int32(len(w.pods))
	summary := fmt.Sprintf("%d/%d pods created", have, desired)
	c := &collector{}
	if have < desired && w.rs != nil {
		w.failedCreate(c)
		if c.empty() {
			c.add(sighting{d: Decoded{Cause: PodsNotCreated, Progressing: true,
				Summary: fmt.Sprintf("%d of %d pods not created yet", desired-have, desired)},
				object: objectName("replicaset", w.rs.Name), since: w.rs.CreationTimestamp.Time,
				evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: objectName("replicaset", w.rs.Name), Field: "status.replicas",
					Message: fmt.Sprintf("%d of spec.replicas %d", w.rs.Status.Replicas, desired)}}})
		}
	}
	l := w.finish(chain.LinkPods, summary, c, 0)
	l.Notes = append(l.Notes, notes...)
	return l
}

// failedCreate reads why the ReplicaSet controller could not create pods:
// the ReplicaFailure condition first (it does not expire), then its
// FailedCreate events.
func (w *walker) failedCreate(c *collector) {
	obj := objectName("replicaset", w.rs.Name)
	for _, cond := range w.rs.Status.Conditions {
		if cond.Type == appsv1.ReplicaSetReplicaFailure && cond.Status == corev1.ConditionTrue {
			c.add(sighting{d: FailedCreate(cond.Message), object: obj, since: cond.LastTransitionTime.Time,
				evidence: []chain.Evidence{conditionEvidence(obj, string(cond.Type), string(cond.Status), cond.Reason, cond.Message)}})
		}
	}
	// Each refused pod has its own generated name, so each refusal is its
	// own event (until the correlator combines them): the repeats are the
	// sum of their counts, the start the oldest of them.
	var (
		total  int32
		first  time.Time
		newest *chain.Event
	)
	evs := w.s.EventsFor("ReplicaSet", w.rs.Name, w.rs.UID)
	for i := range evs {
		if e := &evs[i]; e.Reason == "FailedCreate" {
			total += e.Count
			if first.IsZero() || e.First.Before(first) {
				first = e.First
			}
			newest = e
		}
	}
	if !c.empty() {
		// The condition holds the error; events add the repeats.
		for _, k := range c.order {
			if f := c.byKey[k]; total > f.Repeats {
				f.Repeats = total
			}
		}
		return
	}
	if newest != nil {
		// The newest says what blocks now.
		c.add(sighting{d: FailedCreate(eventMessage(*newest)), object: obj, since: first, repeats: total,
			evidence: []chain.Evidence{eventEvidence(*newest)}})
	}
}

func (w *walker) deadPodNote(p *corev1.Pod) string {
	if d, ok := Eviction(p.Status.Reason, p.Status.Message); ok {
		return fmt.Sprintf("pod %s %s (%s); the ReplicaSet replaces it", p.Name, strings.ToLower(string(p.Status.Phase)), d.Summary)
	}
	return fmt.Sprintf("pod %s is %s (%s); the ReplicaSet replaces it", p.Name, p.Status.Phase, p.Status.Reason)
}

func conditionEvidence(obj, typ, status, reason, msg string) chain.Evidence {
	return chain.Evidence{Source: chain.SourceCondition, Object: obj, Field: "status.conditions[" + typ + "]",
		Type: status, Reason: reason, Message: msg}
}

func eventEvidence(e chain.Event) chain.Evidence {
	return chain.Evidence{Source: chain.SourceEvent, Object: objectName(strings.ToLower(e.Object.Kind), e.Object.Name),
		Field: e.FieldPath, Type: e.Type, Reason: e.Reason, Message: e.Message, Count: e.Count, Last: e.Last}
}

// plural is "1 replica", "3 replicas".
func plural(n int32, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
