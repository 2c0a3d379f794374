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

// TestWalkResizePending: running, ready pods whose in-place resize the
// kubelet did not grant break the containers link (Infeasible) or keep it
// progressing (Deferred), from the PodResizePending condition (1.33+, the
// kubelet's words in testdata/real/messages/resize.yaml) or status.resize
// (1.27-1.32, kubernetes/kubernetes#126033).
func TestWalkResizePending(t *testing.T) {
	yes := true
	now := walkT0.Add(10 * time.Minute)
	pod := func(i int, cond *corev1.PodCondition, resize corev1.PodResizeStatus) corev1.Pod {
		name := fmt.Sprintf("web-5d8f9c7b6-p%d", i)
		p := corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, UID: types.UID(name + "-uid"),
				CreationTimestamp: metav1.NewTime(now.Add(-5 * time.Minute)), Labels: map[string]string{"app": "web", "pod-template-hash": "5d8f9c7b6"},
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-5d8f9c7b6", UID: "rs-uid", Controller: &yes}}},
			Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "web"}}},
		}
		p.Status.Phase = corev1.PodRunning
		p.Status.StartTime = &metav1.Time{Time: now.Add(-5 * time.Minute)}
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(now.Add(-4 * time.Minute))}}
		if cond != nil {
			p.Status.Conditions = append(p.Status.Conditions, *cond)
		}
		//nolint:staticcheck // the field 1.27-1.32 report
		p.Status.Resize = resize
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "web", Ready: true, Started: &yes,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(now.Add(-4 * time.Minute))}}}}
		return p
	}
	infeasible := &corev1.PodCondition{Type: corev1.PodResizePending, Status: corev1.ConditionTrue, Reason: "Infeasible",
		Message: "Node didn't have enough capacity: cpu, requested: 100000, capacity: 3800", LastTransitionTime: metav1.NewTime(now.Add(-time.Minute))}
	deferred := &corev1.PodCondition{Type: corev1.PodResizePending, Status: corev1.ConditionTrue, Reason: "Deferred",
		Message: "Node didn't have enough resource: cpu, requested: 3000, used: 2150, capacity: 4000", LastTransitionTime: metav1.NewTime(now.Add(-time.Minute))}
	for _, tt := range []struct {
		name   string
		cond   *corev1.PodCondition
		resize corev1.PodResizeStatus
		health chain.Health
		cause  chain.CauseID
	}{
		{"no resize", nil, "", chain.Healthy, ""},
		{"infeasible", infeasible, "", chain.Broken, decode.PodResizeInfeasible},
		{"deferred", deferred, "", chain.Progressing, decode.PodResizeDeferred},
		{"status.resize infeasible", nil, corev1.PodResizeStatusInfeasible, chain.Broken, decode.PodResizeInfeasible},
	} {
		s := walkSnapshot()
		s.Now = now
		s.Deployment.Status = appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 3, AvailableReplicas: 3}
		s.ReplicaSets[0].Status = appsv1.ReplicaSetStatus{Replicas: 3, ReadyReplicas: 3, AvailableReplicas: 3}
		s.Pods = []corev1.Pod{pod(0, tt.cond, tt.resize), pod(1, nil, ""), pod(2, nil, "")}
		r := Walk(s, Options{})
		if r.Verdict.Health != tt.health || r.Verdict.Cause != tt.cause {
			t.Errorf("%s: verdict %s at %s, cause %s (%s); want %s %s", tt.name, r.Verdict.Health, r.Verdict.Link, r.Verdict.Cause, r.Verdict.Summary, tt.health, tt.cause)
			continue
		}
		if tt.cause != "" && r.Verdict.Link != chain.LinkContainers {
			t.Errorf("%s: at %s, want containers", tt.name, r.Verdict.Link)
		}
	}
}
