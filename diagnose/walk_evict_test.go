package diagnose

import (
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// TestWalkEvictedAgain: pods evicted for their own ephemeral-storage limit
// end Succeeded with no reason when their program exits 0 on SIGTERM
// (kubernetes/kubernetes#120182), and their replacements run until the
// next eviction. Two such evictions within recentCrash break the
// containers link however healthy the replacements look; one, or two long
// ago, are notes. A pod that ended the same way whose Evicted event is not
// written yet (silent: a busy kubelet's events come late) counts beside
// one known eviction, not alone.
func TestWalkEvictedAgain(t *testing.T) {
	// pkg/kubelet/eviction/helpers.go podEphemeralStorageMessageFmt
	const msg = "Pod ephemeral local storage usage exceeds the total limit of containers 16Mi. "
	yes := true
	pod := func(name string, phase corev1.PodPhase, end time.Time) corev1.Pod {
		p := corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, UID: types.UID(name + "-uid"),
				CreationTimestamp: metav1.NewTime(end.Add(-10 * time.Second)),
				OwnerReferences:   []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-5d8f9c7b6", UID: "rs-uid", Controller: &yes}}},
			Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "web"}}},
		}
		p.Status.Phase = phase
		st := corev1.ContainerStatus{Name: "web", Ready: phase == corev1.PodRunning}
		if phase == corev1.PodRunning {
			st.State.Running = &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(end)}
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(end)}}
		} else {
			st.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", FinishedAt: metav1.NewTime(end)}
		}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{st}
		return p
	}
	evicted := func(name string, at time.Time) chain.Event {
		return chain.Event{Type: corev1.EventTypeWarning, Reason: "Evicted", Message: msg, Source: "kubelet", Count: 1,
			Object: chain.ObjectRef{Kind: "Pod", Name: name, UID: types.UID(name + "-uid")}, First: at, Last: at}
	}
	now := walkT0.Add(10 * time.Minute)
	for _, tt := range []struct {
		name    string
		ago     []time.Duration // each evicted pod's end, before now
		silent  []time.Duration // each pod's end that ended alike, no event yet
		health  chain.Health
		cause   chain.CauseID
		objects int
	}{
		{"one eviction", []time.Duration{30 * time.Second}, nil, chain.Healthy, "", 0},
		{"two recent evictions", []time.Duration{40 * time.Second, 20 * time.Second}, nil, chain.Broken, decode.EphemeralStorageLimitExceeded, 2},
		{"two evictions long ago", []time.Duration{8 * time.Minute, 7 * time.Minute}, nil, chain.Healthy, "", 0},
		{"one eviction, one ended alike, its event late", []time.Duration{30 * time.Second}, []time.Duration{10 * time.Second}, chain.Broken, decode.EphemeralStorageLimitExceeded, 1},
		{"one eviction, one ended alike long ago", []time.Duration{30 * time.Second}, []time.Duration{7 * time.Minute}, chain.Healthy, "", 0},
		{"ended alike, no eviction known", nil, []time.Duration{30 * time.Second, 10 * time.Second}, chain.Healthy, "", 0},
	} {
		s := walkSnapshot()
		s.Now = now
		s.Deployment.Status = appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 3, AvailableReplicas: 3}
		s.ReplicaSets[0].Status = appsv1.ReplicaSetStatus{Replicas: 3, ReadyReplicas: 3, AvailableReplicas: 3}
		for i := 0; i < 3; i++ {
			s.Pods = append(s.Pods, pod(fmt.Sprintf("web-5d8f9c7b6-run%d", i), corev1.PodRunning, now.Add(-2*time.Minute)))
		}
		for i, ago := range tt.ago {
			name := fmt.Sprintf("web-5d8f9c7b6-ev%d", i)
			s.Pods = append(s.Pods, pod(name, corev1.PodSucceeded, now.Add(-ago)))
			s.Events = append(s.Events, evicted(name, now.Add(-ago)))
		}
		for i, ago := range tt.silent {
			s.Pods = append(s.Pods, pod(fmt.Sprintf("web-5d8f9c7b6-si%d", i), corev1.PodSucceeded, now.Add(-ago)))
		}
		r := Walk(s, Options{})
		if r.Verdict.Health != tt.health || r.Verdict.Cause != tt.cause {
			t.Errorf("%s: verdict %+v, want %s %s", tt.name, r.Verdict, tt.health, tt.cause)
			continue
		}
		if tt.objects == 0 {
			continue
		}
		f := r.Link(chain.LinkContainers).Findings[0]
		if len(f.Objects) != tt.objects || len(f.Evidence) == 0 || f.Evidence[0].Source != chain.SourceEvent || f.Evidence[0].Message != msg {
			t.Errorf("%s: finding %+v: want the %d evicted pods with their Evicted event as evidence", tt.name, f, tt.objects)
		}
	}
}
