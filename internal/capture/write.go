package capture

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Related is what a capture adds beyond the snapshot so that whoever reads
// it later can check the evidence: the PersistentVolumeClaims the pods
// mount, the namespace's ResourceQuotas, and the nodes the pods run on or
// were nominated for. Secrets are never read.
type Related struct {
	Claims []corev1.PersistentVolumeClaim
	Quotas []corev1.ResourceQuota
	Nodes  []corev1.Node
	// Missing says what could not be read, and why.
	Missing []string
}

// Encode writes the snapshot as a v1 List in the shape of kubectl get -o
// yaml, headed by a comment that records the capture time (Load judges the
// capture at that time) and what was left out: what Load reads back is the
// snapshot the walk was given. rel are the objects the evidence names
// beyond the snapshot; keepEnv keeps environment variable values, which
// are dropped by default since they often hold credentials.
func Encode(s *chain.Snapshot, rel *Related, keepEnv bool) ([]byte, error) {
	return writer{keepEnv: keepEnv}.encode(s, rel)
}

// writer strips what a capture must not carry from every object it
// writes.
type writer struct{ keepEnv bool }

func (c writer) encode(s *chain.Snapshot, rel *Related) ([]byte, error) {
	var left []string
	left = append(left, "managedFields", "last-applied-configuration annotations", "Secrets (never read)")
	if !c.keepEnv {
		left = append(left, "environment variable values (--keep-env keeps them)")
	}
	items := c.snapshotItems(s)
	for _, p := range s.Produced {
		if o := s.Object; o == nil || p.Object.GetKind() != o.GetKind() || p.Object.GetNamespace() != o.GetNamespace() || p.Object.GetName() != o.GetName() {
			// (a producer walked as itself is the snapshot's object, written once)
			items = append(items, typed(copyOf(p.Object), c.keepEnv))
		}
		for _, a := range p.Attempts {
			items = append(items, typed(copyOf(a), c.keepEnv))
		}
		for _, st := range p.Steps {
			items = append(items, typed(copyOf(st), c.keepEnv))
		}
	}
	claims, nodes := map[string]bool{}, map[string]bool{}
	for i := range s.Claims {
		claims[s.Claims[i].Name] = true
		items = append(items, typed(s.Claims[i].DeepCopy(), c.keepEnv))
	}
	for i := range s.Nodes {
		nodes[s.Nodes[i].Name] = true
		items = append(items, typed(s.Nodes[i].DeepCopy(), c.keepEnv))
	}
	for i := range rel.Claims {
		if !claims[rel.Claims[i].Name] {
			items = append(items, typed(&rel.Claims[i], c.keepEnv))
		}
	}
	for i := range rel.Quotas {
		items = append(items, typed(&rel.Quotas[i], c.keepEnv))
	}
	for i := range rel.Nodes {
		if !nodes[rel.Nodes[i].Name] {
			items = append(items, typed(&rel.Nodes[i], c.keepEnv))
		}
	}
	for _, m := range rel.Missing {
		left = append(left, m+" could not be read")
	}
	for _, g := range s.Gaps {
		left = append(left, fmt.Sprintf("%s (could not be read: %s)", g.Resource, g.Message))
	}
	body, err := yaml.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	if err != nil {
		return nil, fmt.Errorf("encoding the capture: %w", err)
	}
	head := fmt.Sprintf("%s%s\n# left out: %s\n", TimeComment, s.Now.UTC().Format(time.RFC3339Nano), strings.Join(left, "; "))
	if s.ServicesRead {
		head += ServicesComment + "\n"
	}
	if s.API != nil {
		api, err := json.Marshal(s.API)
		if err != nil {
			return nil, err
		}
		head += APIComment + string(api) + "\n"
	}
	head += TargetComment + s.Ref().String() + "\n"
	return append([]byte(head), body...), nil
}

// snapshotItems are the objects of one snapshot: the workload (or traffic
// object), what its chain read, and a traffic object's workloads.
func (c writer) snapshotItems(s *chain.Snapshot) []any {
	var items []any
	if s.Route != nil {
		items = append(items, typed(copyOf(s.Route.Object), c.keepEnv))
	} else if w := s.Workload(); w != nil {
		items = append(items, typed(copyOf(w), c.keepEnv))
	}
	items = append(items, typedAll(s.ReplicaSets, c.keepEnv)...)
	items = append(items, typedAll(s.Revisions, c.keepEnv)...)
	items = append(items, typedAll(s.Jobs, c.keepEnv)...)
	for i := range s.Pods {
		if s.KindOf() != chain.KindPod || s.Pods[i].Name != s.Name {
			items = append(items, typed(s.Pods[i].DeepCopy(), c.keepEnv))
		}
	}
	for _, e := range s.Events {
		items = append(items, coreEvent(s.Namespace, e))
	}
	items = append(items, typedAll(s.Services, c.keepEnv)...)
	items = append(items, typedAll(s.EndpointSlices, c.keepEnv)...)
	items = append(items, typedAll(s.NetworkPolicies, c.keepEnv)...)
	items = append(items, typedAll(s.OtherPods, c.keepEnv)...)
	items = append(items, typedAll(s.Autoscalers, c.keepEnv)...)
	items = append(items, c.trafficItems(s)...)
	return append(items, c.behindItems(s)...)
}

// trafficItems are what a Service's or Ingress's capture adds: the
// IngressClasses, and the namespace's workloads (whose templates the
// Services may select).
func (c writer) trafficItems(s *chain.Snapshot) []any {
	var items []any
	items = append(items, typedAll(s.IngressClasses, c.keepEnv)...)
	items = append(items, typedAll(s.GatewayClasses, c.keepEnv)...)
	for i := range s.Gateways {
		if s.Gateway == nil {
			items = append(items, typed(s.Gateways[i].DeepCopy(), c.keepEnv))
		}
	}
	for _, t := range s.Templates {
		items = append(items, typed(copyOf(t.Object), c.keepEnv))
	}
	return items
}

// behindItems are the snapshots the read followed: a resource's owned
// workloads, each whole (the object, its evidence and claims); the workloads
// behind a traffic object, whose objects are among its Templates, by what
// their own reads hold beyond the pods already written.
func (c writer) behindItems(s *chain.Snapshot) []any {
	var items []any
	pods := map[string]bool{}
	for i := range s.Pods {
		pods[s.Pods[i].Name] = true
	}
	for _, b := range s.Behind {
		if s.Object != nil {
			items = append(items, c.snapshotItems(b)...)
			items = append(items, typedAll(b.Claims, c.keepEnv)...)
			continue
		}
		items = append(items, typedAll(b.ReplicaSets, c.keepEnv)...)
		items = append(items, typedAll(b.Revisions, c.keepEnv)...)
		items = append(items, typedAll(b.Claims, c.keepEnv)...)
		for i := range b.Pods {
			if !pods[b.Pods[i].Name] {
				items = append(items, typed(b.Pods[i].DeepCopy(), c.keepEnv))
			}
		}
		for _, e := range b.Events {
			items = append(items, coreEvent(b.Namespace, e))
		}
	}
	return items
}

// typedAll is typed of a deep copy of each object of list.
func typedAll[T any, P interface {
	*T
	metav1.Object
	DeepCopy() P
}](list []T, keepEnv bool) []any {
	out := make([]any, 0, len(list))
	for i := range list {
		out = append(out, typed(P(&list[i]).DeepCopy(), keepEnv))
	}
	return out
}

// copyOf is a deep copy of a workload object.
func copyOf(obj metav1.Object) metav1.Object {
	if r, ok := obj.(runtime.Object); ok {
		if m, ok := r.DeepCopyObject().(metav1.Object); ok {
			return m
		}
	}
	return obj
}

// typed strips what a capture must not carry or does not need, and sets the
// type meta the typed clients leave empty.
func typed(obj metav1.Object, keepEnv bool) any {
	chain.KeepTemplateManagers(obj) // who applied a template, for the change report
	if a := obj.GetAnnotations(); a != nil {
		delete(a, corev1.LastAppliedConfigAnnotation)
	}
	set := func(tm *metav1.TypeMeta, apiVersion, kind string, spec *corev1.PodSpec) {
		tm.APIVersion, tm.Kind = apiVersion, kind
		if spec != nil {
			scrubEnv(spec, keepEnv)
		}
	}
	switch o := obj.(type) {
	case *appsv1.Deployment:
		set(&o.TypeMeta, "apps/v1", "Deployment", &o.Spec.Template.Spec)
	case *appsv1.ReplicaSet:
		set(&o.TypeMeta, "apps/v1", "ReplicaSet", &o.Spec.Template.Spec)
	case *appsv1.StatefulSet:
		set(&o.TypeMeta, "apps/v1", "StatefulSet", &o.Spec.Template.Spec)
	case *appsv1.DaemonSet:
		set(&o.TypeMeta, "apps/v1", "DaemonSet", &o.Spec.Template.Spec)
	case *appsv1.ControllerRevision:
		set(&o.TypeMeta, "apps/v1", "ControllerRevision", nil)
	case *batchv1.Job:
		set(&o.TypeMeta, "batch/v1", "Job", &o.Spec.Template.Spec)
	case *batchv1.CronJob:
		set(&o.TypeMeta, "batch/v1", "CronJob", &o.Spec.JobTemplate.Spec.Template.Spec)
	case *corev1.Pod:
		set(&o.TypeMeta, "v1", "Pod", &o.Spec)
	case *corev1.PersistentVolumeClaim:
		set(&o.TypeMeta, "v1", "PersistentVolumeClaim", nil)
	case *corev1.ResourceQuota:
		set(&o.TypeMeta, "v1", "ResourceQuota", nil)
	case *corev1.Node:
		set(&o.TypeMeta, "v1", "Node", nil)
	case *corev1.Service:
		set(&o.TypeMeta, "v1", "Service", nil)
	case *discoveryv1.EndpointSlice:
		set(&o.TypeMeta, "discovery.k8s.io/v1", "EndpointSlice", nil)
	case *networkingv1.Ingress:
		set(&o.TypeMeta, "networking.k8s.io/v1", "Ingress", nil)
	case *networkingv1.NetworkPolicy:
		set(&o.TypeMeta, "networking.k8s.io/v1", "NetworkPolicy", nil)
	case *autoscalingv2.HorizontalPodAutoscaler:
		set(&o.TypeMeta, "autoscaling/v2", "HorizontalPodAutoscaler", nil)
	case *networkingv1.IngressClass:
		set(&o.TypeMeta, "networking.k8s.io/v1", "IngressClass", nil)
	case *gatewayv1.GatewayClass:
		set(&o.TypeMeta, gatewayv1.GroupVersion.String(), "GatewayClass", nil)
	case *gatewayv1.Gateway:
		set(&o.TypeMeta, gatewayv1.GroupVersion.String(), "Gateway", nil)
	case *gatewayv1.HTTPRoute:
		set(&o.TypeMeta, gatewayv1.GroupVersion.String(), "HTTPRoute", nil)
	case *gatewayv1.GRPCRoute:
		set(&o.TypeMeta, gatewayv1.GroupVersion.String(), "GRPCRoute", nil)
	case *gatewayv1.TLSRoute:
		set(&o.TypeMeta, gatewayv1.GroupVersion.String(), "TLSRoute", nil)
	case *unstructured.Unstructured:
		// A kind kept as the API returned it (a CloneSet, an
		// operator's object) with a pod template at spec.template.
		scrubTemplateEnv(o.Object, keepEnv)
	}
	return obj
}

// scrubTemplateEnv is scrubEnv on the pod template an object kept whole
// holds at spec.template, when it has one.
func scrubTemplateEnv(obj map[string]any, keep bool) {
	field, _, _ := unstructured.NestedFieldNoCopy(obj, "spec", "template", "spec")
	spec, ok := field.(map[string]any)
	if keep || !ok {
		return
	}
	for _, group := range []string{"initContainers", "containers"} {
		cs, _ := spec[group].([]any)
		for _, c := range cs {
			container, _ := c.(map[string]any)
			env, _ := container["env"].([]any)
			for _, e := range env {
				if v, _ := e.(map[string]any); v != nil && v["value"] != nil && v["value"] != "" {
					v["value"] = "(dropped by kubectl chain capture)"
				}
			}
		}
	}
}

// scrubEnv replaces literal env values; references (valueFrom) stay, since
// they are evidence (a missing ConfigMap key) and hold no secret.
func scrubEnv(spec *corev1.PodSpec, keep bool) {
	if keep {
		return
	}
	for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for i := range cs {
			for j := range cs[i].Env {
				if cs[i].Env[j].Value != "" {
					cs[i].Env[j].Value = "(dropped by kubectl chain capture)"
				}
			}
		}
	}
}

// coreEvent writes a normalised event back as the core/v1 event it reads as.
func coreEvent(ns string, e chain.Event) *corev1.Event {
	return &corev1.Event{
		TypeMeta:       metav1.TypeMeta{APIVersion: "v1", Kind: "Event"},
		ObjectMeta:     metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("%s.%s", e.Object.Name, strings.ToLower(e.Reason))},
		InvolvedObject: corev1.ObjectReference{Kind: e.Object.Kind, Name: e.Object.Name, Namespace: ns, UID: e.Object.UID, FieldPath: e.FieldPath},
		Type:           e.Type, Reason: e.Reason, Message: e.Message, Count: e.Count,
		FirstTimestamp: metav1.NewTime(e.First), LastTimestamp: metav1.NewTime(e.Last),
		Source: corev1.EventSource{Component: e.Source},
	}
}
