package kubelet

import (
	corev1 "k8s.io/api/core/v1"
)

// AnnotationStopped on a simulated node stops its kubelet's writes, as a
// kubelet that died or lost its way to the API server: no Lease renewal,
// no node status, no pod status. The node lifecycle controller then marks
// the node Unknown ("Kubelet stopped posting node status.") after its
// grace, and its pods not ready. Removing the annotation brings the kubelet
// back: it renews its Lease and posts again. (Scenario node-not-ready.)
const AnnotationStopped = AnnotationPrefix + "kubelet-stopped"

// stopped says the node as stored carries AnnotationStopped "true".
func (a *nodeAgent) stopped() bool {
	if a.stored == nil {
		return false
	}
	obj, ok, err := a.stored.GetByKey(a.cfg.Name)
	if err != nil || !ok {
		return false
	}
	n, ok := obj.(*corev1.Node)
	return ok && n.Annotations[AnnotationStopped] == "true"
}
