package paste

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
)

// Result is what a paste showed: the objects kubectl printed, rebuilt,
// and what the text lacks.
type Result struct {
	Deployments []appsv1.Deployment
	ReplicaSets []appsv1.ReplicaSet
	Pods        []corev1.Pod
	Nodes       []corev1.Node
	// The other kinds kubectl describe prints that Parse reads.
	StatefulSets []appsv1.StatefulSet
	DaemonSets   []appsv1.DaemonSet
	Jobs         []batchv1.Job
	CronJobs     []batchv1.CronJob
	Services     []corev1.Service
	// EndpointSlices are those described, and those read from a
	// kubectl describe endpoints (one slice of its addresses, named as
	// the Endpoints) when no slice of that Service is described.
	EndpointSlices []discoveryv1.EndpointSlice
	Ingresses      []networkingv1.Ingress
	// ServicesNotFound are the Services ("namespace/name") a describe
	// says kubectl looked up and did not find: describe ingress's
	// backend "web:80 (<error: services "web" not found>)".
	ServicesNotFound []string
	// IngressClasses are those of kubectl describe ingressclass and
	// kubectl get ingressclass (cluster-scoped: every class there is).
	IngressClasses []networkingv1.IngressClass
	Claims         []corev1.PersistentVolumeClaim
	// Quotas are those of kubectl describe resourcequota and of the
	// Resource Quotas section of kubectl describe namespace.
	Quotas     []corev1.ResourceQuota
	Namespaces []corev1.Namespace
	// LimitRanges are the Resource Limits of kubectl describe
	// namespace: one a namespace, unnamed, as describe merges them.
	LimitRanges []corev1.LimitRange
	// Events are core/v1 events: those of a describe are about the
	// object described; those of kubectl get events about the OBJECT
	// column's. Times count back from Now.
	Events []corev1.Event
	// YAML are the parts of the input that are YAML or JSON documents
	// (a paste mixing kubectl get -o yaml with describe), for the
	// caller's reader.
	YAML []string
	// Generic counts the YAML documents rebuilt from kubectl's generic
	// describe (of a custom resource), among YAML.
	Generic int
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
