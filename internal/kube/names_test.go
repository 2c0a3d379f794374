package kube

import (
	"context"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// TestNames: completion lists a kind served by its CRD (a Gateway API
// route, an Argo Rollout) through the dynamic client, as the built-in
// kinds through the typed one; a kind of no row has no names.
func TestNames(t *testing.T) {
	c := newGatewayFake(t, nil, gatewayObjects())
	ro := &unstructured.Unstructured{}
	ro.SetAPIVersion(chain.RolloutAPI.APIVersion())
	ro.SetKind(chain.RolloutAPI.Kind)
	ro.SetNamespace("prod")
	ro.SetName("web")
	if err := c.dyn.Tracker().Create(gvrOf(chain.RolloutAPI), ro, "prod"); err != nil {
		t.Fatal(err)
	}
	r := &Reader{Client: c}
	ctx := context.Background()
	for kind, want := range map[string][]string{"rollout": {"web"}, "httproute": {"web"}} {
		if got, err := r.Names(ctx, "prod", kind); err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: %v, %v; want %v", kind, got, err, want)
		}
	}
	if _, err := r.Names(ctx, "prod", "widget"); err == nil {
		t.Error("names of a kind kubectl chain does not walk")
	}
}
