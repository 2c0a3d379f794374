package kubelet

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

var (
	t0 = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	t1 = t0.Add(2 * time.Second)
)

func scheduledPod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-1", UID: "uid-1", Generation: 1},
		Spec: corev1.PodSpec{
			NodeName:   "lab-node-1",
			Containers: []corev1.Container{{Name: "web", Image: "registry.lab.internal/web:v1"}},
		},
		Status: corev1.PodStatus{
			Phase:      corev1.PodPending,
			QOSClass:   corev1.PodQOSBestEffort,
			Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0)}},
		},
	}
}

func TestPodStatusContainerCreating(t *testing.T) {
	pod := scheduledPod()
	rec := newPodRecord(pod, t1)
	got := podStatus(pod, rec, "172.18.0.2", t1)
	ts := metav1.NewTime(t1)
	want := corev1.PodStatus{
		ObservedGeneration: 1,
		Phase:              corev1.PodPending,
		QOSClass:           corev1.PodQOSBestEffort,
		HostIP:             "172.18.0.2",
		HostIPs:            []corev1.HostIP{{IP: "172.18.0.2"}},
		StartTime:          &ts,
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodReadyToStartContainers, ObservedGeneration: 1, Status: corev1.ConditionFalse, Reason: "PodSandboxNotReady", Message: "no pod sandbox exists", LastTransitionTime: ts},
			{Type: corev1.PodInitialized, ObservedGeneration: 1, Status: corev1.ConditionTrue, LastTransitionTime: ts},
			{Type: corev1.PodReady, ObservedGeneration: 1, Status: corev1.ConditionFalse, Reason: "ContainersNotReady", Message: "containers with unready status: [web]", LastTransitionTime: ts},
			{Type: corev1.ContainersReady, ObservedGeneration: 1, Status: corev1.ConditionFalse, Reason: "ContainersNotReady", Message: "containers with unready status: [web]", LastTransitionTime: ts},
			{Type: corev1.PodScheduled, ObservedGeneration: 1, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0)},
		},
		ContainerStatuses: []corev1.ContainerStatus{{
			Name:    "web",
			Image:   "registry.lab.internal/web:v1",
			Started: ptr.To(false),
			State:   corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}},
		}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("podStatus (-want +got):\n%s", diff)
	}
}

func TestPodStatusRunning(t *testing.T) {
	pod := scheduledPod()
	rec := newPodRecord(pod, t1)
	rec.ip, rec.sandboxReady = "10.244.1.2", true
	c := rec.containers[0]
	c.image, c.imageID, c.id = "registry.lab.internal/web:v1", "registry.lab.internal/web@sha256:ab", "containerd://cd"
	c.phase, c.startedAt, c.started, c.ready = containerRunning, t1, true, true
	got := podStatus(pod, rec, "172.18.0.2", t1)
	ts := metav1.NewTime(t1)
	want := corev1.PodStatus{
		ObservedGeneration: 1,
		Phase:              corev1.PodRunning,
		QOSClass:           corev1.PodQOSBestEffort,
		HostIP:             "172.18.0.2",
		HostIPs:            []corev1.HostIP{{IP: "172.18.0.2"}},
		PodIP:              "10.244.1.2",
		PodIPs:             []corev1.PodIP{{IP: "10.244.1.2"}},
		StartTime:          &ts,
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodReadyToStartContainers, ObservedGeneration: 1, Status: corev1.ConditionTrue, LastTransitionTime: ts},
			{Type: corev1.PodInitialized, ObservedGeneration: 1, Status: corev1.ConditionTrue, LastTransitionTime: ts},
			{Type: corev1.PodReady, ObservedGeneration: 1, Status: corev1.ConditionTrue, LastTransitionTime: ts},
			{Type: corev1.ContainersReady, ObservedGeneration: 1, Status: corev1.ConditionTrue, LastTransitionTime: ts},
			{Type: corev1.PodScheduled, ObservedGeneration: 1, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0)},
		},
		ContainerStatuses: []corev1.ContainerStatus{{
			Name:        "web",
			Image:       "registry.lab.internal/web:v1",
			ImageID:     "registry.lab.internal/web@sha256:ab",
			ContainerID: "containerd://cd",
			Ready:       true,
			Started:     ptr.To(true),
			State:       corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: ts}},
			User:        &corev1.ContainerUser{Linux: &corev1.LinuxContainerUser{UID: 0, GID: 0, SupplementalGroups: []int64{0}}},
		}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("podStatus (-want +got):\n%s", diff)
	}
}

func TestImageNames(t *testing.T) {
	tests := []struct{ in, tagged, repo string }{
		{"web", "web:latest", "web"},
		{"registry.lab.internal:5000/team/web", "registry.lab.internal:5000/team/web:latest", "registry.lab.internal:5000/team/web"},
		{"registry.lab.internal/web:v1", "registry.lab.internal/web:v1", "registry.lab.internal/web"},
		{"registry.lab.internal/web@sha256:00", "registry.lab.internal/web@sha256:00", "registry.lab.internal/web"},
	}
	for _, tt := range tests {
		got := []string{withDefaultTag(tt.in), repository(withDefaultTag(tt.in))}
		if diff := cmp.Diff([]string{tt.tagged, tt.repo}, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestIPAM(t *testing.T) {
	a := newIPAM(0)
	first, _ := a.allocate()
	second, _ := a.allocate()
	a.release(first)
	again, _ := a.allocate()
	a.reserve("10.244.2.9") // another node's range: ignored
	if diff := cmp.Diff([]string{"10.244.1.2", "10.244.1.3", "10.244.1.2"}, []string{first, second, again}); diff != "" {
		t.Errorf("allocations (-want +got):\n%s", diff)
	}
}
