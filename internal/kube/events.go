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
// the workloads, what they own, the claims a StatefulSet's pods mount, and
// the traffic objects (the service controller's load-balancer events, the
// ingress controllers'), and Argo Rollouts.
var relevantKinds = map[string]bool{
	kindDeployment: true, kindReplicaSet: true, kindPod: true,
	"StatefulSet": true, "DaemonSet": true, "Job": true, "CronJob": true, "PersistentVolumeClaim": true,
	"Service": true, "Ingress": true, "Gateway": true, "HTTPRoute": true, "GRPCRoute": true, "TLSRoute": true,
	"Rollout": true,
}

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
