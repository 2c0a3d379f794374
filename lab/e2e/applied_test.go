package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"archive/zip"
	"io"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/lab/scenarios"
)

// The CRDs of the GitOps owners, as their projects release them: Argo CD's
// Application from the argo-cd module the plugin requires (its
// manifests/crds), Flux's Kustomization from kustomize-controller's
// module (config/crd/bases), fetched through the Go module proxy.
const (
	argoModule      = "github.com/argoproj/argo-cd/v3"
	fluxModule      = "github.com/fluxcd/kustomize-controller@v1.10.1"
	fluxCRDInModule = "config/crd/bases/kustomize.toolkit.fluxcd.io_kustomizations.yaml"
	fluxSample      = "config/samples/kustomize_v1_kustomization.yaml"
	// fluxToolchain reads that module (it requires Go 1.27), as .ci/run
	// reads the Argo Rollouts controller's.
	fluxToolchain = "go1.27.3"
)

// gitopsFiles are the Application's and the Kustomization's CRDs, a real
// Application as Argo CD's controller wrote it (argo-cd's
// controller/testdata/diff-cache.yaml, a user's Application with its
// sync history) and kustomize-controller's sample Kustomization
// (config/samples/kustomize_v1_kustomization.yaml).
func gitopsFiles(t *testing.T) (argoCRD, fluxCRD, app, ks string) {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", argoModule)
	cmd.Dir = filepath.Dir(root) // the plugin's module
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -m %s: %v", argoModule, err)
	}
	argoDir := strings.TrimSpace(string(out))
	a, err := os.ReadFile(filepath.Join(argoDir, "manifests", "crds", "application-crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	captured, err := os.ReadFile(filepath.Join(argoDir, "controller", "testdata", "diff-cache.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command("go", "mod", "download", "-json", fluxModule)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN="+fluxToolchain, "GOFLAGS=-mod=mod")
	out, err = cmd.Output()
	var dl struct{ Zip, Error string }
	if jerr := json.Unmarshal(out, &dl); jerr != nil || dl.Zip == "" {
		t.Fatalf("go mod download %s: %v %s\n%s", fluxModule, err, dl.Error, out)
	}
	z, err := zip.OpenReader(dl.Zip)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	read := func(suffix string) string {
		for _, f := range z.File {
			if strings.HasSuffix(f.Name, "/"+suffix) {
				r, err := f.Open()
				if err != nil {
					t.Fatal(err)
				}
				b, err := io.ReadAll(r)
				r.Close()
				if err != nil {
					t.Fatal(err)
				}
				return string(b)
			}
		}
		t.Fatalf("%s has no %s", dl.Zip, suffix)
		return ""
	}
	return string(a), read(fluxCRDInModule), string(captured), strings.Split(read(fluxSample), "\n---\n")[0]
}

// appliedReport runs kubectl-chain deploy/web -n ns -o json until its
// change names who applied the revision, and returns the report.
func appliedReport(ctx context.Context, t *testing.T, ns string) chain.Report {
	t.Helper()
	var r chain.Report
	deadline := time.Now().Add(2 * time.Minute)
	for {
		out, _ := exec.CommandContext(ctx, chainBin, "deploy/web", "-n", ns, "-o", "json", "--kubeconfig", kubeconfig).Output()
		r = chain.Report{}
		_ = json.Unmarshal(out, &r)
		if r.Verdict.Health == chain.Broken && r.Change != nil && r.Change.Applied != nil || time.Now().After(deadline) {
			return r
		}
		time.Sleep(2 * time.Second)
	}
}

// breakBy applies the missing image to deploy/web in ns as manager does,
// server-side, with the labels and annotations the tool puts on what it
// applies.
func breakBy(ctx context.Context, t *testing.T, ns, manager string, labels, annotations map[string]string) {
	t.Helper()
	patch, _ := json.Marshal(map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "namespace": ns, "labels": labels, "annotations": annotations},
		"spec":     map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "web", "image": missingImage}}}}},
	})
	force := true
	if _, err := client.AppsV1().Deployments(ns).Patch(ctx, "web", types.ApplyPatchType, patch, metav1.PatchOptions{FieldManager: manager, Force: &force}); err != nil {
		t.Fatal(err)
	}
}

// TestAppliedBy: a revision that broke names who applied it. The lab
// serves Argo CD's Application and Flux's Kustomization (their released
// CRDs); the test writes their statuses as their controllers do (the
// fields of argo-cd's RevisionHistory and SyncStatus, kustomize-controller's
// lastAppliedRevision) and applies the broken revision as each applies it
// (server-side, with its field manager and its tracking label or
// annotation). Then a person's kubectl edit names kubectl-edit.
func TestAppliedBy(t *testing.T) {
	shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	argoCRD, fluxCRD, capturedApp, sampleKs := gitopsFiles(t)
	for _, c := range []struct{ manifest, name string }{{argoCRD, "applications.argoproj.io"}, {fluxCRD, "kustomizations.kustomize.toolkit.fluxcd.io"}} {
		kubectl(ctx, t, c.manifest, "apply", "--server-side", "-f", "-")
		t.Cleanup(func() {
			_ = exec.Command("kubectl", "--kubeconfig", kubeconfig, "delete", "crd", c.name, "--wait=false").Run()
		})
		// Just created, a CRD has no conditions yet: kubectl wait fails
		// on that rather than waiting.
		poll(ctx, t, "CRD "+c.name+" established", func() bool {
			return exec.CommandContext(ctx, "kubectl", "--kubeconfig", kubeconfig, "wait", "--for=condition=Established", "crd/"+c.name, "--timeout=5s").Run() == nil
		})
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	healthy, err := scenarios.Get("healthy")
	if err != nil {
		t.Fatal(err)
	}
	sha := "9c4e1f7a2b3d5e6f8091a2b3c4d5e6f708192a3b"
	for _, ns := range []string{"applied-argo", "applied-flux", "applied-edit", "argocd", "flux-system"} {
		if ns == "argocd" || ns == "flux-system" {
			kubectl(ctx, t, "", "create", "namespace", ns)
			continue
		}
		if err := scenarios.Apply(ctx, client, healthy, ns); err != nil {
			t.Fatal(err)
		}
	}
	for _, ns := range []string{"applied-argo", "applied-flux", "applied-edit"} {
		waitAvailableIn(ctx, t, client, ns, "web")
	}

	// Argo CD: the captured Application, its last sync the broken
	// revision: its history is moved to now, its newest entry deployed as
	// the revision is applied (a sync writes the workloads, then ends).
	app := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(capturedApp), &app.Object); err != nil {
		t.Fatal(err)
	}
	app.Object["metadata"] = map[string]any{"name": "web", "namespace": "argocd"}
	_ = unstructured.SetNestedField(app.Object, "applied-argo", "spec", "destination", "namespace")
	hist, _, _ := unstructured.NestedSlice(app.Object, "status", "history")
	if len(hist) < 2 {
		t.Fatalf("the captured Application has %d history entries", len(hist))
	}
	changed := time.Now().UTC()
	for i := range hist {
		h := hist[i].(map[string]any)
		at := changed.Add(time.Duration(i-len(hist)+1) * time.Hour).Add(5 * time.Second)
		h["deployedAt"], h["deployStartedAt"] = at.Format(time.RFC3339), at.Add(-time.Second).Format(time.RFC3339)
	}
	_ = unstructured.SetNestedSlice(app.Object, hist, "status", "history")
	last := hist[len(hist)-1].(map[string]any)
	wantRevision := last["revision"].(string)
	wantRepo := last["source"].(map[string]any)["repoURL"].(string)
	if _, err := dc.Resource(schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "applications"}).Namespace("argocd").Create(ctx, app, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	breakBy(ctx, t, "applied-argo", "argocd-controller", map[string]string{"app.kubernetes.io/instance": "web"},
		map[string]string{"argocd.argoproj.io/tracking-id": "web:apps/Deployment:applied-argo/web"})
	r := appliedReport(ctx, t, "applied-argo")
	if a := appliedOf(r); a == nil || a.By != "Argo CD" || a.Owner == nil || a.Owner.Namespace != "argocd" || a.Owner.Name != "web" ||
		a.Revision != wantRevision || a.Repo != wantRepo || a.Manager != "argocd-controller" || a.Operation != "Apply" {
		t.Errorf("Argo CD: %+v (verdict %+v)", a, r.Verdict)
	}

	// Flux: a Kustomization whose last applied revision is the broken one.
	ks := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(sampleKs), &ks.Object); err != nil {
		t.Fatal(err)
	}
	ks.SetNamespace("flux-system")
	ksName := ks.GetName()
	source, _, _ := unstructured.NestedString(ks.Object, "spec", "sourceRef", "name")
	ksr := dc.Resource(schema.GroupVersionResource{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Resource: "kustomizations"}).Namespace("flux-system")
	created, err := ksr.Create(ctx, ks, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_ = unstructured.SetNestedField(created.Object, "main@sha1:"+sha, "status", "lastAppliedRevision")
	if _, err := ksr.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	breakBy(ctx, t, "applied-flux", "kustomize-controller", map[string]string{
		"kustomize.toolkit.fluxcd.io/name": ksName, "kustomize.toolkit.fluxcd.io/namespace": "flux-system"}, nil)
	r = appliedReport(ctx, t, "applied-flux")
	if a := appliedOf(r); a == nil || a.By != "Flux" || a.Owner == nil || a.Owner.Kind != "Kustomization" || a.Owner.Name != ksName ||
		a.Revision != "main@sha1:"+sha || a.Repo != "GitRepository flux-system/"+source || a.Manager != "kustomize-controller" {
		t.Errorf("Flux: %+v (verdict %+v)", a, r.Verdict)
	}

	// A person's kubectl edit: the editor is a script that sets the image.
	editor := filepath.Join(t.TempDir(), "editor")
	script := "#!/bin/sh\nsed -i 's#image: .*#image: " + missingImage + "#' \"$1\"\n"
	if err := os.WriteFile(editor, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, "kubectl", "--kubeconfig", kubeconfig, "edit", "deploy/web", "-n", "applied-edit")
	cmd.Env = append(os.Environ(), "KUBE_EDITOR="+editor, "EDITOR="+editor)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kubectl edit: %v\n%s", err, out)
	}
	r = appliedReport(ctx, t, "applied-edit")
	if a := appliedOf(r); a == nil || a.Manager != "kubectl-edit" || a.Owner != nil || a.Operation != "Update" {
		t.Errorf("kubectl edit: %+v (verdict %+v)", a, r.Verdict)
	}
	text, _ := exec.CommandContext(ctx, chainBin, "deploy/web", "-n", "applied-edit", "--kubeconfig", kubeconfig).Output()
	if !strings.Contains(string(text), "applied by kubectl-edit, ") {
		t.Errorf("the text report does not say who applied it:\n%s", text)
	}
}

func appliedOf(r chain.Report) *chain.Applied {
	if r.Change == nil || r.Change.Applied == nil {
		return nil
	}
	fmt.Printf("e2e: %s/%s: %s\n", r.Namespace, r.Name, r.Change.Applied.Line(r.Time))
	return r.Change.Applied
}
