package chain

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// An OpenKruise CloneSet (apps.kruise.io/v1alpha1) is walked as a
// Deployment would be without ReplicaSets: the CloneSet controller
// creates, updates and deletes its pods itself (kruise
// pkg/controller/cloneset). The snapshot keeps the object as the API
// returned it (Snapshot.CloneSet): kruise-api's Go types would pull the
// project's dependencies into the diagnosis binary for a few fields,
// which CloneSetOf reads.
const (
	KindCloneSet Kind = "CloneSet"
	// CloneSetGroup is OpenKruise's API group of its workloads.
	CloneSetGroup = "apps.kruise.io"
)

var cloneSetChain = []LinkID{LinkStored, LinkPods, LinkNodeAssignment, LinkContainers, LinkReady, LinkServing}

// CloneSet is the part of a CloneSet the walk reads, with the field
// names of kruise-api's apps/v1alpha1 cloneset_types.go.
type CloneSet struct {
	Spec struct {
		Replicas        *int32                 `json:"replicas,omitempty"`
		MinReadySeconds int32                  `json:"minReadySeconds,omitempty"`
		UpdateStrategy  CloneSetUpdateStrategy `json:"updateStrategy,omitempty"`
	} `json:"spec"`
	Status CloneSetStatus `json:"status,omitempty"`
	// Undecoded are the fields left out because they did not fit their
	// type (Lenient).
	Undecoded []string `json:"-"`
}

// CloneSetUpdateStrategy is how the controller moves pods to the update
// revision: recreating them, or in place.
type CloneSetUpdateStrategy struct {
	// Type is ReCreate (the default), InPlaceIfPossible or InPlaceOnly.
	Type string `json:"type,omitempty"`
	// Partition is how many pods (or what share of spec.replicas) stay
	// at the current revision.
	Partition *intstr.IntOrString `json:"partition,omitempty"`
	// Paused stops the update: no pod moves to the update revision
	// (scaling goes on).
	Paused bool `json:"paused,omitempty"`
}

// CloneSetStatus is what the controller writes
// (pkg/controller/cloneset/cloneset_status.go calculateStatus).
type CloneSetStatus struct {
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Replicas are the pods it controls; Ready and Available those
	// Ready (and for minReadySeconds); Updated those of the update
	// revision, UpdatedReady those of them Ready.
	Replicas             int32 `json:"replicas,omitempty"`
	ReadyReplicas        int32 `json:"readyReplicas,omitempty"`
	AvailableReplicas    int32 `json:"availableReplicas,omitempty"`
	UpdatedReplicas      int32 `json:"updatedReplicas,omitempty"`
	UpdatedReadyReplicas int32 `json:"updatedReadyReplicas,omitempty"`
	// ExpectedUpdatedReplicas is how many pods the partition lets the
	// update reach.
	ExpectedUpdatedReplicas *int32              `json:"expectedUpdatedReplicas,omitempty"`
	UpdateRevision          string              `json:"updateRevision,omitempty"`
	CurrentRevision         string              `json:"currentRevision,omitempty"`
	Conditions              []CloneSetCondition `json:"conditions,omitempty"`
}

// The conditions the CloneSet controller sets True with the error that
// stopped it (cloneset_controller.go syncCloneSet).
const (
	CloneSetFailedScale  = "FailedScale"
	CloneSetFailedUpdate = "FailedUpdate"
)

// CloneSetCondition is one of the CloneSet's conditions.
type CloneSetCondition struct {
	Type               string      `json:"type"`
	Status             string      `json:"status"`
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty"`
	Reason             string      `json:"reason,omitempty"`
	Message            string      `json:"message,omitempty"`
}

// IsCloneSet says obj is a CloneSet as the API serves it.
func IsCloneSet(obj metav1.Object) bool {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || u == nil {
		return false
	}
	gvk := u.GroupVersionKind()
	return gvk.Group == CloneSetGroup && gvk.Kind == string(KindCloneSet)
}

// CloneSetOf reads the fields the walk uses of a CloneSet. A field that
// does not fit its type is left out and named in Undecoded (Lenient).
func CloneSetOf(u *unstructured.Unstructured) (*CloneSet, error) {
	var cs CloneSet
	dropped, err := Lenient(u.Object, func(m map[string]any) error {
		var try CloneSet
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &try); err != nil {
			return err
		}
		cs = try
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("decoding cloneset %s/%s: %w", u.GetNamespace(), u.GetName(), err)
	}
	cs.Undecoded = dropped
	return &cs, nil
}

// Replicas is spec.replicas, 1 when unset (the CloneSet webhook's
// default).
func (cs *CloneSet) Replicas() int32 {
	if cs.Spec.Replicas == nil {
		return 1
	}
	return *cs.Spec.Replicas
}

// Partition is how many of the wanted pods stay at the current
// revision: spec.updateStrategy.partition, a share of spec.replicas
// rounded up, at most all, as the controller reads it (kruise pkg/util
// CalculatePartitionReplicas).
func (cs *CloneSet) Partition() int32 {
	p := cs.Spec.UpdateStrategy.Partition
	if p == nil {
		return 0
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(p, int(cs.Replicas()), true)
	if err != nil || n < 0 {
		return 0
	}
	return min(int32(n), cs.Replicas())
}

// Condition is the CloneSet's condition of type t, nil when absent.
func (cs *CloneSet) Condition(t string) *CloneSetCondition {
	for i := range cs.Status.Conditions {
		if cs.Status.Conditions[i].Type == t {
			return &cs.Status.Conditions[i]
		}
	}
	return nil
}

// cloneSetTemplate is a CloneSet's spec.template, nil for another object
// or one that does not fit a pod template.
func cloneSetTemplate(obj metav1.Object) *corev1.PodTemplateSpec {
	if !IsCloneSet(obj) {
		return nil
	}
	m, ok, _ := unstructured.NestedMap(obj.(*unstructured.Unstructured).Object, "spec", "template")
	if !ok {
		return nil
	}
	var t corev1.PodTemplateSpec
	if runtime.DefaultUnstructuredConverter.FromUnstructured(m, &t) != nil {
		return nil
	}
	return &t
}

// cloneSetSelector is a CloneSet's spec.selector, nil for another object
// or one without a selector that fits.
func cloneSetSelector(u *unstructured.Unstructured) *metav1.LabelSelector {
	if !IsCloneSet(u) {
		return nil
	}
	m, ok, _ := unstructured.NestedMap(u.Object, "spec", "selector")
	if !ok {
		return nil
	}
	var ls metav1.LabelSelector
	if runtime.DefaultUnstructuredConverter.FromUnstructured(m, &ls) != nil {
		return nil
	}
	return &ls
}

// cloneSetRow is the CloneSet's row of the kinds table.
func cloneSetRow() KindRow {
	r := KindRow{Kind: KindCloneSet, Class: ClassWorkload, Group: CloneSetGroup, Version: "v1alpha1", Short: "clone", CRD: true,
		Links: cloneSetChain, Scales: true, Controller: string(KindCloneSet), PodsBy: "CloneSet controller", creates: createsItself}
	var store func(*Snapshot, metav1.Object)
	r.object, store, r.selector = field(func(s *Snapshot) **unstructured.Unstructured { return &s.CloneSet }, cloneSetSelector)
	r.store = func(s *Snapshot, obj metav1.Object) {
		if IsCloneSet(obj) {
			store(s, obj)
		}
	}
	r.template = cloneSetTemplate
	r.decode = func(u *unstructured.Unstructured) (metav1.Object, error) {
		if !IsCloneSet(u) {
			return nil, fmt.Errorf("%s %s/%s is not an OpenKruise CloneSet", u.GetKind(), u.GetNamespace(), u.GetName())
		}
		return u, nil
	}
	r.wanted = func(obj metav1.Object) (int32, bool) {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return 0, false
		}
		cs, err := CloneSetOf(u)
		if err != nil {
			return 0, false
		}
		return cs.Replicas(), true
	}
	r.empty = func() metav1.Object {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion(CloneSetGroup + "/" + r.Version)
		u.SetKind(string(KindCloneSet))
		return u
	}
	return r
}
