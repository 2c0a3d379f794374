package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// widgetCRD is a custom kind no controller serves: its objects carry no
// status, which kstatus reads as Current, so their chain is what they own.
const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.e2e.kubectl-chain.io
spec:
  group: e2e.kubectl-chain.io
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wdg]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`

// TestResourceKinds runs the real binary on kinds it does not know itself,
// resolved through the lab's discovery: a custom resource that owns a
// Deployment whose image does not exist (the owner's chain names the
// Deployment's cause), the same object by every spelling kubectl takes, a
// claim the real PersistentVolume controller leaves Pending (kstatus:
// InProgress), and a type the cluster does not serve.
func TestResourceKinds(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ns := createNamespace(ctx, t, "e2e-resource")
	kubectl(ctx, t, widgetCRD, "apply", "-f", "-")
	t.Cleanup(func() {
		_ = exec.Command("kubectl", "--kubeconfig", kubeconfig, "delete", "crd", "widgets.e2e.kubectl-chain.io", "--wait=false").Run()
	})
	kubectl(ctx, t, "", "wait", "--for=condition=Established", "crd/widgets.e2e.kubectl-chain.io", "--timeout=60s")
	kubectl(ctx, t, "apiVersion: e2e.kubectl-chain.io/v1\nkind: Widget\nmetadata:\n  name: shop\n", "apply", "-n", ns, "-f", "-")
	uid := strings.TrimSpace(kubectl(ctx, t, "", "get", "widget", "shop", "-n", ns, "-o", "jsonpath={.metadata.uid}"))

	d := healthyDeployment("web", 1)
	d.Spec.Template.Spec.Containers[0].Image = "registry.lab.internal/web:missing"
	d.OwnerReferences = []metav1.OwnerReference{{APIVersion: "e2e.kubectl-chain.io/v1", Kind: "Widget", Name: "shop", UID: types.UID(uid)}}
	createDeployment(ctx, t, ns, d)

	var last verdict
	var out []byte
	poll(ctx, t, "widget/shop broken at owned with ImageNotFound", func() bool {
		v, o, code, err := diagnose(ctx, "widget/shop", "-n", ns)
		last, out = v, o
		return err == nil && code == 1 && v.Health == "broken" && v.Link == "owned" && v.Cause == "ImageNotFound"
	})
	var report struct {
		Kind string `json:"kind"`
		API  struct {
			Group, Resource string
		} `json:"api"`
	}
	if err := json.Unmarshal(out, &report); err != nil || report.Kind != "Widget" || report.API.Resource != "widgets" || report.API.Group != "e2e.kubectl-chain.io" {
		t.Errorf("report kind %q api %+v (%v)\n%s", report.Kind, report.API, err, out)
	}
	for _, spelling := range []string{"wdg/shop", "widgets/shop", "widget.e2e.kubectl-chain.io/shop", "widgets.v1.e2e.kubectl-chain.io/shop"} {
		if v, _, code, err := diagnose(ctx, spelling, "-n", ns); err != nil || code != 1 || v != last {
			t.Errorf("%s: exit %d, verdict %+v (%v); want %+v", spelling, code, v, err, last)
		}
	}

	var ee *exec.ExitError
	// --wait ends on the owned Deployment's terminal cause, and exits 1.
	if v, o, code, err := diagnose(ctx, "widget/shop", "-n", ns, "--wait", "--timeout", "60s"); err != nil || code != 1 || v != last {
		t.Errorf("--wait: exit %d, verdict %+v (%v); want %+v\n%s", code, v, err, last, o)
	}

	// A claim of the default class (WaitForFirstConsumer) that no pod
	// mounts: the PersistentVolume controller leaves it Pending.
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data"}, Spec: corev1.PersistentVolumeClaimSpec{
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Mi")}},
	}}
	if _, err := client.CoreV1().PersistentVolumeClaims(ns).Create(ctx, pvc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(ctx, t, "pvc/data progressing at status", func() bool {
		v, _, code, err := diagnose(ctx, "pvc/data", "-n", ns)
		return err == nil && code == 2 && v.Health == "progressing" && v.Link == "status" && v.Cause == "ResourceInProgress"
	})

	// A release of those objects: the Widget (Current) and what it owns
	// that the release does not hold (its operator-made Deployment, whose
	// image does not exist: the gate fails, exit 1, ImageNotFound), the
	// Pending claim (InProgress) and a Secret, listed as not judged.
	release := filepath.Join(t.TempDir(), "release.yaml")
	manifests := "apiVersion: e2e.kubectl-chain.io/v1\nkind: Widget\nmetadata:\n  name: shop\n---\n" +
		"apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: data\n---\n" +
		"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db-creds\n"
	if err := os.WriteFile(release, []byte(manifests), 0o600); err != nil {
		t.Fatal(err)
	}
	gate := exec.CommandContext(ctx, chainBin, "--manifests", release, "-n", ns, "--kubeconfig", kubeconfig)
	var gateOut, gateErr strings.Builder
	gate.Stdout, gate.Stderr = &gateOut, &gateErr
	err := gate.Run()
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(gateErr.String(), "secret/db-creds: not read") ||
		!strings.Contains(gateOut.String(), "persistentvolumeclaim/data") || !strings.Contains(gateOut.String(), "BROKEN at owned") ||
		!strings.Contains(gateOut.String(), "ImageNotFound") {
		t.Errorf("--manifests: %v\nstdout:\n%s\nstderr:\n%s", err, gateOut.String(), gateErr.String())
	}

	cmd := exec.CommandContext(ctx, chainBin, "nosuchkind/web", "-n", ns, "--kubeconfig", kubeconfig)
	stderr, err := cmd.CombinedOutput()
	if !errors.As(err, &ee) || ee.ExitCode() != 4 || !strings.Contains(string(stderr), "kubectl api-resources") {
		t.Errorf("nosuchkind/web: %v\n%s", err, stderr)
	}
}

// kubectl runs kubectl on the lab with stdin, failing the test on error.
func kubectl(ctx context.Context, t *testing.T, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", kubeconfig}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
