package diagnose

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
	"github.com/kubectl-chain/kubectl-chain/internal/health"
)

// TestUnreconciled: a Certificate no controller ever touched (no status at
// all: cert-manager is not installed or not running) is what Argo CD's
// check calls Progressing, "Waiting for certificate"; the gate waits for
// the grace, then calls it broken, where kstatus calls it Current.
func TestUnreconciled(t *testing.T) {
	created := time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC)
	obj := resourceObject(certificates, "web-tls", 1)
	obj.SetCreationTimestamp(metav1.NewTime(created))
	for _, tt := range []struct {
		after  time.Duration
		health chain.Health
	}{
		{10 * time.Second, chain.Progressing},
		{2 * time.Minute, chain.Broken},
	} {
		api := certificates
		r := Walk(&chain.Snapshot{Kind: chain.Kind(api.Kind), Namespace: "shop", Name: "web-tls", API: &api, Object: obj, Now: created.Add(tt.after)}, Options{Grace: DefaultGrace})
		v := r.Verdict
		if v.Health != tt.health || v.Link != chain.LinkStatus || v.Cause != decode.ResourceNotReconciled {
			t.Errorf("%s after creation: %s at %s (%s), want %s at status (ResourceNotReconciled)", tt.after, v.Health, v.Link, v.Cause, tt.health)
		}
	}
}

// TestUserCheckOverrides: a check of the user's, loaded as --health-checks
// loads it, decides for its kind before Argo CD's.
func TestUserCheckOverrides(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "cert-manager.io", "Certificate"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cert-manager.io", "Certificate", "health.lua"), []byte(`return {status = "Suspended", message = "renewals are paused for the freeze"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	user, err := health.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	api := certificates
	obj := resourceObject(api, "web-tls", 1, [4]string{"Ready", "True", "Ready", "Certificate is up to date and has not expired"})
	snap := func() *chain.Snapshot {
		return &chain.Snapshot{Kind: chain.Kind(api.Kind), Namespace: "shop", Name: "web-tls", API: &api, Object: obj, Now: time.Now()}
	}
	if v := Walk(snap(), Options{}).Verdict; v.Health != chain.Healthy {
		t.Errorf("Argo CD's check: %s (%s), want healthy", v.Health, v.Cause)
	}
	if v := Walk(snap(), Options{Health: user.Over(health.Builtin())}).Verdict; v.Health != chain.Broken || v.Cause != decode.HealthSuspended {
		t.Errorf("the user's check: %s (%s), want broken (HealthSuspended)", v.Health, v.Cause)
	}
}
