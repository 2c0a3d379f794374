package scenarios

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/diagnose"
)

// TestCatalogue checks every scenario: a unique name usable as a namespace,
// a manifest that decodes to objects Apply can create and exactly one
// Deployment named web, and an expected verdict whose cause is in the
// diagnosis catalogue on the link that cause belongs to.
func TestCatalogue(t *testing.T) {
	seen := map[string]bool{}
	for _, sc := range All() {
		if seen[sc.Name] {
			t.Errorf("%s: duplicate name", sc.Name)
		}
		seen[sc.Name] = true
		if errs := validation.IsDNS1123Label("sc-" + sc.Name); len(errs) > 0 {
			t.Errorf("%s: not a namespace name: %v", sc.Name, errs)
		}
		raw, err := sc.Manifest()
		if err != nil {
			t.Errorf("%s: %v", sc.Name, err)
			continue
		}
		objs, err := decode(raw)
		if err != nil {
			t.Errorf("%s: %v", sc.Name, err)
			continue
		}
		deployments := 0
		for _, o := range objs {
			if d, ok := o.(*appsv1.Deployment); ok {
				deployments++
				if d.Name != Deployment {
					t.Errorf("%s: Deployment %q, want %q", sc.Name, d.Name, Deployment)
				}
			}
			if err := supported(o); err != nil {
				t.Errorf("%s: %v", sc.Name, err)
			}
		}
		if deployments != 1 {
			t.Errorf("%s: %d Deployments, want 1", sc.Name, deployments)
		}
		if sc.Health == chain.Healthy {
			if sc.Link != "" || sc.Cause != "" {
				t.Errorf("%s: healthy with a link or cause", sc.Name)
			}
			continue
		}
		c, ok := diagnose.Lookup(sc.Cause)
		if !ok {
			t.Errorf("%s: cause %q is not in the catalogue", sc.Name, sc.Cause)
			continue
		}
		if c.Link != sc.Link {
			t.Errorf("%s: link %q, but cause %s belongs to %q", sc.Name, sc.Link, sc.Cause, c.Link)
		}
	}
	if _, err := Get("no-such-scenario"); err == nil {
		t.Error("Get of an unknown scenario: no error")
	}
}
