package kube

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// The kinds of object a snapshot's events can be about.
const (
	kindDeployment = "Deployment"
	kindReplicaSet = "ReplicaSet"
	kindPod        = "Pod"
)

// relevantKinds are the kinds of object whose events a snapshot can use:
// every kind of the kinds table (the workloads, a pod, the traffic
// objects: the service controller's load-balancer events, the ingress
// controllers'), and what the workloads own beside their pods: a
// Deployment's ReplicaSets, the claims a StatefulSet's pods mount.
var relevantKinds = func() map[string]bool {
	out := map[string]bool{kindReplicaSet: true, "PersistentVolumeClaim": true}
	for _, row := range chain.KindTable() {
		out[string(row.Kind)] = true
	}
	return out
}()

// appendRelevantKinds normalises the events about workloads, what they own
// and claims, and drops the rest (Nodes, Services...) while the page is at
// hand; which of them concern this workload is only known once its pods
// are listed, in parallel with the events.
func appendRelevantKinds(dst []chain.Event, page []corev1.Event) []chain.Event {
	for i := range page {
		if relevantKinds[page[i].InvolvedObject.Kind] {
			dst = append(dst, chain.EventFromCore(&page[i]))
		}
	}
	return dst
}
