package paste

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// Result is what a paste showed: the objects kubectl printed, rebuilt,
// and what the text lacks.
type Result struct {
	Deployments []appsv1.Deployment
	ReplicaSets []appsv1.ReplicaSet
	Pods        []corev1.Pod
	Nodes       []corev1.Node
	// Events are core/v1 events: those of a describe are about the
	// object described; those of kubectl get events about the OBJECT
	// column's. Times count back from Now.
	Events []corev1.Event
	// YAML are the parts of the input that are YAML or JSON documents
	// (a paste mixing kubectl get -o yaml with describe), for the
	// caller's reader.
	YAML []string
	// Forms name what was read, in order ("kubectl describe pod
	// shop/web-1", "kubectl get events").
	Forms []string
	// Notes name what the text could not show and the text that would
	// show it, and where a paste was cut.
	Notes []string
	// Now is the moment the paste's ages count back from: its newest
	// absolute time (a Start Time, a container's Started or Finished, a
	// CreationTimestamp), or Epoch when it shows none.
	Now time.Time
}

// Epoch is the time a paste that prints no absolute time is judged at:
// its ages count back from it.
var Epoch = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)

// Empty says the text held no kubectl output at all.
func (r *Result) Empty() bool {
	return len(r.Forms) == 0 && len(r.YAML) == 0
}
