// Package chain is the pure model of a workload's causal chain: the snapshot
// of objects the walk reads, the links it judges and the report it produces.
//
// It imports only k8s.io/api and k8s.io/apimachinery so that the same code runs
// on a live cluster, on a captured file and in tests. It never reads the clock:
// the snapshot carries its own time.
package chain

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Snapshot is everything the walk needs about one workload, read once.
// Fetching (live or from a file) fills it; deciding never fetches more.
type Snapshot struct {
	// Kind is the workload's kind; empty means a Deployment (KindOf).
	Kind Kind
	// Missing names what a resource's object refers to that does not
	// exist (a Certificate's Issuer, IssuerOf), when it was read.
	Missing []string
	// Alone says the object was read alone (a file holding only it, in
	// Object): its chain is walked as far as the object itself tells,
	// then judged by its own status, since what it leads to was left out
	// of the input, not found missing. A Service, Ingress or Gateway API
	// object alone is walked as any resource.
	Alone bool

	// Now is the moment the snapshot was taken. Ages are computed against it,
	// never against the clock, so a capture analysed later says the same.
	Now time.Time

	// Namespace and Name identify the workload asked for, even when it
	// does not exist.
	Namespace string
	Name      string

	// The workload: the one field of its kind is set, nil when it was not
	// found.
	Deployment  *appsv1.Deployment
	StatefulSet *appsv1.StatefulSet
	DaemonSet   *appsv1.DaemonSet
	Job         *batchv1.Job
	CronJob     *batchv1.CronJob
	// Rollout is an Argo Rollout (KindRollout).
	Rollout *Rollout
	// CloneSet is an OpenKruise CloneSet (KindCloneSet), as the API
	// returned it (CloneSetOf reads it).
	CloneSet *unstructured.Unstructured

	// Revisions are a StatefulSet's or DaemonSet's ControllerRevisions.
	Revisions []appsv1.ControllerRevision
	// Claims are the PersistentVolumeClaims of a StatefulSet's
	// volumeClaimTemplates; for any other kind, those its pods that wait
	// to be scheduled use (PendingClaims), whose binding may hold them.
	Claims []corev1.PersistentVolumeClaim
	// Nodes are the cluster's nodes, for a DaemonSet.
	Nodes []corev1.Node
	// Jobs are a CronJob's Jobs.
	Jobs []batchv1.Job

	// Services are the namespace's Services, read beside the workload's
	// own lists for the serving link; ServicesRead says they were read (a
	// live read, or a file that holds Services): a file without any cannot
	// tell "none" from "not captured". EndpointSlices are those of the
	// Services the serving link looks at.
	Services       []corev1.Service
	EndpointSlices []discoveryv1.EndpointSlice
	ServicesRead   bool
	// OtherPods are pods of the namespace that the near-miss Services
	// (NearMisses) select and that are not the workload's, at most one a
	// Service: such a Service is meant for them, not for the workload.
	// EndpointSlices cannot tell: a pod without an IP yet (Pending) is in
	// none.
	OtherPods []corev1.Pod

	// Autoscalers are the HorizontalPodAutoscalers whose scaleTargetRef is
	// the workload (a Scalable kind's, read beside it).
	Autoscalers []autoscalingv2.HorizontalPodAutoscaler

	// NetworkPolicies are those that select the pods, read only when a
	// Service selects them (Served).
	NetworkPolicies []networkingv1.NetworkPolicy

	// A traffic kind's object (IsTraffic): the Service or Ingress named,
	// nil when it was not found. For both, Services are the Services it
	// sends to (an Ingress reads the namespace's), Pods the namespace's
	// pods, EndpointSlices those of the Services; IngressClasses are the
	// cluster's. Templates are the namespace's workloads that run pods,
	// which a Service may select; Behind are the snapshots of those the
	// Services select, read when an endpoint is missing, whose chains say
	// why.
	Service        *corev1.Service
	Ingress        *networkingv1.Ingress
	IngressClasses []networkingv1.IngressClass
	// A Gateway API target: the Gateway, or the route named; Gateways
	// are the target Gateway or the route's parents that exist,
	// GatewayClasses the cluster's.
	Gateway        *gatewayv1.Gateway
	Route          *Route
	Gateways       []gatewayv1.Gateway
	GatewayClasses []gatewayv1.GatewayClass
	Templates      []Template
	Behind         []*Snapshot

	// A resource kind's object (IsResource), as the API returned it, nil
	// when it was not found, and where it is served. Its owned workloads'
	// snapshots are in Behind.
	Object *unstructured.Unstructured
	API    *APIResource
	// OwnedApart are workloads the object owns that are judged on their
	// own (they are in the release judged), so not walked again here.
	OwnedApart []Ref

	// Produced are the objects of well-known producer kinds (Producers)
	// that write a Secret the pods wait for, read only when one is missing.
	Produced []Produced

	// Applier is the GitOps object that applied the revision that broke
	// (an Argo CD Application, a Flux Kustomization or HelmRelease), read
	// only when a revision broke; ApplierNote says why it is not there
	// when it was looked for (not served, not found, forbidden).
	Applier     *unstructured.Unstructured
	ApplierNote string

	// ReplicaSets and Pods are those matching the workload's selector (a
	// CronJob's: those of its Jobs).
	ReplicaSets []appsv1.ReplicaSet
	Pods        []corev1.Pod
	// Events concern the Deployment, its ReplicaSets or its Pods, normalised
	// from core/v1 and events.k8s.io/v1.
	Events []Event

	// Gaps name what could not be read (forbidden, failed); the links that
	// depend on it become unknown instead of silently healthy.
	Gaps []Gap
	// EventsOf, when set, are the only objects whose events were read:
	// the namespace held more events than one read takes, so the reader
	// fetched those of EventTargets alone.
	EventsOf []ObjectRef

	// Requests counts the API requests spent building the snapshot.
	Requests int

	// Via is what the user named to reach this workload, "pod/NAME" or
	// "replicaset/NAME"; empty when they named the workload.
	Via string

	// Meant are the Services a --manifests release holds beside this
	// workload that are taken as meant for its pods by membership
	// (ReleaseMeant); MeantFor, on a Service's snapshot, the workloads
	// it is meant for that way.
	Meant    []string
	MeantFor []Ref
}

// Resource names a kind of object the walk reads.
type Resource string

// The resources a snapshot is built from.
const (
	ResourceDeployments Resource = "deployments"
	ResourceReplicaSets Resource = "replicasets"
	ResourcePods        Resource = "pods"
	ResourceEvents      Resource = "events"

	ResourceStatefulSets        Resource = "statefulsets"
	ResourceDaemonSets          Resource = "daemonsets"
	ResourceJobs                Resource = "jobs"
	ResourceCronJobs            Resource = "cronjobs"
	ResourceControllerRevisions Resource = "controllerrevisions"
	ResourceClaims              Resource = "persistentvolumeclaims"
	ResourceNodes               Resource = "nodes"
	ResourceServices            Resource = "services"
	ResourceEndpointSlices      Resource = "endpointslices"
	ResourceNetworkPolicies     Resource = "networkpolicies"
	ResourceIngressClasses      Resource = "ingressclasses"
	ResourceIngresses           Resource = "ingresses"
	ResourceRollouts            Resource = "rollouts"
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

// Shed is the snapshot without its evidence: what it is of (its kind, name
// and the object itself) and when, as kept after its walk by those that
// judge thousands of workloads and only need to name them afterwards.
func (s *Snapshot) Shed() *Snapshot {
	return &Snapshot{
		Kind: s.Kind, Alone: s.Alone, Now: s.Now, Namespace: s.Namespace, Name: s.Name, Via: s.Via,
		Deployment: s.Deployment, StatefulSet: s.StatefulSet, DaemonSet: s.DaemonSet, Job: s.Job,
		CronJob: s.CronJob, Rollout: s.Rollout, CloneSet: s.CloneSet,
		Service: s.Service, Ingress: s.Ingress, Gateway: s.Gateway, Route: s.Route,
		Object: s.Object, API: s.API,
	}
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
