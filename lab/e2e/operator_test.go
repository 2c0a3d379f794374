package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOperatorShops plays owner chains with the lab's own operator
// (controller-runtime): a Shop owns a web Deployment and a db
// StatefulSet. A Shop whose db claim the provisioner refuses is
// InProgress, and kubectl chain names the StatefulSet's claims as the
// cause one link down; past its progress deadline the operator says
// Stalled (kstatus: Failed). A release that holds it fails
// --manifests --wait, naming it, while the release of the good Shop
// passes.
func TestOperatorShops(t *testing.T) {
	alone(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	ns := createNamespace(ctx, t, "e2e-shops")
	// The class caps volumes at 1Gi, as pvc-provisioning-failed's.
	class := "capped-" + ns
	kubectl(ctx, t, fmt.Sprintf(`apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: %s
provisioner: lab.kubectl-chain.io/hostpath
parameters:
  maxSize: 1Gi
volumeBindingMode: Immediate
`, class), "apply", "-f", "-")
	t.Cleanup(func() {
		_ = exec.Command("kubectl", "--kubeconfig", kubeconfig, "delete", "storageclass", class, "--wait=false").Run()
	})
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	bad := filepath.Join(dir, "bad.yaml")
	write := func(path, body string) {
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(good, `apiVersion: lab.kubectl-chain.io/v1alpha1
kind: Shop
metadata:
  name: good
spec:
  image: registry.lab.internal/web:v1
  webReplicas: 2
`)
	write(bad, fmt.Sprintf(`apiVersion: lab.kubectl-chain.io/v1alpha1
kind: Shop
metadata:
  name: bad
spec:
  image: registry.lab.internal/web:v1
  dbStorage: 5Gi
  storageClassName: %s
  progressDeadlineSeconds: 20
`, class))
	kubectl(ctx, t, "", "apply", "-n", ns, "-f", good, "-f", bad)

	// The good Shop: its Deployment and StatefulSet ready, the operator
	// says Ready; --wait ends healthy.
	if v, out, code, err := diagnose(ctx, "shop/good", "-n", ns, "--wait", "--timeout", "150s"); err != nil || code != 0 || v.Health != "healthy" {
		t.Fatalf("shop/good --wait: exit %d, verdict %+v (%v)\n%s\n%s", code, v, err, out, kubectl(ctx, t, "", "get", "shops,deploy,sts,pods,pvc", "-n", ns))
	}

	// The bad one: the cause is one link down, in the StatefulSet's
	// chain; then the operator gives up, and its own status is Failed.
	var out []byte
	poll(ctx, t, "shop/bad broken at owned with ClaimProvisioningFailed", func() bool {
		v, o, code, err := diagnose(ctx, "shop/bad", "-n", ns)
		out = o
		return err == nil && code == 1 && v.Link == "owned" && v.Cause == "ClaimProvisioningFailed" ||
			err == nil && code == 1 && v.Link == "status" // already stalled on a slow machine
	})
	if !strings.Contains(string(out), "statefulset/bad-db") {
		t.Errorf("shop/bad does not name its StatefulSet:\n%s", out)
	}
	// A capture of it walks offline to the same chain: the Shop, the
	// workloads it owns and their evidence.
	captured := filepath.Join(dir, "bad-capture.yaml")
	if o, err := exec.CommandContext(ctx, chainBin, "capture", "shop/bad", "-n", ns, "--to", captured, "--kubeconfig", kubeconfig).CombinedOutput(); err != nil {
		t.Fatalf("capture shop/bad: %v\n%s", err, o)
	}
	if v, o, code, err := diagnose(ctx, "shop/bad", "-f", captured); err != nil || code != 1 || v.Health != "broken" ||
		!strings.Contains(string(o), "statefulset/bad-db") {
		t.Errorf("shop/bad -f its capture: exit %d, verdict %+v (%v)\n%s", code, v, err, o)
	}
	poll(ctx, t, "shop/bad Failed at status (Stalled)", func() bool {
		v, o, code, err := diagnose(ctx, "shop.lab.kubectl-chain.io/bad", "-n", ns)
		out = o
		return err == nil && code == 1 && v.Link == "status" && v.Cause == "ResourceFailed"
	})
	if !strings.Contains(string(out), "ProgressDeadlineExceeded") || !strings.Contains(string(out), "the cause is likely below it") {
		t.Errorf("shop/bad's Stalled condition is not quoted, or its next step does not point at what it owns:\n%s", out)
	}

	// The gate: the good release passes, the bad one fails, naming the
	// Shop.
	gate := func(file string) (int, string) {
		cmd := exec.CommandContext(ctx, chainBin, "--manifests", file, "-n", ns, "--wait", "--timeout", "60s", "--kubeconfig", kubeconfig)
		o, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), string(o)
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, string(o)
	}
	if code, o := gate(good); code != 0 {
		t.Errorf("--manifests good.yaml --wait: exit %d, want 0\n%s", code, o)
	}
	if code, o := gate(bad); code != 1 || !strings.Contains(o, "shop.lab.kubectl-chain.io/bad") {
		t.Errorf("--manifests bad.yaml --wait: exit %d, want 1 naming shop.lab.kubectl-chain.io/bad\n%s", code, o)
	}
}
