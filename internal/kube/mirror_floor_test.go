package kube

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// pagedEvents makes the fake clientset page and field-select events lists
// as the API server does (the fake ignores limit, continue and field
// selectors), counting what is left of an unselected list (etcd's store
// does, remainingItemCount): a namespace of more events than the first page is then busy.
// Events are listed in the order of their keys (namespace/name), as etcd
// keeps them; with seeks, a continue token is the API server's
// (continueFrom), so a list can start at a name; without, a token is the
// fake's own position and any other is refused, as a server that cannot
// seek refuses a token it did not make.
func pagedEvents(cs *fake.Clientset, evs []corev1.Event, seeks bool) {
	cs.PrependReactor("list", "events", eventsReactor(evs, seeks, true))
}

// eventsReactor answers pagedEvents' lists; without counts, as a server
// that does not count what is left of a list.
func eventsReactor(evs []corev1.Event, seeks, counts bool) clienttesting.ReactionFunc {
	evs = slices.Clone(evs)
	key := func(e corev1.Event) string { return e.Namespace + "/" + e.Name }
	slices.SortFunc(evs, func(a, b corev1.Event) int { return strings.Compare(key(a), key(b)) })
	return func(a clienttesting.Action) (bool, runtime.Object, error) {
		l := a.(clienttesting.ListActionImpl)
		sel, err := fields.ParseSelector(l.ListOptions.FieldSelector)
		if err != nil {
			return true, nil, err
		}
		var in []corev1.Event
		for i, e := range evs {
			if (l.Namespace == "" || e.Namespace == l.Namespace) && sel.Matches(selectableFields(&evs[i])) {
				in = append(in, e)
			}
		}
		keyIn := func(e corev1.Event) string { // relative to the list's prefix
			if l.Namespace != "" {
				return e.Name
			}
			return key(e)
		}
		start := 0
		if tok := l.ListOptions.Continue; tok != "" {
			if seeks {
				from, err := continueFrom(tok)
				if err != nil {
					return true, nil, apierrors.NewBadRequest(err.Error())
				}
				start, _ = slices.BinarySearchFunc(in, from, func(e corev1.Event, k string) int { return strings.Compare(keyIn(e), k) })
			} else if start, err = strconv.Atoi(tok); err != nil {
				return true, nil, apierrors.NewBadRequest("continue key is not valid")
			}
		}
		end := len(in)
		if n := int(l.ListOptions.Limit); n > 0 {
			end = min(start+n, len(in))
		}
		out := &corev1.EventList{ListMeta: metav1.ListMeta{ResourceVersion: "7"}, Items: in[start:end]}
		if end < len(in) {
			if counts && sel.Empty() { // as etcd's store counts: for unfiltered lists
				out.RemainingItemCount = ptr.To(int64(len(in) - end))
			}
			out.Continue = strconv.Itoa(end)
			if seeks {
				out.Continue = startAt(keyIn(in[end-1])+"\x00", 7)
			}
		}
		return true, out, nil
	}
}

func deploymentWith(ns, name string, want, available int32) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Generation: 1},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To(want), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}}}},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: want, UpdatedReplicas: want, AvailableReplicas: available, UnavailableReplicas: want - available},
	}
}

// TestMirrorReadsBusyNamespacesEarly: when the scope holds more events
// than the first page, a namespace where more than two workloads say by
// their status that they are not ready has its events read whole beside
// the pods; a namespace with fewer is left to the targeted reads.
func TestMirrorReadsBusyNamespacesEarly(t *testing.T) {
	objs := []runtime.Object{
		deploymentWith("busy", "a", 2, 0), deploymentWith("busy", "b", 2, 1), deploymentWith("busy", "c", 1, 0),
		deploymentWith("busy", "ok", 1, 1),
		deploymentWith("quiet", "d", 2, 0), deploymentWith("quiet", "e", 1, 1),
	}
	var evs []corev1.Event
	for i := range eventsProbe + 100 {
		ns := "busy"
		if i%10 == 0 {
			ns = "quiet"
		}
		evs = append(evs, corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("x.%05d", i)},
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: fmt.Sprintf("%s-gone-%d", ns, i)}, Reason: "Pulling"})
	}
	cs := fake.NewClientset(objs...)
	pagedEvents(cs, evs, false)
	m, err := newReader(cs, 0).Mirror(context.Background(), "", "", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.busyNamespaces(maxTargetsPerNamespace); len(got) != 1 || got[0] != "busy" {
		t.Errorf("busy namespaces %v, want busy alone (read beside the pods)", got)
	}
	byNS := map[string]int{}
	for _, e := range m.Bundle().Events {
		byNS[strings.Split(e.Object.Name, "-")[0]]++
	}
	// busy: all of its 540 events; quiet: none, since its one unready
	// Deployment has no pods or ReplicaSet to read events about.
	if byNS["busy"] != 540 || byNS["quiet"] != 0 {
		t.Errorf("events read by namespace: %v, want busy's 540 and none of quiet's", byNS)
	}
	if !m.Bundle().EventsTargeted {
		t.Error("the events are not marked as targeted")
	}
}

func TestUnsettled(t *testing.T) {
	newer := deploymentWith("ns", "rolling", 2, 2)
	newer.Generation = 2
	for _, c := range []struct {
		obj  metav1.Object
		want bool
	}{
		{deploymentWith("ns", "ready", 3, 3), false},
		{deploymentWith("ns", "short", 3, 2), true},
		{newer, true},
		{&appsv1.StatefulSet{Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](2)}, Status: appsv1.StatefulSetStatus{ReadyReplicas: 2, UpdatedReplicas: 2}}, false},
		{&appsv1.StatefulSet{Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](2)}, Status: appsv1.StatefulSetStatus{ReadyReplicas: 1, UpdatedReplicas: 2}}, true},
		{&appsv1.DaemonSet{Status: appsv1.DaemonSetStatus{DesiredNumberScheduled: 3, NumberReady: 3}}, false},
		{&appsv1.DaemonSet{Status: appsv1.DaemonSetStatus{DesiredNumberScheduled: 3, NumberReady: 2, NumberUnavailable: 1}}, true},
		{&batchv1.Job{Status: batchv1.JobStatus{Active: 1}}, false},
		{&batchv1.Job{Status: batchv1.JobStatus{Failed: 1}}, true},
		{&batchv1.CronJob{}, false},
		{&chain.Rollout{Status: chain.RolloutStatus{Phase: "Healthy"}}, false},
		{&chain.Rollout{Status: chain.RolloutStatus{Phase: "Degraded"}}, true},
		{&chain.Rollout{Status: chain.RolloutStatus{Phase: "Progressing"}}, true},
		{&chain.Rollout{Spec: chain.RolloutSpec{Replicas: ptr.To[int32](2)}, Status: chain.RolloutStatus{AvailableReplicas: 2, UpdatedReplicas: 2}}, false},
		{&chain.Rollout{Spec: chain.RolloutSpec{Replicas: ptr.To[int32](2)}, Status: chain.RolloutStatus{AvailableReplicas: 1, UpdatedReplicas: 2}}, true},
	} {
		if got := unsettled(c.obj); got != c.want {
			t.Errorf("%T %s: unsettled %v, want %v", c.obj, c.obj.GetName(), got, c.want)
		}
	}
}

// TestSlimPod: the mirror keeps of a pod what the walks read, not the
// service account's token volume or the containers' runtime fields.
func TestSlimPod(t *testing.T) {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web-1", Annotations: map[string]string{corev1.LastAppliedConfigAnnotation: "{}"}},
		Spec: corev1.PodSpec{
			Volumes: []corev1.Volume{
				{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data-web-1"}}},
				{Name: "kube-api-access-x7k2p", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{}}},
			},
			Containers: []corev1.Container{{Name: "web", Image: "web:v2", VolumeMounts: []corev1.VolumeMount{{Name: "data"}, {Name: "kube-api-access-x7k2p"}}}},
		},
		Status: corev1.PodStatus{
			PodIP: "10.0.0.7", PodIPs: []corev1.PodIP{{IP: "10.0.0.7"}}, HostIP: "172.18.0.2",
			ContainerStatuses: []corev1.ContainerStatus{{Name: "web", Image: "web:v2", ImageID: "sha256:0f", ContainerID: "containerd://9a", RestartCount: 3,
				VolumeMounts: []corev1.VolumeMountStatus{{Name: "data"}}, User: &corev1.ContainerUser{}}},
		},
	}
	v, ok := slim(p)
	got := v.(*corev1.Pod)
	switch {
	case !ok:
		t.Fatal("the pod was dropped")
	case len(got.Spec.Volumes) != 1 || got.Spec.Volumes[0].Name != "data":
		t.Errorf("volumes %v, want the claim's alone", got.Spec.Volumes)
	case len(got.Spec.Containers[0].VolumeMounts) != 1 || got.Spec.Containers[0].Image != "web:v2":
		t.Errorf("container %+v, want its image and the claim's mount", got.Spec.Containers[0])
	case got.Status.PodIP != "10.0.0.7" || got.Status.HostIP != "172.18.0.2" || got.Status.PodIPs != nil:
		t.Errorf("IPs %q %q %v, want PodIP and HostIP alone", got.Status.PodIP, got.Status.HostIP, got.Status.PodIPs)
	case got.Status.ContainerStatuses[0].RestartCount != 3 || got.Status.ContainerStatuses[0].ContainerID != "" || got.Status.ContainerStatuses[0].User != nil:
		t.Errorf("container status %+v, want its restarts without its runtime fields", got.Status.ContainerStatuses[0])
	case got.Annotations[corev1.LastAppliedConfigAnnotation] != "":
		t.Error("the last-applied annotation was kept")
	}
}

// TestStoreMemo: a store's slice is made once per change, so a bundle
// made after another store changed shares it instead of copying 20,000
// pods again.
func TestStoreMemo(t *testing.T) {
	st := newStore()
	st.put("ns/a", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "a"}})
	first := values[corev1.Pod](st)
	if again := values[corev1.Pod](st); &again[0] != &first[0] {
		t.Error("read twice without a change: copied again")
	}
	st.put("ns/b", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "b"}})
	if got := values[corev1.Pod](st); len(got) != 2 {
		t.Errorf("after a put: %d pods, want 2", len(got))
	}
	st.remove("ns/a")
	if got := values[corev1.Pod](st); len(got) != 1 || got[0].Name != "b" {
		t.Errorf("after a remove: %v, want b alone", got)
	}
}
