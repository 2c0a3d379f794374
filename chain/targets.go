package chain

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// MaxEventTargets bounds the objects whose events a read fetches one by
// one when a namespace holds too many events to list whole: with the
// workload's GET and its lists, a Deployment stays within 6 requests.
const MaxEventTargets = 2

// EventTargets are the objects whose events can change the verdict on s,
// at most MaxEventTargets of them, in this order: when the workload has
// fewer pods than it wants, the object that creates them (the current
// ReplicaSet of a Deployment, else the workload), whose events say why it
// could not; a claim that is not bound (its provisioner says why); the
// pods that ended or are not ready, the first by name (those the walk
// quotes). A workload whose pods are all ready and whose claims are bound
// has none: its events cannot make it unhealthy. An aborted Rollout comes
// first, itself. The snapshot's objects
// must be assembled; its events are not read.
func EventTargets(s *Snapshot) []ObjectRef {
	var out []ObjectRef
	// An aborted Rollout's own AnalysisRun events name the run its abort
	// cleared from the status.
	if ro := s.Rollout; ro != nil && ro.Status.Abort {
		out = append(out, ObjectRef{Kind: string(KindRollout), Name: ro.Name, UID: ro.UID})
	}
	if creator := s.podCreator(); creator != nil && len(out) < MaxEventTargets {
		out = append(out, *creator)
	}
	for i := range s.Claims {
		if c := &s.Claims[i]; c.Status.Phase != corev1.ClaimBound && len(out) < MaxEventTargets {
			out = append(out, ObjectRef{Kind: "PersistentVolumeClaim", Name: c.Name, UID: c.UID})
		}
	}
	// A Job's pods end Succeeded; any other workload's pod that ended
	// was stopped (evicted pods can end Succeeded too).
	row, _ := RowOf(s.KindOf())
	runs := row.Completes()
	for i := range s.Pods {
		if len(out) == MaxEventTargets {
			break
		}
		p := &s.Pods[i]
		ended := p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
		if runs && p.Status.Phase == corev1.PodSucceeded || !ended && PodReady(p) {
			continue
		}
		out = append(out, ObjectRef{Kind: "Pod", Name: p.Name, UID: p.UID})
	}
	return out
}

// podCreator is the object that creates the workload's pods when it has
// fewer than it wants, nil otherwise.
func (s *Snapshot) podCreator() *ObjectRef {
	want, creator := int32(-1), (*ObjectRef)(nil)
	ref := func(kind string, name string, uid types.UID) *ObjectRef {
		return &ObjectRef{Kind: kind, Name: name, UID: uid}
	}
	row, _ := RowOf(s.KindOf())
	owner := s.Workload()
	if owner == nil || row.creates == createsNone {
		return nil
	}
	switch {
	case row.creates == createsThroughReplicaSets:
		rs := s.CurrentReplicaSet()
		if rs == nil {
			return ref(string(s.KindOf()), owner.GetName(), owner.GetUID())
		}
		creator = ref("ReplicaSet", rs.Name, rs.UID)
		if rs.Spec.Replicas != nil {
			want = *rs.Spec.Replicas
		}
	case row.wanted == nil:
		// A Job's own events say why it failed, whatever its pods.
		return ref(string(s.KindOf()), owner.GetName(), owner.GetUID())
	default:
		w, ok := row.wanted(owner)
		if !ok {
			return nil
		}
		want, creator = w, ref(string(s.KindOf()), owner.GetName(), owner.GetUID())
	}
	live := int32(0)
	for i := range s.Pods {
		if s.Pods[i].DeletionTimestamp == nil {
			live++
		}
	}
	if creator == nil || live >= want {
		return nil
	}
	return creator
}

// PodReady says the pod's Ready condition is True.
func PodReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// MaxGoneNodes bounds the nodes a read fetches one by one when pods say
// their node went away.
const MaxGoneNodes = 2

// NodesGone are the nodes, at most MaxGoneNodes, that the node lifecycle
// controller says went away under the snapshot's pods: a pod's
// status.reason NodeLost, or its Ready condition False with the
// NodeNotReady event "Node is not ready" (MarkPodsNotReady). Their
// conditions are the cause's evidence ("Kubelet stopped posting node
// status."). Nodes the snapshot holds already are not named; the
// snapshot's objects and events must be assembled.
func NodesGone(s *Snapshot) []string {
	var out []string
	seen := map[string]bool{}
	for i := range s.Nodes {
		seen[s.Nodes[i].Name] = true
	}
	for i := range s.Pods {
		p := &s.Pods[i]
		if len(out) == MaxGoneNodes {
			break
		}
		if p.Spec.NodeName == "" || seen[p.Spec.NodeName] || PodReady(p) {
			continue
		}
		gone := p.Status.Reason == "NodeLost"
		for _, e := range s.EventsFor("Pod", p.Name, p.UID) {
			gone = gone || e.Reason == "NodeNotReady" && e.Message == "Node is not ready"
		}
		if gone {
			seen[p.Spec.NodeName] = true
			out = append(out, p.Spec.NodeName)
		}
	}
	return out
}
