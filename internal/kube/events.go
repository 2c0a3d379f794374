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

// appendRelevantKinds normalises the events about Deployments, ReplicaSets
// and Pods and drops the rest (Nodes, Services, Jobs...) while the page is
// at hand; which of them concern this Deployment is only known once the
// ReplicaSets and Pods are listed, in parallel with the events.
func appendRelevantKinds(dst []chain.Event, page []corev1.Event) []chain.Event {
	for i := range page {
		switch page[i].InvolvedObject.Kind {
		case kindDeployment, kindReplicaSet, kindPod:
			dst = append(dst, chain.EventFromCore(&page[i]))
		}
	}
	return dst
}
