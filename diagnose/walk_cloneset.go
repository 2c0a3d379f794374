package diagnose

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// cloneSetLinks walks an OpenKruise CloneSet as a Deployment without
// ReplicaSets: stored (the CloneSet controller observed the spec; its
// update not paused), pods (the controller created them itself, or said
// why not), then the shared node-assignment, containers and ready links,
// ready judged by the rule of kubectl-kruise's rollout status.
func (w *walker) cloneSetLinks() []chain.Link {
	u := w.s.CloneSet
	cs, err := chain.CloneSetOf(u)
	if err != nil {
		links := []chain.Link{{ID: chain.LinkStored, Status: chain.StatusUnknown, Summary: "cannot read the CloneSet: " + err.Error()}}
		for _, id := range chain.ChainOf(chain.KindCloneSet)[1:] {
			links = append(links, notReached(id, "the CloneSet could not be read"))
		}
		return links
	}
	want := cs.Replicas()
	w.want = &want
	stored := w.cloneSetStored(u, cs)
	_, notes := w.keepLive(w.ownedPods(u), "the CloneSet controller")
	links := []chain.Link{stored, w.cloneSetPods(u, cs, notes), w.nodeAssignment(), w.containers()}
	ready := w.ready(links, cloneSetRollout(u, cs))
	for i := range ready.Findings {
		if f := &ready.Findings[i]; f.Cause == decode.RolloutInProgress {
			f.NextStep = "wait, or follow it: kubectl chain clone/{NAME} -n {NAMESPACE} --wait" // the catalogue's names a Deployment
		}
	}
	if cd := cs.Condition(chain.CloneSetFailedUpdate); cd != nil && cd.Status == string(corev1.ConditionTrue) {
		ready.Notes = append(ready.Notes, "the CloneSet controller could not update a pod (condition FailedUpdate): "+cd.Message)
	}
	return append(links, ready)
}

// cloneSetStored: the API server holds the CloneSet, the CloneSet
// controller observed its spec, and its update is not paused while pods
// wait for it. A paused update with nothing left to roll out is said,
// not blamed: only the next template change will wait.
func (w *walker) cloneSetStored(u *unstructured.Unstructured, cs *chain.CloneSet) chain.Link {
	l := w.storedWorkload(u, cs.Status.ObservedGeneration, plural(cs.Replicas(), "replica")+" wanted", "")
	for i := range l.Findings {
		if f := &l.Findings[i]; f.Cause == decode.GenerationNotObserved {
			// Its controller is OpenKruise's, not the controller manager's.
			f.NextStep = "if it lasts, OpenKruise's controller is not running or not watching the namespace: kubectl get pods -n kruise-system"
		}
	}
	if len(cs.Undecoded) > 0 {
		l.Notes = append(l.Notes, "read without "+strings.Join(cs.Undecoded, ", ")+": not of the type OpenKruise writes")
	}
	observed := cs.Status.ObservedGeneration != 0 && cs.Status.ObservedGeneration >= u.GetGeneration()
	if !cs.Spec.UpdateStrategy.Paused || !observed || u.GetDeletionTimestamp() != nil {
		return l // not observed yet: GenerationNotObserved says why nothing moves
	}
	if _, done := cloneSetUpdated(u, cs); done {
		l.Notes = append(l.Notes, "updateStrategy paused: template changes will not roll out until it is resumed")
		return l
	}
	obj := objectName("cloneset", u.GetName())
	c := &collector{}
	c.add(sighting{d: decode.Decoded{Cause: decode.CloneSetPaused,
		Summary: fmt.Sprintf("the update is paused with %d of %d pods at the update revision", cs.Status.UpdatedReplicas, cs.Replicas()-cs.Partition())},
		object: obj, evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "spec.updateStrategy.paused", Message: "true"}}})
	paused := w.finish(chain.LinkStored, l.Summary, c, 0)
	l.Findings = append(l.Findings, paused.Findings...)
	l.Status = statusOfFindings(l.Findings)
	return l
}

// cloneSetPods: the CloneSet controller created the pods it wants, or its
// FailedCreate events (else its FailedScale condition, which outlives
// them) say what refused them.
func (w *walker) cloneSetPods(u *unstructured.Unstructured, cs *chain.CloneSet, notes []string) chain.Link {
	if g := w.s.Gap(chain.ResourcePods); g != nil {
		return unknown(chain.LinkPods, g)
	}
	want := cs.Replicas()
	have := int32(len(w.pods))
	summary := fmt.Sprintf("%d/%d pods created", have, want)
	c := &collector{}
	if have < want {
		w.createFailures(c, string(chain.KindCloneSet), u.GetName(), u.GetUID(), newestCreated(w.pods))
		if cd := cs.Condition(chain.CloneSetFailedScale); c.empty() && cd != nil && cd.Status == string(corev1.ConditionTrue) {
			obj := objectName("cloneset", u.GetName())
			c.add(sighting{d: decode.FailedCreate(cd.Message), object: obj, since: cd.LastTransitionTime.Time,
				evidence: []chain.Evidence{conditionEvidence(obj, cd.Type, cd.Status, cd.Reason, cd.Message)}})
		}
		switch {
		case !c.empty():
		case len(w.gone) > 0:
			// Pods the kubelet evicted or refused are why the count is
			// short: the containers link names what removed them.
			notes = append(notes, fmt.Sprintf("%d of %d pods not replaced yet", want-have, want))
		default:
			w.podsNotCreated(c, u, decode.CloneSetPodsNotCreated, want-have, want, cs.Status.Replicas,
				cs.Status.ObservedGeneration >= u.GetGeneration())
		}
	}
	l := w.finish(chain.LinkPods, summary, c, 0)
	l.Notes = append(l.Notes, notes...)
	return l
}

// cloneSetUpdated says whether the update reached the pods the partition
// lets it (spec.replicas less the partition), with what it still waits
// for: the controller moves pods to the update revision until then.
func cloneSetUpdated(u *unstructured.Unstructured, cs *chain.CloneSet) (string, bool) {
	st := cs.Status
	if st.ObservedGeneration == 0 || u.GetGeneration() > st.ObservedGeneration {
		return "waiting for the CloneSet controller to observe the spec", false
	}
	partition := cs.Partition()
	if goal := cs.Replicas() - partition; st.UpdatedReplicas < goal {
		msg := fmt.Sprintf("%d out of %d new pods have been updated", st.UpdatedReplicas, goal)
		if partition > 0 {
			msg = "partitioned roll out: " + msg
		}
		return msg, false
	}
	return "", true
}

// cloneSetRollout is the rule of kubectl-kruise's rollout status for
// CloneSets (openkruise/kruise-tools polymorphichelpers/rollout_status.go:
// the spec observed, then as many pods ready as spec.replicas), with the
// update's reach first, as kubectl rollout status reads a Deployment's,
// and the pods available and no extra one left.
func cloneSetRollout(u *unstructured.Unstructured, cs *chain.CloneSet) *rollout {
	want := cs.Replicas()
	return &rollout{obj: objectName("cloneset", u.GetName()), want: want, minReady: cs.Spec.MinReadySeconds,
		status: func() (string, bool, string) {
			st := cs.Status
			ev := fmt.Sprintf("replicas %d, ready %d, available %d, updated %d, updated ready %d, update revision %s",
				st.Replicas, st.ReadyReplicas, st.AvailableReplicas, st.UpdatedReplicas, st.UpdatedReadyReplicas, st.UpdateRevision)
			if msg, done := cloneSetUpdated(u, cs); !done {
				return msg, false, ev
			}
			switch {
			case st.ReadyReplicas < want:
				return fmt.Sprintf("waiting for %d pods to be ready", want-st.ReadyReplicas), false, ev
			case st.AvailableReplicas < want:
				return fmt.Sprintf("%d of %d pods are available", st.AvailableReplicas, want), false, ev
			case st.Replicas > want:
				return fmt.Sprintf("%d pods beyond spec.replicas are pending deletion", st.Replicas-want), false, ev
			}
			if p := cs.Partition(); p > 0 {
				return fmt.Sprintf("partitioned roll out complete: %d new pods have been updated, partition %d keeps the rest at revision %s",
					st.UpdatedReplicas, p, st.CurrentRevision), true, ev
			}
			return fmt.Sprintf("rolling update complete: %d pods at revision %s", st.AvailableReplicas, st.UpdateRevision), true, ev
		}}
}
