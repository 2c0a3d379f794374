package chain

import (
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Class is how a kind's chain reaches the pods that do the work, and so
// which family of walk, read and capture serves it.
type Class string

// The classes of the kinds table. A kind with no row is a resource kind
// (IsResource): judged by its own status and what it owns.
const (
	// ClassWorkload: a controller makes pods from the kind's pod template.
	ClassWorkload Class = "workload"
	// ClassPod: a pod walked alone, its chain all in itself.
	ClassPod Class = "pod"
	// ClassTraffic: the object sends traffic to pods rather than runs
	// them; its chain quotes the chains of the workloads it reaches.
	ClassTraffic Class = "traffic"
)

// KindRow is one row of the kinds table: what every layer needs to know of
// a kind kubectl chain walks by its own chain. Each layer keys its own
// table (the read recipe, the walk, capture's selection, the spellings,
// the permissions) by the rows' kinds, and a test per layer fails when a
// row has no entry there. The model is kstatus's table of per-kind status
// functions and kubectl's map of describers.
type KindRow struct {
	Kind  Kind
	Class Class
	// Group and Version are the kind's API group ("" for the core group)
	// and the version kubectl chain reads.
	Group, Version string
	// Short is the kind's short name as kubectl (or the CRD) spells it,
	// "" with none.
	Short string
	// CRD says the kind is served only once its CustomResourceDefinition
	// is installed: read through the dynamic client, and left out of the
	// built-in kinds listed by --all.
	CRD bool
	// Links is the kind's chain, in the order its links run.
	Links []LinkID
	// Scales says a HorizontalPodAutoscaler may scale the kind's replicas.
	Scales bool
	// Controller names the controller that acts on the kind, for link
	// titles ("Deployment", "Argo Rollouts"); "" when only the API server
	// and the kubelet do (a pod, a traffic object).
	Controller string
	// PodsBy names who creates the kind's pods, for the pods link's title.
	PodsBy string
	// Deadline says the kind's controller judges a rollout that stalls
	// itself (a Deployment's or Rollout's spec.progressDeadlineSeconds);
	// the ready link gives a kind without one a Deployment's default
	// (diagnose.NoDeadlineWindow).
	Deadline bool

	// creates is how the kind's controller creates pods; wanted, for one
	// that creates them itself, how many it wants (nil: its own events
	// matter whatever its pods, as a Job's).
	creates creates
	wanted  func(metav1.Object) (int32, bool)

	object   func(*Snapshot) metav1.Object
	store    func(*Snapshot, metav1.Object)
	template func(metav1.Object) *corev1.PodTemplateSpec
	selector func(metav1.Object) *metav1.LabelSelector
	empty    func() metav1.Object
	// decode turns an object as the dynamic client returns it into the
	// row's type; nil converts into New's.
	decode func(*unstructured.Unstructured) (metav1.Object, error)
}

// creates is how a kind's controller creates its pods, which says whose
// events explain missing pods (Snapshot.EventTargets).
type creates int

const (
	createsNone creates = iota
	// createsThroughReplicaSets: through its current ReplicaSet.
	createsThroughReplicaSets
	// createsItself: the kind's own controller creates its pods.
	createsItself
)

// Object is the snapshot's object of the row's kind, nil when it was not
// found.
func (r KindRow) Object(s *Snapshot) metav1.Object { return r.object(s) }

// Store puts obj, an object of the row's kind, in its place in s.
func (r KindRow) Store(s *Snapshot, obj metav1.Object) { r.store(s, obj) }

// Template is the pod template of obj, an object of the row's kind; nil
// for a kind without one (a traffic kind) or an object of another type.
func (r KindRow) Template(obj metav1.Object) *corev1.PodTemplateSpec {
	if r.template == nil || obj == nil {
		return nil
	}
	return r.template(obj)
}

// Selector is the label selector of obj's pods; nil for a kind that
// selects its pods otherwise (a CronJob's are its Jobs', a pod is itself).
func (r KindRow) Selector(obj metav1.Object) *metav1.LabelSelector {
	if r.selector == nil || obj == nil {
		return nil
	}
	return r.selector(obj)
}

// SelectsPods says the kind's pods are those its selector matches (not a
// CronJob's, whose pods are its Jobs', nor a pod's).
func (r KindRow) SelectsPods() bool { return r.selector != nil }

// CreatesPods says the kind's own controller creates its pods (a
// StatefulSet's, a DaemonSet's, a Job's), not through ReplicaSets: a pod
// it controls is walked by its chain.
func (r KindRow) CreatesPods() bool { return r.Class == ClassWorkload && r.creates == createsItself }

// New is an empty object of the row's kind, to decode into.
func (r KindRow) New() metav1.Object { return r.empty() }

// Decode is u, an object of the row's kind as the dynamic client returns
// it (a CRD's kind is read that way), as the row's type: what Store and
// Template take.
func (r KindRow) Decode(u *unstructured.Unstructured) (metav1.Object, error) {
	if r.decode != nil {
		return r.decode(u)
	}
	obj := r.empty()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
		return nil, fmt.Errorf("decoding %s %s/%s: %w", r.Kind.Resource(), u.GetNamespace(), u.GetName(), err)
	}
	return obj, nil
}

// API is where the kind's objects are served.
func (r KindRow) API() APIResource {
	return APIResource{Group: r.Group, Version: r.Version, Resource: r.Kind.Plural(), Kind: string(r.Kind), Namespaced: true}
}

// Resource is the kind's lower-case singular ("statefulset").
func (r KindRow) Resource() string { return r.Kind.Resource() }

// Serves says the kind's chain goes on past ready to the Services.
func (r KindRow) Serves() bool { return slices.Contains(r.Links, LinkServing) }

// Completes says the kind's pods should finish rather than keep running.
func (r KindRow) Completes() bool { return slices.Contains(r.Links, LinkCompletion) }

// Spellings are the names kubectl accepts for the kind: its short name,
// singular and plural, each alone, with its group, and with its version
// and group ("deploy", "deployments.apps", "deployment.v1.apps"; the core
// group's "pod.v1").
func (r KindRow) Spellings() []string {
	var out []string
	for _, s := range []string{r.Short, r.Resource(), r.Kind.Plural()} {
		if s == "" {
			continue
		}
		if r.Group == "" {
			out = append(out, s, s+"."+r.Version)
			continue
		}
		out = append(out, s, s+"."+r.Group, s+"."+r.Version+"."+r.Group)
	}
	return out
}

// field makes a row's object, store and selector accessors from one
// field of the snapshot.
func field[T metav1.Object](at func(*Snapshot) *T, sel func(T) *metav1.LabelSelector) (func(*Snapshot) metav1.Object, func(*Snapshot, metav1.Object), func(metav1.Object) *metav1.LabelSelector) {
	object := func(s *Snapshot) metav1.Object {
		v := *at(s)
		if isNil(v) {
			return nil
		}
		return v
	}
	store := func(s *Snapshot, obj metav1.Object) {
		if v, ok := obj.(T); ok {
			*at(s) = v
		}
	}
	var selector func(metav1.Object) *metav1.LabelSelector
	if sel != nil {
		selector = func(obj metav1.Object) *metav1.LabelSelector {
			if v, ok := obj.(T); ok && !isNil(v) {
				return sel(v)
			}
			return nil
		}
	}
	return object, store, selector
}

// isNil says v, a typed pointer, is nil.
func isNil[T any](v T) bool {
	var zero T
	return any(v) == any(zero)
}

// templateOf reaches the pod template of one workload type.
func templateOf[T metav1.Object](at func(T) *corev1.PodTemplateSpec) func(metav1.Object) *corev1.PodTemplateSpec {
	return func(obj metav1.Object) *corev1.PodTemplateSpec {
		if v, ok := obj.(T); ok && !isNil(v) {
			return at(v)
		}
		return nil
	}
}

func workloadRow[T metav1.Object](k Kind, group, short string, at func(*Snapshot) *T, sel func(T) *metav1.LabelSelector, tmpl func(T) *corev1.PodTemplateSpec, empty func() metav1.Object) KindRow {
	r := KindRow{Kind: k, Class: ClassWorkload, Group: group, Version: "v1", Short: short, Controller: string(k), PodsBy: string(k) + " controller", creates: createsItself}
	r.object, r.store, r.selector = field(at, sel)
	r.template, r.empty = templateOf(tmpl), empty
	return r
}

func trafficRow[T metav1.Object](k Kind, group, short string, at func(*Snapshot) *T, empty func() metav1.Object) KindRow {
	r := KindRow{Kind: k, Class: ClassTraffic, Group: group, Version: "v1", Short: short, CRD: group == GatewayGroup}
	r.object, r.store, _ = field(at, nil)
	r.empty = empty
	return r
}

// routeRow is a Gateway API route's row: the snapshot holds every route
// kind in one field, as a Route.
func routeRow(k Kind, empty func() metav1.Object) KindRow {
	r := trafficRow(k, GatewayGroup, "", func(s *Snapshot) **Route { return &s.Route }, empty)
	r.store = func(s *Snapshot, obj metav1.Object) {
		if rt, ok := obj.(*Route); ok {
			s.Route = rt
		} else if rt, err := RouteOf(obj); err == nil {
			s.Route = rt
		}
	}
	return r
}

// kindTable is every kind kubectl chain walks by its own chain, in the
// order a table of several lists them: the built-in workloads, the
// traffic kinds, then the others.
var kindTable = func() []KindRow {
	deploy := workloadRow(KindDeployment, "apps", "deploy", func(s *Snapshot) **appsv1.Deployment { return &s.Deployment },
		func(d *appsv1.Deployment) *metav1.LabelSelector { return d.Spec.Selector },
		func(d *appsv1.Deployment) *corev1.PodTemplateSpec { return &d.Spec.Template },
		func() metav1.Object { return &appsv1.Deployment{} })
	deploy.Links, deploy.Scales, deploy.PodsBy, deploy.creates, deploy.Deadline = Links, true, "ReplicaSet controller", createsThroughReplicaSets, true

	sts := workloadRow(KindStatefulSet, "apps", "sts", func(s *Snapshot) **appsv1.StatefulSet { return &s.StatefulSet },
		func(d *appsv1.StatefulSet) *metav1.LabelSelector { return d.Spec.Selector },
		func(d *appsv1.StatefulSet) *corev1.PodTemplateSpec { return &d.Spec.Template },
		func() metav1.Object { return &appsv1.StatefulSet{} })
	sts.Links, sts.Scales = []LinkID{LinkStored, LinkRevision, LinkPods, LinkClaims, LinkNodeAssignment, LinkContainers, LinkReady, LinkServing}, true
	sts.wanted = func(obj metav1.Object) (int32, bool) {
		r := obj.(*appsv1.StatefulSet).Spec.Replicas
		if r == nil {
			return 0, false
		}
		return *r, true
	}

	ds := workloadRow(KindDaemonSet, "apps", "ds", func(s *Snapshot) **appsv1.DaemonSet { return &s.DaemonSet },
		func(d *appsv1.DaemonSet) *metav1.LabelSelector { return d.Spec.Selector },
		func(d *appsv1.DaemonSet) *corev1.PodTemplateSpec { return &d.Spec.Template },
		func() metav1.Object { return &appsv1.DaemonSet{} })
	ds.Links = []LinkID{LinkStored, LinkNodes, LinkPods, LinkNodeAssignment, LinkContainers, LinkReady, LinkServing}
	ds.wanted = func(obj metav1.Object) (int32, bool) {
		return obj.(*appsv1.DaemonSet).Status.DesiredNumberScheduled, true
	}

	job := workloadRow(KindJob, "batch", "", func(s *Snapshot) **batchv1.Job { return &s.Job },
		func(d *batchv1.Job) *metav1.LabelSelector { return d.Spec.Selector },
		func(d *batchv1.Job) *corev1.PodTemplateSpec { return &d.Spec.Template },
		func() metav1.Object { return &batchv1.Job{} })
	job.Links = []LinkID{LinkStored, LinkPods, LinkNodeAssignment, LinkContainers, LinkCompletion}

	// A CronJob's pods are its Jobs': no selector of its own.
	cj := workloadRow(KindCronJob, "batch", "cj", func(s *Snapshot) **batchv1.CronJob { return &s.CronJob }, nil,
		func(d *batchv1.CronJob) *corev1.PodTemplateSpec { return &d.Spec.JobTemplate.Spec.Template },
		func() metav1.Object { return &batchv1.CronJob{} })
	cj.Links, cj.PodsBy = []LinkID{LinkStored, LinkSchedule, LinkPods, LinkNodeAssignment, LinkContainers, LinkCompletion}, "the last Job's controller"

	ro := workloadRow(KindRollout, RolloutGroup, "ro", func(s *Snapshot) **Rollout { return &s.Rollout },
		func(d *Rollout) *metav1.LabelSelector { return d.Spec.Selector },
		func(d *Rollout) *corev1.PodTemplateSpec { return &d.Spec.Template },
		func() metav1.Object { return &Rollout{} })
	ro.Version, ro.CRD, ro.Links, ro.Scales = RolloutAPI.Version, true, rolloutChain, true
	ro.decode = func(u *unstructured.Unstructured) (metav1.Object, error) { return DecodeRollout(u) }
	ro.Controller, ro.PodsBy, ro.creates, ro.Deadline = "Argo Rollouts", "ReplicaSet controller", createsThroughReplicaSets, true

	pod := KindRow{Kind: KindPod, Class: ClassPod, Version: "v1", Short: "po", PodsBy: "ReplicaSet controller",
		Links: []LinkID{LinkStored, LinkNodeAssignment, LinkContainers, LinkReady, LinkServing}}
	pod.object = func(s *Snapshot) metav1.Object {
		for i := range s.Pods {
			if s.Pods[i].Name == s.Name {
				return &s.Pods[i]
			}
		}
		return nil
	}
	pod.store = func(s *Snapshot, obj metav1.Object) {
		if p, ok := obj.(*corev1.Pod); ok && p != nil {
			s.Pods = []corev1.Pod{*p}
		}
	}
	pod.template = func(obj metav1.Object) *corev1.PodTemplateSpec {
		if p, ok := obj.(*corev1.Pod); ok && p != nil {
			return &corev1.PodTemplateSpec{ObjectMeta: p.ObjectMeta, Spec: p.Spec}
		}
		return nil
	}
	pod.empty = func() metav1.Object { return &corev1.Pod{} }

	svc := trafficRow(KindService, "", "svc", func(s *Snapshot) **corev1.Service { return &s.Service }, func() metav1.Object { return &corev1.Service{} })
	svc.Links = []LinkID{LinkStored, LinkSelector, LinkWorkloads, LinkEndpoints}
	ing := trafficRow(KindIngress, "networking.k8s.io", "ing", func(s *Snapshot) **networkingv1.Ingress { return &s.Ingress }, func() metav1.Object { return &networkingv1.Ingress{} })
	ing.Links = []LinkID{LinkStored, LinkClass, LinkBackends, LinkSelector, LinkWorkloads, LinkEndpoints}
	gtw := trafficRow(KindGateway, GatewayGroup, "gtw", func(s *Snapshot) **gatewayv1.Gateway { return &s.Gateway }, func() metav1.Object { return &gatewayv1.Gateway{} })
	gtw.Links = []LinkID{LinkStored, LinkClass, LinkGateway}
	rows := []KindRow{deploy, sts, ds, job, cj, svc, ing, gtw}
	for _, rt := range []KindRow{
		routeRow(KindHTTPRoute, func() metav1.Object { return &gatewayv1.HTTPRoute{} }),
		routeRow(KindGRPCRoute, func() metav1.Object { return &gatewayv1.GRPCRoute{} }),
		routeRow(KindTLSRoute, func() metav1.Object { return &gatewayv1.TLSRoute{} }),
	} {
		rt.Links = routeChain
		rows = append(rows, rt)
	}
	return append(rows, ro, cloneSetRow(), pod)
}()

// KindTable is every row of the kinds table, in its order.
func KindTable() []KindRow { return slices.Clone(kindTable) }

// RowOf is the row of kind k; a snapshot's or report's empty kind is a
// Deployment's (KindOf). False for a resource kind.
func RowOf(k Kind) (KindRow, bool) {
	if k == "" {
		k = KindDeployment
	}
	for _, r := range kindTable {
		if r.Kind == k {
			return r, true
		}
	}
	return KindRow{}, false
}

// KindsOf are the table's kinds of class c, in its order; with builtIn,
// only those every cluster serves.
func KindsOf(c Class, builtIn bool) []Kind {
	var out []Kind
	for _, r := range kindTable {
		if r.Class == c && (!builtIn || !r.CRD) {
			out = append(out, r.Kind)
		}
	}
	return out
}

// KindBySpelling is the kind a type spelled as kubectl accepts it names
// ("deploy", "ingresses.networking.k8s.io"), false for any other.
func KindBySpelling(typ string) (Kind, bool) {
	typ = strings.ToLower(typ)
	for _, r := range kindTable {
		if slices.Contains(r.Spellings(), typ) {
			return r.Kind, true
		}
	}
	return "", false
}
