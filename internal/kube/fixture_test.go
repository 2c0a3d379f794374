package kube

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// t0 is the fixed clock of every test.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func deployment(ns, name string, sel *metav1.LabelSelector) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("uid-" + name)},
		Spec:       appsv1.DeploymentSpec{Selector: sel},
	}
}

func appSelector(app string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}
}

func replicaSet(ns, name, app string) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{
		Namespace: ns, Name: name, UID: types.UID("uid-" + name), Labels: map[string]string{"app": app},
	}}
}

func pod(ns, name, app, rs string) *corev1.Pod {
	yes := true
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Namespace: ns, Name: name, UID: types.UID("uid-" + name), Labels: map[string]string{"app": app},
		OwnerReferences: []metav1.OwnerReference{{
			APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs, UID: types.UID("uid-" + rs), Controller: &yes,
		}},
	}}
}

// event is a core/v1 event as client-go's recorder writes it. uid "" leaves
// the involved object's UID out.
func event(ns, name, kind, obj string, uid types.UID, typ, reason, source, msg string, age time.Duration) *corev1.Event {
	ts := metav1.NewTime(t0.Add(-age))
	return &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Namespace: ns, Name: name},
		InvolvedObject: corev1.ObjectReference{Kind: kind, Namespace: ns, Name: obj, UID: uid},
		Type:           typ, Reason: reason, Message: msg,
		Source: corev1.EventSource{Component: source},
		Count:  1, FirstTimestamp: ts, LastTimestamp: ts,
	}
}

// Message formats, each from k8s.io/kubernetes@v1.37.2:
//   - pkg/controller/deployment/sync.go: "Scaled up replica set %s from 0 to %d"
//   - pkg/controller/controller_utils.go: "Created pod: %v"
//   - pkg/scheduler/schedule_one.go: "Successfully assigned %v/%v to %v"
//   - pkg/kubelet/images/image_manager.go: "Pulling image %q"
//   - pkg/kubelet/kuberuntime/kuberuntime_manager.go: "Back-off restarting failed
//     container %s in pod %s", the pod formatted by pkg/kubelet/util/format/pod.go
//     as "%s_%s(%s)"
func scaledUp(rs string, n int) string {
	return fmt.Sprintf("Scaled up replica set %s from 0 to %d", rs, n)
}
func createdPod(p string) string { return fmt.Sprintf("Created pod: %v", p) }
func assigned(ns, p, node string) string {
	return fmt.Sprintf("Successfully assigned %v/%v to %v", ns, p, node)
}
func pulling(image string) string { return fmt.Sprintf("Pulling image %q", image) }
func backOff(container, ns, p string, uid types.UID) string {
	return fmt.Sprintf("Back-off restarting failed container %s in pod %s", container, fmt.Sprintf("%s_%s(%s)", p, ns, uid))
}

// cluster is namespace prod with two Deployments, web and api, an old and a
// new ReplicaSet of web, and events about all of them, a node, a deleted pod
// that had the same name as a live one, and another namespace.
func cluster() []runtime.Object {
	const ns = "prod"
	return []runtime.Object{
		deployment(ns, "web", appSelector("web")),
		deployment(ns, "api", appSelector("api")),
		replicaSet(ns, "web-7c9d8f6b5", "web"),
		replicaSet(ns, "web-5b6c7d8e9", "web"),
		replicaSet(ns, "api-6f7d8c9b4", "api"),
		pod(ns, "web-7c9d8f6b5-x2k4p", "web", "web-7c9d8f6b5"),
		pod(ns, "web-7c9d8f6b5-q8z7r", "web", "web-7c9d8f6b5"),
		pod(ns, "api-6f7d8c9b4-m3n4b", "api", "api-6f7d8c9b4"),
		pod("staging", "web-7c9d8f6b5-zzzzz", "web", "web-7c9d8f6b5"),
		event(ns, "e1", "Deployment", "web", "uid-web", "Normal", "ScalingReplicaSet", "deployment-controller",
			scaledUp("web-7c9d8f6b5", 2), 5*time.Minute),
		event(ns, "e2", "ReplicaSet", "web-7c9d8f6b5", "uid-web-7c9d8f6b5", "Normal", "SuccessfulCreate", "replicaset-controller",
			createdPod("web-7c9d8f6b5-x2k4p"), 4*time.Minute),
		// No UID on the event: kind and name are enough.
		event(ns, "e3", "Pod", "web-7c9d8f6b5-x2k4p", "", "Normal", "Scheduled", "default-scheduler",
			assigned(ns, "web-7c9d8f6b5-x2k4p", "node-1"), 3*time.Minute),
		event(ns, "e4", "Pod", "web-7c9d8f6b5-q8z7r", "uid-web-7c9d8f6b5-q8z7r", "Warning", "BackOff", "kubelet",
			backOff("web", ns, "web-7c9d8f6b5-q8z7r", "uid-web-7c9d8f6b5-q8z7r"), 1*time.Minute),
		// A pod of another Deployment.
		event(ns, "e5", "Pod", "api-6f7d8c9b4-m3n4b", "uid-api-6f7d8c9b4-m3n4b", "Normal", "Pulling", "kubelet",
			pulling("registry.lab.internal/api:v2"), 2*time.Minute),
		// A deleted pod that had the same name as a live one.
		event(ns, "e6", "Pod", "web-7c9d8f6b5-x2k4p", "uid-deleted", "Warning", "BackOff", "kubelet",
			backOff("web", ns, "web-7c9d8f6b5-x2k4p", "uid-deleted"), 30*time.Minute),
		// Not a kind the snapshot reads, though the name matches.
		event(ns, "e7", "Endpoints", "web", "", "Normal", "Pulling", "kubelet",
			pulling("registry.lab.internal/web:v1"), 2*time.Minute),
		// Another namespace.
		event("staging", "e8", "Pod", "web-7c9d8f6b5-x2k4p", "", "Normal", "Scheduled", "default-scheduler",
			assigned("staging", "web-7c9d8f6b5-x2k4p", "node-2"), 2*time.Minute),
	}
}
