package corpus

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The objects beside the workload (objects:): a Service, an Ingress, an
// autoscaler, a Certificate, as the thread shows them. Build takes each as
// it is and fills only what every stored object has and no thread shows: a
// namespace (the workload's) when it names none and its kind is
// namespaced, a UID and a creation time (the workload's) when it has none,
// and the UID of an ownerReference that names another of the objects.

// clusterScoped are the kinds an object of objects: may be whose objects
// name no namespace.
var clusterScoped = map[string]bool{"IngressClass": true, "ClusterIssuer": true, "ClusterSecretStore": true,
	"GatewayClass": true, "StorageClass": true, "Node": true, "APIService": true, "Namespace": true, "PersistentVolume": true}

// objectSources are the components that write the events of an object's
// kind (its events' source: when they give none); an event on an object of
// another kind has the source the thread shows, none when it shows none.
var objectSources = map[string]string{"Service": "service-controller", "HorizontalPodAutoscaler": "horizontal-pod-autoscaler",
	"Endpoints": "endpoint-controller", "EndpointSlice": "endpointslice-controller"}

// objectKey is how events' on: name an object: its kind lower-cased and
// its name.
func objectKey(kind, name string) string { return strings.ToLower(kind) + "/" + name }

// checkObjects checks each object names its apiVersion, kind and name,
// once, and returns their keys.
func (in Incident) checkObjects() (map[string]bool, error) {
	keys := map[string]bool{}
	for i, o := range in.Objects {
		u := unstructured.Unstructured{Object: o}
		if u.GetAPIVersion() == "" || u.GetKind() == "" || objectName(u, i) == "" {
			return nil, fmt.Errorf("object %d: needs apiVersion, kind and metadata.name (an EndpointSlice: or its service-name label)", i)
		}
		k := objectKey(u.GetKind(), objectName(u, i))
		if keys[k] {
			return nil, fmt.Errorf("object %d: %s twice", i, k)
		}
		keys[k] = true
	}
	if in.Target != "" && !strings.Contains(in.Target, "/") {
		return nil, fmt.Errorf("target %q: write it KIND/NAME, as kubectl chain -f LIST KIND/NAME takes it", in.Target)
	}
	switch in.WorkloadKind() {
	case "Job", "CronJob":
		if len(in.Labels) > 0 {
			return nil, fmt.Errorf("labels: a Job's pods carry the job controller's labels")
		}
	}
	return keys, nil
}

// objectName is the object's name; an EndpointSlice that names none (a
// describe's Endpoints line shows no slice's name) has the name the
// EndpointSlice controller generates from its Service's, with a suffix of
// the builder's.
func objectName(u unstructured.Unstructured, i int) string {
	if n := u.GetName(); n != "" || u.GetKind() != "EndpointSlice" {
		return n
	}
	svc := u.GetLabels()["kubernetes.io/service-name"]
	if svc == "" {
		return ""
	}
	b := &builder{in: Incident{Name: svc}}
	return svc + "-" + b.suffix("slice", i, 5)
}

// podLabels are the pods' labels and the workload's selector.
func (b *builder) podLabels() map[string]string {
	if len(b.in.Labels) > 0 {
		return maps.Clone(b.in.Labels)
	}
	return map[string]string{"app": app}
}

// objectsAlone says the List holds the objects without a workload: the
// incident is walked from its target, and the thread shows no pod and
// nothing of a workload.
func (b *builder) objectsAlone() bool {
	if b.in.Target == "" || len(b.in.Pods) > 0 || b.in.Deployment != nil || b.in.WorkloadKind() != "Deployment" {
		return false
	}
	for _, e := range b.in.Events {
		if !strings.Contains(e.On, "/") {
			return false
		}
	}
	return true
}

// objects are the incident's objects, filled in, in their order; it also
// records each one's reference for the events on it.
func (b *builder) objects() ([]any, error) {
	b.refs = map[string]corev1.ObjectReference{}
	var out []*unstructured.Unstructured
	for i, o := range b.in.Objects {
		data, err := json.Marshal(o)
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(data); err != nil {
			return nil, fmt.Errorf("object %d: %w", i, err)
		}
		u.SetName(objectName(*u, i))
		if u.GetNamespace() == "" && !clusterScoped[u.GetKind()] {
			u.SetNamespace(namespace)
		}
		if u.GetUID() == "" {
			u.SetUID(b.uid("object:"+objectKey(u.GetKind(), u.GetName()), i))
		}
		if ts := u.GetCreationTimestamp(); ts.IsZero() {
			u.SetCreationTimestamp(at(0))
		}
		b.refs[objectKey(u.GetKind(), u.GetName())] = corev1.ObjectReference{Kind: u.GetKind(), APIVersion: u.GetAPIVersion(),
			Namespace: u.GetNamespace(), Name: u.GetName(), UID: u.GetUID()}
		out = append(out, u)
	}
	items := make([]any, 0, len(out))
	for _, u := range out {
		owners := u.GetOwnerReferences()
		for j, o := range owners {
			if ref, ok := b.refs[objectKey(o.Kind, o.Name)]; ok && o.UID == "" {
				owners[j].UID = ref.UID
			}
		}
		if len(owners) > 0 {
			u.SetOwnerReferences(owners)
		}
		items = append(items, u.Object)
	}
	return items, nil
}

// objectEvents are the events of a List of objects alone: all on them.
func (b *builder) objectEvents() []any {
	var items []any
	for i, e := range b.in.Events {
		items = append(items, b.event(nil, nil, i, e))
	}
	return items
}

// endpointPods names the pods of an EndpointSlice's endpoints whose
// targetRef is a Pod without a name: endpoint i is the builder's pod i
// (the thread's pod names are not the builder's), its address the pod's
// IP when the thread shows none.
func (b *builder) endpointPods(objects []any) {
	for _, o := range objects {
		m := o.(map[string]any)
		if m["kind"] != "EndpointSlice" {
			continue
		}
		eps, _ := m["endpoints"].([]any)
		for i, e := range eps {
			ref, _ := e.(map[string]any)["targetRef"].(map[string]any)
			if ref == nil || ref["kind"] != "Pod" || ref["name"] != nil || i >= len(b.pods) {
				continue
			}
			p := b.pods[i]
			ref["name"], ref["namespace"], ref["uid"] = p.Name, p.Namespace, string(p.UID)
			if ep := e.(map[string]any); ep["addresses"] == nil && p.Status.PodIP != "" {
				ep["addresses"] = []any{p.Status.PodIP}
			}
		}
	}
}
