package diagnose

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// TestWalkAppArmorRefused: a pod the kubelet would not run for AppArmor is
// on the containers link with the profile's cause, whether it stays
// Pending with reason AppArmor and no container state (the kubelet's soft
// admission before 1.30, rancher/rke2#483) or ends Failed with it (1.30+,
// VictoriaMetrics/operator#1120).
func TestWalkAppArmorRefused(t *testing.T) {
	yes, one := true, int32(1)
	now := walkT0.Add(10 * time.Minute)
	for _, ph := range []corev1.PodPhase{corev1.PodPending, corev1.PodFailed} {
		s := walkSnapshot()
		s.Now = now
		s.Deployment.Spec.Replicas = &one
		s.ReplicaSets[0].Spec.Replicas = &one
		s.ReplicaSets[0].Status.Replicas = 1
		p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-5d8f9c7b6-a", UID: "a",
			Labels:            map[string]string{"app": "web", "pod-template-hash": "5d8f9c7b6"},
			CreationTimestamp: metav1.NewTime(now.Add(-5 * time.Minute)),
			OwnerReferences:   []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-5d8f9c7b6", UID: "rs-uid", Controller: &yes}}},
			Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "web"}}}}
		p.Status.Phase = ph
		p.Status.Reason = "AppArmor"
		p.Status.Message = "Cannot enforce AppArmor: AppArmor is not enabled on the host"
		s.Pods = []corev1.Pod{p}
		r := Walk(s, Options{})
		if r.Verdict.Health != chain.Broken || r.Verdict.Link != chain.LinkContainers || r.Verdict.Cause != decode.AppArmorProfileNotLoaded {
			t.Errorf("%s: %s at %s, cause %s (%s); want broken at containers, AppArmorProfileNotLoaded", ph, r.Verdict.Health, r.Verdict.Link, r.Verdict.Cause, r.Verdict.Summary)
		}
	}
}
