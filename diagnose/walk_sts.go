package diagnose

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// statefulSetLinks: stored, revision, pods by ordinal, claims per ordinal,
// then the shared node-assignment, containers and ready links.
func (w *walker) statefulSetLinks() []chain.Link {
	set := w.s.StatefulSet
	want := replicas(set.Spec.Replicas)
	w.want = &want
	stored := w.storedWorkload(set, set.Status.ObservedGeneration, plural(want, "replica")+" wanted", "")
	candidates := w.ownedPods(set)
	byOrdinal(set.Name, candidates)
	_, notes := w.keepLive(candidates, "the StatefulSet controller")
	links := []chain.Link{stored, w.revisionLink(set), w.statefulPods(set, notes), w.claimsLink(set)}
	links = append(links, w.nodeAssignment(), w.containers())
	return append(links, w.ready(links, statefulSetRollout(set)))
}

// revisionHash is the revision label the StatefulSet and DaemonSet
// controllers put on each pod.
func revisionHash(p *corev1.Pod) string { return p.Labels[appsv1.ControllerRevisionHashLabelKey] }

// revisionLink: the controller made a revision of the template, and moves
// pods to it as the update strategy says. The rollback trap is named here:
// a pod of another revision that is not Ready blocks an OrderedReady
// RollingUpdate, and the controller never replaces it by itself
// (kubernetes/kubernetes#67250), even once the template is rolled back.
func (w *walker) revisionLink(set *appsv1.StatefulSet) chain.Link {
	st := set.Status
	if st.UpdateRevision == "" {
		return chain.Link{ID: chain.LinkRevision, Status: chain.StatusOK, Summary: "no revision recorded yet"}
	}
	updated, other := 0, map[string]int{}
	for _, p := range w.pods {
		if revisionHash(p) == st.UpdateRevision {
			updated++
		} else {
			other[revisionHash(p)]++
		}
	}
	summary := fmt.Sprintf("update revision %s on %d/%d pods", st.UpdateRevision, updated, len(w.pods))
	if st.CurrentRevision != "" && st.CurrentRevision != st.UpdateRevision {
		summary += fmt.Sprintf(", current revision %s", st.CurrentRevision)
	}
	var notes []string
	partition := int32(0)
	strategy := set.Spec.UpdateStrategy
	switch {
	case strategy.Type == appsv1.OnDeleteStatefulSetStrategyType:
		if len(other) > 0 {
			notes = append(notes, fmt.Sprintf("updateStrategy OnDelete: %s of another revision move to %s only when deleted", plural(int32(len(w.pods)-updated), "pod"), st.UpdateRevision))
		}
	case strategy.RollingUpdate != nil && strategy.RollingUpdate.Partition != nil && *strategy.RollingUpdate.Partition > 0:
		partition = *strategy.RollingUpdate.Partition
		notes = append(notes, fmt.Sprintf("partition %d: ordinals below %d keep their revision until the partition is lowered", partition, partition))
	}
	c := &collector{}
	if strategy.Type != appsv1.OnDeleteStatefulSetStrategyType && set.Spec.PodManagementPolicy != appsv1.ParallelPodManagement {
		for _, p := range w.pods {
			if revisionHash(p) == st.UpdateRevision || int32(ordinal(set.Name, p.Name)) < partition || isReady(p) {
				continue
			}
			obj := objectName("pod", p.Name)
			cond := podCondition(p, corev1.PodReady)
			s := sighting{d: decode.Decoded{Cause: decode.StatefulSetRollbackTrap, Progressing: true,
				Summary: fmt.Sprintf("pod %s of revision %s is not Ready and the controller will not replace it with revision %s", p.Name, revisionHash(p), st.UpdateRevision),
				Details: []chain.Detail{{Key: "pod", Value: p.Name}, {Key: "podRevision", Value: revisionHash(p)}, {Key: "updateRevision", Value: st.UpdateRevision}}},
				object:   obj,
				evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "metadata.labels[" + appsv1.ControllerRevisionHashLabelKey + "]", Message: revisionHash(p)}}}
			if cond != nil {
				s.since = cond.LastTransitionTime.Time
				s.evidence = append(s.evidence, conditionEvidence(obj, string(cond.Type), string(cond.Status), cond.Reason, cond.Message))
			}
			c.add(s)
			break // the lowest such ordinal blocks the rest
		}
	}
	l := w.finish(chain.LinkRevision, summary, c, 0)
	l.Notes = append(l.Notes, notes...)
	return l
}

// statefulPods: the controller created a pod per ordinal. OrderedReady
// creates web-N only once web-0..N-1 are Running and Ready: the first
// ordinal that is not is named, and the later links say why.
func (w *walker) statefulPods(set *appsv1.StatefulSet, notes []string) chain.Link {
	want := replicas(set.Spec.Replicas)
	have := map[int]bool{}
	for _, p := range w.pods {
		have[ordinal(set.Name, p.Name)] = true
	}
	start := int32(0)
	if set.Spec.Ordinals != nil {
		start = set.Spec.Ordinals.Start
	}
	var missing []string
	for i := start; i < start+want; i++ {
		if !have[int(i)] {
			missing = append(missing, fmt.Sprintf("%s-%d", set.Name, i))
		}
	}
	summary := fmt.Sprintf("%d/%d pods created", int32(len(w.pods)), want)
	c := &collector{}
	if len(missing) > 0 {
		summary += " (missing " + someNames(missing) + ")"
		blocker := ""
		if set.Spec.PodManagementPolicy != appsv1.ParallelPodManagement {
			for _, p := range w.pods {
				if !isReady(p) {
					blocker = p.Name
					break
				}
			}
		}
		if blocker != "" {
			notes = append([]string{fmt.Sprintf("podManagementPolicy OrderedReady: %s is not Ready, so the controller creates no later ordinal", blocker)}, notes...)
		} else {
			w.createFailures(c, "StatefulSet", set.Name, set.UID, newestCreated(w.pods))
			if c.empty() && len(w.gone) == 0 {
				w.podsNotCreated(c, set, decode.StatefulSetPodsNotCreated, int32(len(missing)), want, set.Status.Replicas,
					set.Status.ObservedGeneration >= set.Generation)
			}
		}
	}
	l := w.finish(chain.LinkPods, summary, c, 0)
	l.Notes = append(l.Notes, notes...)
	return l
}

// claimsLink: each ordinal's claims from the volumeClaimTemplates exist and
// are bound; a claim the provisioner failed says why in its events.
func (w *walker) claimsLink(set *appsv1.StatefulSet) chain.Link {
	if len(set.Spec.VolumeClaimTemplates) == 0 {
		return chain.Link{ID: chain.LinkClaims, Status: chain.StatusOK, Summary: "no volumeClaimTemplates"}
	}
	if g := w.s.Gap(chain.ResourceClaims); g != nil {
		return unknown(chain.LinkClaims, g)
	}
	claims := map[string]*corev1.PersistentVolumeClaim{}
	for i := range w.s.Claims {
		claims[w.s.Claims[i].Name] = &w.s.Claims[i]
	}
	c := &collector{}
	var notes []string
	bound, total := 0, 0
	for _, p := range w.pods {
		for _, t := range set.Spec.VolumeClaimTemplates {
			total++
			name := fmt.Sprintf("%s-%s", t.Name, p.Name)
			pvc, ok := claims[name]
			if !ok {
				notes = append(notes, fmt.Sprintf("claim %s of pod %s does not exist", name, p.Name))
				continue
			}
			if pvc.Status.Phase == corev1.ClaimBound {
				bound++
				continue
			}
			w.unboundClaim(c, pvc, p, &notes)
		}
	}
	summary := fmt.Sprintf("%d/%d claims bound", bound, total)
	l := w.finish(chain.LinkClaims, summary, c, total)
	l.Notes = append(l.Notes, notes...)
	return l
}

// Events of the PersistentVolume controller about a pending claim
// (pkg/controller/volume/persistentvolume/pv_controller.go).
const (
	eventProvisioningFailed   = "ProvisioningFailed"
	eventFailedBinding        = "FailedBinding"
	eventExternalProvisioning = "ExternalProvisioning"
	eventWaitForFirstConsumer = "WaitForFirstConsumer"
	eventVolumeMismatch       = "VolumeMismatch"
)

// unboundClaim decodes a claim that is not Bound: Lost, its provisioner's
// newest ProvisioningFailed event, a wait for the pod to be scheduled
// (WaitForFirstConsumer, which is how such claims work), else a plain wait.
func (w *walker) unboundClaim(c *collector, pvc *corev1.PersistentVolumeClaim, p *corev1.Pod, notes *[]string) {
	obj := objectName("persistentvolumeclaim", pvc.Name)
	phase := chain.Evidence{Source: chain.SourceObjectStatus, Object: obj, Field: "status.phase", Message: string(pvc.Status.Phase)}
	if pvc.Status.Phase == corev1.ClaimLost {
		c.add(sighting{d: decode.Decoded{Cause: decode.ClaimLost, Summary: fmt.Sprintf("claim %s lost its volume %s", pvc.Name, pvc.Spec.VolumeName)},
			object: obj, evidence: []chain.Evidence{phase}})
		return
	}
	evs := w.s.EventsFor("PersistentVolumeClaim", pvc.Name, pvc.UID)
	var waiting *sighting
	for i := len(evs) - 1; i >= 0; i-- {
		e := evs[i]
		switch e.Reason {
		case eventProvisioningFailed, eventFailedBinding, eventVolumeMismatch:
			// A class that does not exist, none and no volume, the
			// cloud's identity or quota, a snapshot source: named.
			if d, ok := decode.ClaimWords(eventMessage(e)); ok && d.Cause != decode.ClaimProvisioningFailed {
				c.add(sighting{d: d, object: obj, since: e.First, repeats: e.Count, evidence: []chain.Evidence{eventEvidence(e), phase}})
				return
			}
			if e.Reason == eventFailedBinding {
				continue
			}
			c.add(sighting{d: decode.Decoded{Cause: decode.ClaimProvisioningFailed,
				Summary:  fmt.Sprintf("claim %s: %s", pvc.Name, firstLine(eventMessage(e))),
				NextStep: fmt.Sprintf("kubectl describe pvc %s -n %s; fix the StorageClass or the claim's size (a StatefulSet's in volumeClaimTemplates)", pvc.Name, pvc.Namespace),
				Details:  []chain.Detail{{Key: "claim", Value: pvc.Name}, {Key: "storageClass", Value: storageClassOf(pvc)}}},
				object: obj, since: e.First, repeats: e.Count, evidence: []chain.Evidence{eventEvidence(e), phase}})
			return
		case eventExternalProvisioning:
			// Normal while the provisioner works; if it lasts, the
			// provisioner it names is not running or not watching. A
			// failure it reported beside it says more.
			if d, ok := decode.ClaimWords(eventMessage(e)); ok && d.Cause == decode.ClaimPending && waiting == nil {
				d.NextStep = fmt.Sprintf("kubectl describe pvc %s -n %s; %s", pvc.Name, pvc.Namespace, d.NextStep)
				waiting = &sighting{d: d, object: obj, since: pvc.CreationTimestamp.Time, evidence: []chain.Evidence{eventEvidence(e), phase}}
			}
		case eventWaitForFirstConsumer:
			if p == nil {
				// The claim walked alone: no pod that uses it yet.
				c.add(sighting{d: decode.Decoded{Cause: decode.ClaimWaitingForConsumer, Progressing: true,
					Summary: fmt.Sprintf("claim %s waits for a pod that uses it to be scheduled (volumeBindingMode WaitForFirstConsumer)", pvc.Name)},
					object: obj, since: pvc.CreationTimestamp.Time, evidence: []chain.Evidence{eventEvidence(e), phase}})
				return
			}
			if p.Spec.NodeName == "" {
				*notes = appendUnique(*notes, fmt.Sprintf("claim %s waits for its pod to be scheduled (volumeBindingMode WaitForFirstConsumer)", pvc.Name))
				return
			}
		}
	}
	if waiting != nil {
		c.add(*waiting)
		return
	}
	if pvc.Status.Phase == corev1.ClaimPending && pvc.Spec.VolumeName == "" && pvc.Spec.StorageClassName != nil && *pvc.Spec.StorageClassName == "" {
		// No class (storageClassName "", and what kubectl get pvc and
		// describe pvc print for a claim without one): no provisioner
		// will make its volume, and only a volume with no class binds
		// it. Said without the PersistentVolume controller's
		// FailedBinding event, which expires after an hour and is not in
		// every paste. A claim whose class is unset (nil) is left to
		// that event: an input that does not show the class (a thread's
		// incident) leaves it unset too.
		class := chain.Evidence{Source: chain.SourceObjectStatus, Object: obj, Field: "spec.storageClassName", Message: "not set"}
		c.add(sighting{d: decode.Decoded{Cause: decode.ClaimNoStorageClass,
			Summary: fmt.Sprintf("claim %s names no StorageClass and no PersistentVolume binds it", pvc.Name)},
			object: obj, since: pvc.CreationTimestamp.Time, evidence: []chain.Evidence{class, phase}})
		return
	}
	c.add(sighting{d: decode.Decoded{Cause: decode.ClaimPending, Progressing: true, Summary: fmt.Sprintf("claim %s is %s", pvc.Name, pvc.Status.Phase),
		NextStep: "kubectl describe pvc " + pvc.Name + inNamespace(pvc.Namespace)},
		object: obj, since: pvc.CreationTimestamp.Time, evidence: []chain.Evidence{phase}})
}

// inNamespace is kubectl's " -n NAMESPACE", or nothing when the input
// does not say the namespace (a pasted table).
func inNamespace(ns string) string {
	if ns == "" {
		return ""
	}
	return " -n " + ns
}

func storageClassOf(pvc *corev1.PersistentVolumeClaim) string {
	switch {
	case pvc.Spec.StorageClassName == nil:
		return "(default)"
	case *pvc.Spec.StorageClassName == "":
		return `""`
	}
	return *pvc.Spec.StorageClassName
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// statefulSetRollout is kubectl rollout status's rule for StatefulSets
// (k8s.io/kubectl/pkg/polymorphichelpers/rollout_status.go).
func statefulSetRollout(set *appsv1.StatefulSet) *rollout {
	want := replicas(set.Spec.Replicas)
	return &rollout{obj: objectName("statefulset", set.Name), want: want, minReady: set.Spec.MinReadySeconds,
		status: func() (string, bool, string) {
			st := set.Status
			ev := fmt.Sprintf("replicas %d, ready %d, updated %d, current revision %s, update revision %s",
				st.Replicas, st.ReadyReplicas, st.UpdatedReplicas, st.CurrentRevision, st.UpdateRevision)
			switch {
			case st.ObservedGeneration == 0 || set.Generation > st.ObservedGeneration:
				return "waiting for the StatefulSet controller to observe the spec", false, ev
			case st.ReadyReplicas < want:
				return fmt.Sprintf("waiting for %d pods to be ready", want-st.ReadyReplicas), false, ev
			case set.Spec.UpdateStrategy.Type == appsv1.OnDeleteStatefulSetStrategyType:
				return fmt.Sprintf("%d pods ready (updateStrategy OnDelete)", st.ReadyReplicas), true, ev
			case set.Spec.UpdateStrategy.RollingUpdate != nil && set.Spec.UpdateStrategy.RollingUpdate.Partition != nil &&
				st.UpdatedReplicas < want-*set.Spec.UpdateStrategy.RollingUpdate.Partition:
				return fmt.Sprintf("partitioned roll out: %d out of %d new pods have been updated", st.UpdatedReplicas, want-*set.Spec.UpdateStrategy.RollingUpdate.Partition), false, ev
			case set.Spec.UpdateStrategy.RollingUpdate != nil:
				return fmt.Sprintf("roll out complete: %d new pods have been updated", st.UpdatedReplicas), true, ev
			case st.UpdateRevision != st.CurrentRevision:
				return fmt.Sprintf("rolling update: %d pods at revision %s", st.UpdatedReplicas, st.UpdateRevision), false, ev
			}
			return fmt.Sprintf("rolling update complete: %d pods at revision %s", st.CurrentReplicas, st.CurrentRevision), true, ev
		}}
}
