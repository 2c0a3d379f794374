// Command gen prints the kubectl describe fixtures of
// internal/paste/testdata/describe: each is what kubectl describe prints,
// by kubectl's own describers (k8s.io/kubectl v0.37.2 pkg/describe, the
// code kubectl 1.37 describe runs) over objects held by a fake API
// (client-go's fake clientset, with the field selectors kubectl describe
// sends honoured as the API server does).
//
// The objects are chosen, not seen; every message in them (a condition's,
// an event's) is a real one, its source beside it: a public thread of
// testdata/real, or the upstream format string at v1.37.2.
//
//	cd internal/paste/testdata/describe/gen && go run . ..
//
// Ages are printed against the clock (kubectl's translateTimestampSince),
// absolute times as RFC 1123: both are set from the moment gen runs.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/kubectl/pkg/describe"
)

var (
	now  = time.Now().UTC().Truncate(time.Second)
	yes  = true
	no   = false
	ns   = "shop"
	ctrl = func(kind, name string) []metav1.OwnerReference {
		av := map[string]string{"ReplicaSet": "apps/v1", "Deployment": "apps/v1", "StatefulSet": "apps/v1", "DaemonSet": "apps/v1", "Job": "batch/v1", "CronJob": "batch/v1"}[kind]
		return []metav1.OwnerReference{{APIVersion: av, Kind: kind, Name: name, UID: uid(kind, name), Controller: &yes}}
	}
)

func uid(kind, name string) types.UID { return types.UID(kind + "-" + name) }

func ago(d time.Duration) metav1.Time { return metav1.NewTime(now.Add(-d)) }
func i32(n int32) *int32              { return &n }
func str(s string) *string            { return &s }

func meta(kind, name string, labels map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: ns, UID: uid(kind, name), Labels: labels, CreationTimestamp: ago(2 * time.Hour)}
}

// event is a core/v1 event about obj, last seen age ago, count times
// over span.
func event(kind, name, typ, reason, source, msg string, age time.Duration, count int32, span time.Duration) *corev1.Event {
	namespace := ns
	if kind == "Node" {
		namespace = ""
	}
	return &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: fmt.Sprintf("%s.%d", name, time.Now().UnixNano()), Namespace: namespace},
		InvolvedObject: corev1.ObjectReference{Kind: kind, Name: name, Namespace: namespace, UID: uid(kind, name)},
		Type:           typ, Reason: reason, Message: msg, Count: count, Source: corev1.EventSource{Component: source},
		FirstTimestamp: ago(age + span), LastTimestamp: ago(age),
	}
}

// template is a pod template of one container.
func template(labels map[string]string, image string, res corev1.ResourceRequirements) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: labels["app"], Image: image, Resources: res,
			Ports: []corev1.ContainerPort{{ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}}}},
	}
}

func limits(cpu, mem string) corev1.ResourceRequirements {
	return corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}}
}

// client is a fake API holding objs, answering the field selectors
// kubectl describe sends (events by their object, pods by their node)
// as the API server does.
func client(objs ...runtime.Object) kubernetes.Interface {
	cs := fake.NewClientset(objs...)
	var events []corev1.Event
	var pods []corev1.Pod
	for _, o := range objs {
		switch o := o.(type) {
		case *corev1.Event:
			events = append(events, *o)
		case *corev1.Pod:
			pods = append(pods, *o)
		}
	}
	cs.PrependReactor("list", "events", func(a k8stesting.Action) (bool, runtime.Object, error) {
		sel := a.(k8stesting.ListAction).GetListRestrictions().Fields
		out := &corev1.EventList{}
		for _, e := range events {
			set := fields.Set{"involvedObject.name": e.InvolvedObject.Name, "involvedObject.namespace": e.InvolvedObject.Namespace,
				"involvedObject.kind": e.InvolvedObject.Kind, "involvedObject.uid": string(e.InvolvedObject.UID)}
			if (a.GetNamespace() == "" || a.GetNamespace() == e.Namespace) && sel.Matches(set) {
				out.Items = append(out.Items, e)
			}
		}
		return true, out, nil
	})
	cs.PrependReactor("list", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		r := a.(k8stesting.ListAction).GetListRestrictions()
		out := &corev1.PodList{}
		for _, p := range pods {
			set := fields.Set{"spec.nodeName": p.Spec.NodeName, "status.phase": string(p.Status.Phase)}
			if (a.GetNamespace() == "" || a.GetNamespace() == p.Namespace) && r.Fields.Matches(set) && r.Labels.Matches(labels.Set(p.Labels)) {
				out.Items = append(out.Items, p)
			}
		}
		return true, out, nil
	})
	return apiServer{cs}
}

// apiServer is the fake API with the events field selector the real
// client builds (client-go's fake builds none): kubectl describe finds
// an object's events by it.
type apiServer struct{ kubernetes.Interface }

func (a apiServer) CoreV1() corev1client.CoreV1Interface { return core{a.Interface.CoreV1()} }

type core struct{ corev1client.CoreV1Interface }

func (c core) Events(namespace string) corev1client.EventInterface {
	return events{c.CoreV1Interface.Events(namespace)}
}

type events struct{ corev1client.EventInterface }

// GetFieldSelector is client-go's (kubernetes/typed/core/v1/event_expansion.go).
func (events) GetFieldSelector(name, namespace, kind, uid *string) fields.Selector {
	set := fields.Set{}
	for k, v := range map[string]*string{"involvedObject.name": name, "involvedObject.namespace": namespace, "involvedObject.kind": kind, "involvedObject.uid": uid} {
		if v != nil {
			set[k] = *v
		}
	}
	return set.AsSelector()
}

// withClient gives a describer whose only field is its unexported client
// (StatefulSet, CronJob, Ingress, Deployment) the fake API.
func withClient[T any](cs kubernetes.Interface) *T {
	var d T
	*(*kubernetes.Interface)(unsafe.Pointer(&d)) = cs
	return &d
}

func run(d describe.ResourceDescriber, namespace, name string) string {
	out, err := d.Describe(namespace, name, describe.DescriberSettings{ShowEvents: true, ChunkSize: 500})
	if err != nil {
		panic(fmt.Sprintf("describe %s: %v", name, err))
	}
	return out
}

func main() {
	dir := ".."
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	for name, text := range fixtures() {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			panic(err)
		}
	}
}

func fixtures() map[string]string {
	out := map[string]string{}
	quota(out)
	job(out)
	nodes(out)
	storage(out)
	serving(out)
	return out
}
