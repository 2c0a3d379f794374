package decode

import (
	"slices"
	"testing"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// TestRegistry: every decoder names a family of the catalogue and, as its
// fallbacks, exactly that family's catch-all causes; each either names
// the reasons it explains or claims its own; no reason is named twice; and
// each caller's list is the registry's order.
func TestRegistry(t *testing.T) {
	generic := map[string][]chain.CauseID{}
	families := map[string]bool{}
	for _, c := range Catalogue() {
		families[c.Family] = true
		if c.Generic {
			generic[c.Family] = append(generic[c.Family], c.ID)
		}
	}
	names, reasons := map[string]bool{}, map[string]string{}
	for _, d := range registry {
		if names[d.name] {
			t.Errorf("%s: listed twice", d.name)
		}
		names[d.name] = true
		if !families[d.family] {
			t.Errorf("%s: family %q is not the catalogue's", d.name, d.family)
		}
		if d.decode != nil && !slices.Equal(d.fallbacks, generic[d.family]) {
			t.Errorf("%s: fallbacks %v, but family %s's catch-alls are %v", d.name, d.fallbacks, d.family, generic[d.family])
		}
		if (d.explain == nil) == (d.decode == nil) || (d.explain != nil) != (len(d.reasons) > 0) {
			t.Errorf("%s: wants either reasons with explain, or decode", d.name)
		}
		for _, r := range d.reasons {
			if other, ok := reasons[r]; ok {
				t.Errorf("reason %s is named by %s and %s", r, other, d.name)
			}
			reasons[r] = d.name
		}
	}
	if len(kubeletDecoders) != 9 || len(waitingDecoders) != 5 || len(creatingDecoders) != 2 {
		t.Errorf("%d kubelet decoders, %d for waiting states, %d before containers; want 9, 5, 2", len(kubeletDecoders), len(waitingDecoders), len(creatingDecoders))
	}
	// A family's fallback is what its decoder names for a reason it claims
	// but whose wording it does not know.
	for _, tt := range []struct {
		reason string
		want   chain.CauseID
	}{
		{"ErrImagePull", ImagePullFailed},
		{"CreateContainerConfigError", ContainerConfigError},
		{"FailedMount", VolumeMountFailed},
		{"FailedCreatePodSandBox", SandboxCreationFailed},
	} {
		d, ok := explainKubelet(tt.reason, "a wording no decoder knows")
		if !ok || d.Cause != tt.want {
			t.Errorf("%s with unknown words: %s (%v), want the fallback %s", tt.reason, d.Cause, ok, tt.want)
		}
	}
}
