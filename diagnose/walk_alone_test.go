package diagnose

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// TestWalkAloneCountedDone: a Deployment read alone whose input shows no
// conditions (a describe cut before them: pulumi-kubernetes#497) is
// healthy when its counts say the rollout is done, and left to kstatus
// (not Available) when they do not.
func TestWalkAloneCountedDone(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status appsv1.DeploymentStatus
		want   chain.Health
	}{
		{"all updated and available", appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 3, AvailableReplicas: 3}, chain.Healthy},
		{"one unavailable", appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 2, AvailableReplicas: 2, UnavailableReplicas: 1}, chain.Progressing},
		{"an old replica left", appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 4, UpdatedReplicas: 3, ReadyReplicas: 4, AvailableReplicas: 3}, chain.Progressing},
	} {
		s := walkSnapshot()
		s.ReplicaSets = nil
		s.Deployment.Status = tc.status
		s.Deployment.APIVersion, s.Deployment.Kind = "apps/v1", "Deployment"
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(s.Deployment)
		if err != nil {
			t.Fatal(err)
		}
		s.Object, s.Alone = &unstructured.Unstructured{Object: m}, true
		if r := Walk(s, Options{}); r.Verdict.Health != tc.want {
			t.Errorf("%s: %s at %s (%s), want %s\n%s", tc.name, r.Verdict.Health, r.Verdict.Link, r.Verdict.Cause, tc.want, linkLines(r))
		}
	}
}
