package chain

import (
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// OwnedReplicaSets returns the ReplicaSets the Deployment controls, oldest
// first (names break ties). Like kubectl, ownership is the controller
// reference, not the labels: a selector can match someone else's ReplicaSet.
func (s *Snapshot) OwnedReplicaSets() []*appsv1.ReplicaSet {
	var owner metav1.Object
	switch {
	case s.Rollout != nil:
		owner = s.Rollout
	case s.Deployment != nil:
		owner = s.Deployment
	default:
		return nil
	}
	var owned []*appsv1.ReplicaSet
	for i := range s.ReplicaSets {
		if metav1.IsControlledBy(&s.ReplicaSets[i], owner) {
			owned = append(owned, &s.ReplicaSets[i])
		}
	}
	sort.SliceStable(owned, func(i, j int) bool {
		a, b := owned[i], owned[j]
		if a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.Name < b.Name
		}
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	})
	return owned
}

// CurrentReplicaSet returns the ReplicaSet whose pod template equals the
// Deployment's, ignoring the pod-template-hash label: kubectl's and the
// Deployment controller's rule (k8s.io/kubectl/pkg/util/deployment
// findNewReplicaSet). When several match (it happens after upgrades), the
// oldest wins, as upstream.
//
// A Rollout's is the one of its status.currentPodHash: the Rollouts
// controller names it there.
func (s *Snapshot) CurrentReplicaSet() *appsv1.ReplicaSet {
	if s.Rollout != nil {
		return s.rolloutReplicaSet(s.Rollout.Status.CurrentPodHash)
	}
	if s.Deployment == nil {
		return nil
	}
	for _, rs := range s.OwnedReplicaSets() {
		if equalIgnoreHash(&rs.Spec.Template, &s.Deployment.Spec.Template) {
			return rs
		}
	}
	return nil
}

func equalIgnoreHash(a, b *corev1.PodTemplateSpec) bool {
	a, b = a.DeepCopy(), b.DeepCopy()
	delete(a.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	delete(b.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	return apiequality.Semantic.DeepEqual(a, b)
}

// PodsOf returns the pods the ReplicaSet controls, by name.
func (s *Snapshot) PodsOf(rs *appsv1.ReplicaSet) []*corev1.Pod {
	var out []*corev1.Pod
	for i := range s.Pods {
		if metav1.IsControlledBy(&s.Pods[i], rs) {
			out = append(out, &s.Pods[i])
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Revision is the revision annotation of an object: the Deployment
// controller's, or the Rollouts controller's on a Rollout's ReplicaSets
// (argo-rollouts utils/annotations RevisionAnnotation).
func Revision(obj metav1.Object) string {
	if rev, ok := obj.GetAnnotations()["deployment.kubernetes.io/revision"]; ok {
		return rev
	}
	return obj.GetAnnotations()["rollout."+RolloutGroup+"/revision"]
}
