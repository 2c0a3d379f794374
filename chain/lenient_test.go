package chain

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestLenient: a field that does not fit its type is left out and named;
// the rest of the object decodes. The object is the one Argo CD keeps as
// argoproj.io/Rollout/testdata/degraded_statusPhaseMessage.yaml, cut
// down: status.conditions is a map there.
func TestLenient(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout",
		"metadata": map[string]any{"name": "basic", "namespace": "argocd-e2e"},
		"spec":     map[string]any{"replicas": int64(1)},
		"status":   map[string]any{"conditions": map[string]any{}, "phase": "Degraded", "message": "InvalidSpec"},
	}}
	ro, err := DecodeRollout(u)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ro.Undecoded, []string{"status.conditions"}) || ro.Status.Phase != "Degraded" || ro.Name != "basic" || *ro.Spec.Replicas != 1 {
		t.Errorf("undecoded %v, phase %q, name %q", ro.Undecoded, ro.Status.Phase, ro.Name)
	}
	if _, ok := u.Object["status"].(map[string]any)["conditions"]; !ok {
		t.Error("the object itself was changed")
	}
}

// TestForeign: a kind named as one kubectl chain walks, in another
// group, is walked as any resource.
func TestForeign(t *testing.T) {
	for _, c := range []struct {
		ref  Ref
		want bool
	}{
		{Ref{Kind: KindDaemonSet, Name: "x"}, false},
		{Ref{Kind: KindDaemonSet, Group: "apps", Name: "x"}, false},
		{Ref{Kind: KindDaemonSet, Group: "apps.kruise.io", Name: "x"}, true},
		{Ref{Kind: KindService, Group: "serving.knative.dev", Name: "x"}, true},
		{Ref{Kind: KindGateway, Group: GatewayGroup, Name: "x"}, false},
		{Ref{Kind: KindGateway, Group: "gateway.solo.io", Name: "x"}, true},
		{Ref{Kind: KindRollout, Group: "rollouts.kruise.io", Name: "x"}, true},
		{Ref{Kind: "Certificate", Group: "cert-manager.io", Name: "x"}, true},
	} {
		if got := c.ref.IsResource(); got != c.want {
			t.Errorf("%s: IsResource %v, want %v", c.ref, got, c.want)
		}
	}
}
