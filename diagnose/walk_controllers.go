package diagnose

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// stored: the API server holds the Deployment and its controller has seen
// the latest spec.
func (w *walker) stored() chain.Link {
	d := w.d
	obj := objectName("deployment", w.s.Name)
	c := &collector{}
	if d == nil {
		c.add(sighting{d: decode.Decoded{Cause: decode.DeploymentNotFound,
			Summary: fmt.Sprintf("deployment %q not found in namespace %q", w.s.Name, w.s.Namespace)},
			object:   obj,
			evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Message: fmt.Sprintf("no Deployment %s/%s in the snapshot", w.s.Namespace, w.s.Name)}}})
		return w.finish(chain.LinkStored, "deployment not found", c, 0)
	}
	ev := func(field, msg string) []chain.Evidence {
		return []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: field, Message: msg}}
	}
	var notes []string
	switch {
	case d.DeletionTimestamp != nil:
		c.add(sighting{d: decode.Decoded{Cause: decode.DeploymentDeleting}, object: obj, since: d.DeletionTimestamp.Time,
			evidence: ev("metadata.deletionTimestamp", d.DeletionTimestamp.UTC().Format("2006-01-02T15:04:05Z"))})
	case d.Spec.Paused && w.rolloutIncomplete():
		// Paused with a change not rolled out: nothing moves until resume.
		c.add(sighting{d: decode.Decoded{Cause: decode.DeploymentPaused,
			NextStep: fmt.Sprintf("kubectl rollout resume deployment/%s -n %s", d.Name, d.Namespace)},
			object: obj, evidence: ev("spec.paused", "true")})
	case d.Spec.Paused:
		// Paused after a complete rollout serves as it is: only the next
		// template change will wait.
		notes = append(notes, "paused: template changes will not roll out until kubectl rollout resume")
	}
	if replicas(d.Spec.Replicas) == 0 && d.DeletionTimestamp == nil {
		// Complete by kubectl rollout status's rules, and often on purpose
		// (HPA, KEDA): said, not blamed.
		notes = append(notes, fmt.Sprintf("scaled to zero (%s): spec.replicas is 0, nothing is asked to run; to run it, kubectl scale deployment/%s -n %s --replicas=N, or check the HorizontalPodAutoscaler or KEDA ScaledObject that targets it",
			decode.ScaledToZero, d.Name, d.Namespace))
	}
	if d.Status.ObservedGeneration < d.Generation {
		s := sighting{d: decode.Decoded{Cause: decode.GenerationNotObserved, Progressing: true,
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
	l := w.finish(chain.LinkStored, summary, c, 0)
	l.Notes = notes
	return l
}

// rolloutIncomplete says the Deployment still has a change to roll out: no
// ReplicaSet for its template yet (when the ReplicaSets could be read), or
// kubectl rollout status would still wait.
func (w *walker) rolloutIncomplete() bool {
	if w.s.Gap(chain.ResourceReplicaSets) == nil && w.s.CurrentReplicaSet() == nil {
		return true
	}
	_, done := rolloutStatus(w.d)
	return !done
}

// replicaSet: the Deployment controller made a ReplicaSet for the current
// pod template.
func (w *walker) replicaSet() chain.Link {
	owner := w.s.Workload()
	kind := w.s.KindOf()
	if owner == nil {
		return notReached(chain.LinkReplicaSet, "no "+kind.Resource())
	}
	if g := w.s.Gap(chain.ResourceReplicaSets); g != nil {
		return unknown(chain.LinkReplicaSet, g)
	}
	w.rs = w.s.CurrentReplicaSet()
	dobj := objectName(kind.Resource(), owner.GetName())
	c := &collector{}
	if w.rs == nil {
		for _, cond := range w.ownerConditions() {
			failed := cond.Type == appsv1.DeploymentReplicaFailure ||
				cond.Type == appsv1.DeploymentProgressing && cond.Reason == "ReplicaSetCreateError"
			if d, ok := decode.DeploymentCondition(cond); ok && failed {
				c.add(sighting{d: d, object: dobj, since: cond.LastTransitionTime.Time, evidence: []chain.Evidence{conditionEvidence(dobj, string(cond.Type), string(cond.Status), cond.Reason, cond.Message)}})
			}
		}
		if c.empty() {
			msg := fmt.Sprintf("none of the %d ReplicaSets owned by the Deployment matches its pod template", len(w.s.OwnedReplicaSets()))
			if w.ro != nil {
				msg = fmt.Sprintf("none of the %d ReplicaSets owned by the Rollout has its status.currentPodHash %q", len(w.s.OwnedReplicaSets()), w.ro.Status.CurrentPodHash)
			}
			s := sighting{d: decode.Decoded{Cause: decode.ReplicaSetNotCreated, Progressing: true}, object: dobj,
				evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: dobj, Message: msg}}}
			if owner.GetGeneration() <= 1 {
				s.since = owner.GetCreationTimestamp().Time
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
