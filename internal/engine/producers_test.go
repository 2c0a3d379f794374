package engine

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// TestSelfProducer: a Certificate walked as itself and not healthy has its
// requests and their steps read (its Secret joins the ones looked for); a
// healthy one, another producer kind without attempts, and a workload do
// not.
func TestSelfProducer(t *testing.T) {
	cert := chain.APIResource{Group: "cert-manager.io", Version: "v1", Resource: "certificates", Kind: "Certificate", Namespaced: true}
	sealed := chain.APIResource{Group: "bitnami.com", Version: "v1alpha1", Resource: "sealedsecrets", Kind: "SealedSecret", Namespaced: true}
	obj := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"secretName": "web-tls"}}}
	for _, tt := range []struct {
		api    *chain.APIResource
		health chain.Health
		want   bool
	}{
		{&cert, chain.Progressing, true},
		{&cert, chain.Broken, true},
		{&cert, chain.Healthy, false},
		{&sealed, chain.Broken, false},
		{nil, chain.Broken, false},
	} {
		snap := &chain.Snapshot{API: tt.api, Object: obj}
		got := selfProducer(snap, &chain.Report{Verdict: chain.Verdict{Health: tt.health}})
		if (got != nil) != tt.want {
			t.Errorf("%v %s: producer %v, want one: %v", tt.api, tt.health, got, tt.want)
		}
		if got != nil && got.Writes(obj) != "web-tls" {
			t.Errorf("writes %q", got.Writes(obj))
		}
	}
}
