// Package chain is the pure model of a Deployment's causal chain: the snapshot
// of objects the walk reads, the links it judges and the report it produces.
//
// It imports only k8s.io/api and k8s.io/apimachinery so that the same code runs
// on a live cluster, on a captured file and in tests. It never reads the clock:
// the snapshot carries its own time.
package chain

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// Snapshot is everything the walk needs about one Deployment, read once.
// Fetching (live or from a file) fills it; deciding never fetches more.
type Snapshot struct {
	// Now is the moment the snapshot was taken. Ages are computed against it,
	// never against the clock, so a capture analysed later says the same.
	Now time.Time

	// Namespace and Name identify the Deployment asked for, even when it does
	// not exist.
	Namespace string
	Name      string

	// Deployment is nil when it was not found.
	Deployment *appsv1.Deployment
	// ReplicaSets and Pods are those matching the Deployment's selector.
	ReplicaSets []appsv1.ReplicaSet
	Pods        []corev1.Pod
	// Events concern the Deployment, its ReplicaSets or its Pods, normalised
	// from core/v1 and events.k8s.io/v1.
	Events []Event

	// Gaps name what could not be read (forbidden, failed); the links that
	// depend on it become unknown instead of silently healthy.
	Gaps []Gap

	// Requests counts the API requests spent building the snapshot.
	Requests int

	// Via is what the user named to reach this Deployment, "pod/NAME" or
	// "replicaset/NAME"; empty when they named the Deployment.
	Via string
}

// Resource names a kind of object the walk reads.
type Resource string

// The resources a snapshot is built from.
const (
	ResourceDeployments Resource = "deployments"
	ResourceReplicaSets Resource = "replicasets"
	ResourcePods        Resource = "pods"
	ResourceEvents      Resource = "events"
)

// Gap is evidence that could not be read, and why.
type Gap struct {
	Resource Resource `json:"resource"`
	// Verb is the API verb that failed ("list", "get").
	Verb string `json:"verb"`
	// Forbidden is true when RBAC refused the read.
	Forbidden bool `json:"forbidden"`
	// Message is the API server's error text.
	Message string `json:"message"`
	// Check is the command that tells whether the permission is there.
	Check string `json:"check,omitempty"`
}

// Gap returns the gap recorded for a resource, if any.
func (s *Snapshot) Gap(r Resource) *Gap {
	for i := range s.Gaps {
		if s.Gaps[i].Resource == r {
			return &s.Gaps[i]
		}
	}
	return nil
}
