package cli

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// releaseYAML is what helm template prints for a chart with a Deployment,
// a StatefulSet, a pre-install hook Job deleted once it succeeds and a
// test hook: no namespace on the objects (the apply's -n gives it).
const releaseYAML = `---
# Source: shop/templates/web.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: registry.lab.internal/shop/web:1.5.0
---
# Source: shop/templates/db.yaml
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
spec:
  serviceName: db
  selector:
    matchLabels: {app: db}
  template:
    metadata:
      labels: {app: db}
    spec:
      containers:
      - name: db
        image: registry.lab.internal/shop/db:16
---
# Source: shop/templates/migrate.yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    helm.sh/hook: pre-install,pre-upgrade
    helm.sh/hook-delete-policy: before-hook-creation,hook-succeeded
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: migrate
        image: registry.lab.internal/shop/web:1.5.0
---
# Source: shop/templates/service.yaml
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports:
  - {name: http, port: 80, targetPort: 8080}
---
# Source: shop/templates/ingress.yaml
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
spec:
  rules:
  - http:
      paths:
      - path: /
        pathType: Prefix
        backend:
          service: {name: web, port: {name: http}}
---
# Source: shop/templates/tests/smoke.yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: smoke
  annotations:
    helm.sh/hook: test
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: smoke
        image: registry.lab.internal/shop/web:1.5.0
`

// TestReleaseGate: --manifests judges every workload of a rendered release
// live, in -n's namespace: one report per workload, the table naming the
// one that blocks, one exit code; a workload not in the cluster is not
// found, a hook deleted once it succeeded is not missed, and a test hook
// is not judged. The namespace is read once per kind.
func TestReleaseGate(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "shop")
	file := filepath.Join(t.TempDir(), "release.yaml")
	if err := os.WriteFile(file, []byte(releaseYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	c := fakeClient(t, "image-not-found.yaml")
	// The release's Service is in the cluster; its Ingress is not.
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"}, Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}}}}
	if err := c.Tracker().Add(svc); err != nil {
		t.Fatal(err)
	}
	r := runWith(t, c, "--manifests", file, "-o", "json")
	if want := `workload(s) and traffic object(s) of the manifests name no namespace: judged in "shop", from the kubeconfig context's namespace`; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
	var l chain.ReportList
	decodeJSON(t, r.stdout, &l)
	got := map[string]chain.CauseID{}
	for _, it := range l.Items {
		got[string(it.Kind)+"/"+it.Namespace+"/"+it.Name] = it.Verdict.Cause
	}
	// The Service is judged through the Deployment it selects.
	want := map[string]chain.CauseID{"Deployment/shop/web": "ImageNotFound", "StatefulSet/shop/db": "WorkloadNotFound",
		"Service/shop/web": "ImageNotFound", "Ingress/shop/web": "TrafficObjectNotFound"}
	if r.code != ExitBroken || !maps.Equal(got, want) {
		t.Errorf("exit %d, verdicts %v; want %d, %v\n%s", r.code, got, ExitBroken, want, r.stderr)
	}
	// One list per kind of the one namespace (13), then each traffic
	// object's read: the Service's 7 and the Deployment behind it (8, the
	// Service's EndpointSlices, the NetworkPolicies and the autoscalers
	// among them), the Ingress's GET beside its 8 lists.
	if want := 13 + 7 + 8 + 9; l.Requests != want {
		t.Errorf("%d requests, want %d", l.Requests, want)
	}
	// In text, the summary names what blocks.
	r = runWith(t, c, "--manifests", file, "--color", "never")
	if !strings.Contains(r.stdout, "statefulset/db  broken  stored      WorkloadNotFound") || !strings.Contains(r.stdout, "deployment/web  broken  containers  ImageNotFound") {
		t.Errorf("summary:\n%s", r.stdout)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--manifests", file, "deploy/web"}, "--manifests names the workloads to judge"},
		{[]string{"--manifests", file, "-A"}, "--manifests names the workloads to judge"},
		{[]string{"--manifests", filepath.Join(t.TempDir(), "nope.yaml")}, "nope.yaml"},
	} {
		if r := runWith(t, c, tt.args...); r.code != ExitUsage || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tt.args, r.code, r.stderr, ExitUsage, tt.want)
		}
	}
}

// TestReleaseMeantByMembership: a Service of the release that selects no
// pod of the release's one Deployment is taken as meant for it by
// membership alone (no shared name, a one-label selector): the
// Deployment's serving link and the Service's own chain both name the
// label difference, where outside a release the Service would only select
// nothing.
func TestReleaseMeantByMembership(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "shop")
	manifests := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: registry.lab.internal/shop/web:1.5.0
---
apiVersion: v1
kind: Service
metadata:
  name: frontend
spec:
  selector: {app: webapp}
  ports:
  - port: 80
`
	file := filepath.Join(t.TempDir(), "release.yaml")
	if err := os.WriteFile(file, []byte(manifests), 0o600); err != nil {
		t.Fatal(err)
	}
	c := fakeClient(t, "healthy.yaml")
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "frontend"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "webapp"}, Ports: []corev1.ServicePort{{Port: 80}}}}
	if err := c.Tracker().Add(svc); err != nil {
		t.Fatal(err)
	}
	r := runWith(t, c, "--manifests", file, "-o", "json")
	var l chain.ReportList
	decodeJSON(t, r.stdout, &l)
	got := map[string]string{}
	for _, it := range l.Items {
		got[string(it.Kind)+"/"+it.Name] = string(it.Verdict.Cause) + ": " + it.Verdict.Summary
	}
	for _, k := range []string{"Deployment/web", "Service/frontend"} {
		if !strings.HasPrefix(got[k], "ServiceSelectorMismatch") || !strings.Contains(got[k], "app=webapp") {
			t.Errorf("%s: %q, want ServiceSelectorMismatch naming app=webapp (all: %v)", k, got[k], got)
		}
	}
	// Judged alone, the Service is not taken as meant for deployment/web.
	r = runWith(t, c, "svc/frontend", "-o", "json")
	var one chain.Report
	decodeJSON(t, r.stdout, &one)
	if one.Verdict.Cause != "ServiceSelectsNoPods" {
		t.Errorf("svc/frontend alone: %s, want ServiceSelectsNoPods", one.Verdict.Cause)
	}
}

// TestFolders: -f DIR and --manifests DIR read a folder as kubectl apply
// -f DIR does (its .yaml, .yml and .json files, in name order, not its
// subfolders); a kustomization folder is one line saying how to render
// it, and a folder with no manifest says so.
func TestFolders(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "shop")
	dir := t.TempDir()
	k8s := filepath.Join(dir, "k8s")
	if err := os.MkdirAll(filepath.Join(k8s, "nested"), 0o755); err != nil {
		t.Fatal(err)
	}
	deploy, svc, _ := strings.Cut(strings.TrimPrefix(releaseYAML, "---\n"), "---\n")
	for name, body := range map[string]string{"deploy.yaml": deploy, "rest.yml": svc, "README.md": "not a manifest", "nested/x.yaml": "{"} {
		if err := os.WriteFile(filepath.Join(k8s, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c := fakeClient(t, "image-not-found.yaml")
	r := runWith(t, c, "--manifests", k8s, "-o", "json")
	if r.stdout == "" {
		t.Fatalf("--manifests DIR: exit %d, no report\n%s", r.code, r.stderr)
	}
	var l chain.ReportList
	decodeJSON(t, r.stdout, &l)
	if r.code != ExitBroken || len(l.Items) < 2 {
		t.Errorf("--manifests DIR: exit %d, %d reports; want %d and the folder's objects\n%s", r.code, len(l.Items), ExitBroken, r.stderr)
	}
	kust := filepath.Join(dir, "overlay")
	if err := os.MkdirAll(kust, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(kust, "kustomization.yaml"), []byte("resources: [../k8s]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--manifests", kust}, "kubectl kustomize " + kust + " | kubectl chain --manifests -"},
		{[]string{"-f", kust, "deploy/web"}, "is a kustomization"},
		{[]string{"-f", empty, "deploy/web"}, "holds no .yaml, .yml or .json file"},
	} {
		r := runWith(t, c, tt.args...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, tt.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want %d and one line with %q", tt.args, r.code, r.stderr, ExitUsage, tt.want)
		}
	}
}
