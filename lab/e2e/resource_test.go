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
	"k8s.io/utils/ptr"

	"github.com/kubectl-chain/kubectl-chain/chain"
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
	alone(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ns := createNamespace(ctx, t, "e2e-resource")
	installCRDs(ctx, t, widgetCRD, "widgets.e2e.kubectl-chain.io")
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
	poll(ctx, t, "pvc/data progressing at status, waiting for a pod that uses it", func() bool {
		v, _, code, err := diagnose(ctx, "pvc/data", "-n", ns)
		return err == nil && code == 2 && v.Health == "progressing" && v.Link == "status" && v.Cause == "ClaimWaitingForConsumer"
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
	code, gateOut, gateErr, _ := gate(ctx, "--manifests", release, "-n", ns)
	if code != 1 || !strings.Contains(gateErr, "secret/db-creds: not read") ||
		!strings.Contains(gateOut, "persistentvolumeclaim/data") || !strings.Contains(gateOut, "BROKEN at owned") ||
		!strings.Contains(gateOut, "ImageNotFound") {
		t.Errorf("--manifests: exit %d\nstdout:\n%s\nstderr:\n%s", code, gateOut, gateErr)
	}

	// The same Widget alone as a release, with --wait: the gate fails on
	// the terminal cause below the operator within the grace, not at its
	// timeout.
	widgetOnly := filepath.Join(t.TempDir(), "widget.yaml")
	if err := os.WriteFile(widgetOnly, []byte("apiVersion: e2e.kubectl-chain.io/v1\nkind: Widget\nmetadata:\n  name: shop\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut, took := gate(ctx, "--manifests", widgetOnly, "-n", ns, "--wait", "--timeout", "120s"); code != 1 || took > 60*time.Second ||
		!strings.Contains(out, "ImageNotFound") {
		t.Errorf("--manifests --wait of the Widget alone: exit %d after %s, want 1 with ImageNotFound well before the timeout\n%s%s", code, took.Round(time.Second), out, errOut)
	}

	cmd := exec.CommandContext(ctx, chainBin, "nosuchkind/web", "-n", ns, "--kubeconfig", kubeconfig)
	stderr, err := cmd.CombinedOutput()
	if !errors.As(err, &ee) || ee.ExitCode() != 4 || !strings.Contains(string(stderr), "kubectl api-resources") {
		t.Errorf("nosuchkind/web: %v\n%s", err, stderr)
	}
}

// installCRDs applies the CRDs of manifest, waits until the API server
// serves them, and deletes them after the test.
func installCRDs(ctx context.Context, t *testing.T, manifest string, names ...string) {
	t.Helper()
	kubectl(ctx, t, manifest, "apply", "-f", "-")
	t.Cleanup(func() {
		_ = exec.Command("kubectl", append(append([]string{"--kubeconfig", kubeconfig, "delete", "crd"}, names...), "--wait=false")...).Run()
	})
	var crds []string
	for _, n := range names {
		crds = append(crds, "crd/"+n)
	}
	kubectl(ctx, t, "", append(append([]string{"wait", "--for=condition=Established"}, crds...), "--timeout=60s")...)
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

// advancedStatefulSetCRD serves OpenKruise's Advanced StatefulSet kind
// (apps.kruise.io's StatefulSet, walked as any resource: the chain of
// apps' StatefulSet is not its), with no controller: the test writes its
// status as the OpenKruise controller would, and makes its pods itself.
const advancedStatefulSetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: statefulsets.apps.kruise.io
spec:
  group: apps.kruise.io
  scope: Namespaced
  names: {plural: statefulsets, singular: statefulset, kind: StatefulSet}
  versions:
  - name: v1beta1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`

// advancedStatefulSet is an Advanced StatefulSet's manifest, as a release
// holds it (the update strategy its catalogue check reads).
func advancedStatefulSet(name string) string {
	return "apiVersion: apps.kruise.io/v1beta1\nkind: StatefulSet\nmetadata:\n  name: " + name + "\n" +
		"spec:\n  replicas: 2\n  serviceName: " + name + "\n  selector: {matchLabels: {app: " + name + "}}\n" +
		"  template:\n    metadata: {labels: {app: " + name + "}}\n    spec: {containers: [{name: web, image: registry.lab.internal/web:v1}]}\n" +
		"  updateStrategy: {type: RollingUpdate, rollingUpdate: {paused: false, partition: 0}}\n"
}

// cloneSetCRD serves OpenKruise's CloneSet kind, with no controller: the
// test writes its status as the CloneSet controller would, and makes its
// pods itself.
const cloneSetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: clonesets.apps.kruise.io
spec:
  group: apps.kruise.io
  scope: Namespaced
  names: {plural: clonesets, singular: cloneset, kind: CloneSet, shortNames: [clone]}
  versions:
  - name: v1alpha1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`

// gate runs the real binary with args on the lab, returning its exit
// code, standard output and error, and how long it took.
func gate(ctx context.Context, args ...string) (int, string, string, time.Duration) {
	cmd := exec.CommandContext(ctx, chainBin, append(args, "--kubeconfig", kubeconfig)...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		code = -1
	}
	return code, out.String(), errOut.String(), time.Since(start)
}

// TestCatalogueKinds runs the real binary on a kind Argo CD's catalogue
// checks (OpenKruise's Advanced StatefulSet), its status written as its
// controller writes it (the statuses of the catalogue's own fixtures):
// Degraded fails --manifests with the check's message; Progressing makes
// --wait wait until the status turns healthy; a user's --health-checks
// changes the verdict; pods the Advanced StatefulSet makes itself that
// cannot pull are named. And
// a release of an operator's custom resource whose Deployment cannot pull
// fails --manifests --wait within the grace.
func TestCatalogueKinds(t *testing.T) {
	alone(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	ns := createNamespace(ctx, t, "e2e-catalogue")
	installCRDs(ctx, t, advancedStatefulSetCRD, "statefulsets.apps.kruise.io")
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	status := func(name, st string) {
		kubectl(ctx, t, "", "patch", "statefulsets.apps.kruise.io", name, "-n", ns, "--subresource=status", "--type=merge", "-p", `{"status":`+st+`}`)
	}

	// Degraded (apps.kruise.io/StatefulSet/testdata/degraded.yaml's status):
	// kstatus reads it as Current; the gate fails, quoting the check.
	bad := write("bad.yaml", advancedStatefulSet("bad"))
	kubectl(ctx, t, "", "apply", "-n", ns, "-f", bad)
	status("bad", `{"observedGeneration":1,"replicas":2,"updatedReadyReplicas":1,"updatedAvailableReplicas":1}`)
	if code, out, errOut, _ := gate(ctx, "--manifests", bad, "-n", ns); code != 1 || !strings.Contains(out, "Some replicas are not ready or available") ||
		!strings.Contains(out, "kstatus reads it as Current") {
		t.Errorf("--manifests of a Degraded Advanced StatefulSet: exit %d, want 1 quoting the check\n%s%s", code, out, errOut)
	}

	// The team's own check (kept in their argocd-cm) accepts one
	// available replica: the same object passes.
	cm := write("argocd-cm.yaml", `apiVersion: v1
kind: ConfigMap
metadata: {name: argocd-cm, namespace: argocd}
data:
  resource.customizations.health.apps.kruise.io_StatefulSet: |
    hs = {status = "Progressing", message = "waiting"}
    if obj.status ~= nil and obj.status.updatedAvailableReplicas ~= nil and obj.status.updatedAvailableReplicas >= 1 then
      hs.status = "Healthy"
      hs.message = "one replica serves"
    end
    return hs
`)
	if code, out, errOut, _ := gate(ctx, "--manifests", bad, "-n", ns, "--health-checks", cm); code != 0 {
		t.Errorf("--health-checks: exit %d, want 0\n%s%s", code, out, errOut)
	}

	// Its pods, made by the Advanced StatefulSet itself, cannot pull: the owned link
	// names the pods' cause, and the status's next step points at it.
	uid := strings.TrimSpace(kubectl(ctx, t, "", "get", "statefulsets.apps.kruise.io", "bad", "-n", ns, "-o", "jsonpath={.metadata.uid}"))
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "bad-x7k2p", Labels: map[string]string{"app": "bad"},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps.kruise.io/v1beta1", Kind: "StatefulSet", Name: "bad", UID: types.UID(uid), Controller: ptr.To(true)}}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "registry.lab.internal/web:missing"}}}}
	if _, err := client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var out []byte
	poll(ctx, t, "statefulset.apps.kruise.io/bad's owned pod broken with ImageNotFound", func() bool {
		var code int
		var err error
		_, out, code, err = diagnose(ctx, "statefulset.apps.kruise.io/bad", "-n", ns)
		return err == nil && code == 1 && strings.Contains(string(out), `"cause": "ImageNotFound"`)
	})
	if !strings.Contains(string(out), `"id": "owned"`) || !strings.Contains(string(out), "pod/bad-x7k2p") {
		t.Errorf("statefulset.apps.kruise.io/bad: the owned link does not name the pod\n%s", out)
	}

	// Progressing (its generation not observed yet): --wait waits, and
	// passes once the status turns healthy.
	slow := write("slow.yaml", advancedStatefulSet("slow"))
	kubectl(ctx, t, "", "apply", "-n", ns, "-f", slow)
	status("slow", `{"observedGeneration":0,"replicas":0}`)
	if code, out, errOut, _ := gate(ctx, "--manifests", slow, "-n", ns); code != 2 {
		t.Fatalf("--manifests of a Progressing Advanced StatefulSet: exit %d, want 2\n%s%s", code, out, errOut)
	}
	type result struct {
		code     int
		out, err string
		took     time.Duration
	}
	done := make(chan result, 1)
	go func() {
		code, out, errOut, took := gate(ctx, "--manifests", slow, "-n", ns, "--wait", "--timeout", "90s")
		done <- result{code, out, errOut, took}
	}()
	time.Sleep(5 * time.Second)
	select {
	case r := <-done:
		t.Fatalf("--wait ended before the status turned healthy: exit %d\n%s%s", r.code, r.out, r.err)
	default:
	}
	status("slow", `{"observedGeneration":1,"replicas":2,"updatedReadyReplicas":2,"updatedAvailableReplicas":2}`)
	if r := <-done; r.code != 0 || r.took > 60*time.Second {
		t.Errorf("--wait after the status turned healthy: exit %d after %s, want 0 at once\n%s%s", r.code, r.took.Round(time.Second), r.out, r.err)
	}
}

// TestCloneSetLive runs the real binary on an OpenKruise CloneSet, a kind
// with its own chain read through the dynamic client (the lab serves its
// CRD and runs no OpenKruise: the test makes its pod and writes its
// status as the CloneSet controller would): a pod it controls that cannot
// pull breaks it at containers with ImageNotFound, as a Deployment's
// would, and that pod named walks the CloneSet.
func TestCloneSetLive(t *testing.T) {
	alone(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ns := createNamespace(ctx, t, "e2e-cloneset")
	installCRDs(ctx, t, cloneSetCRD, "clonesets.apps.kruise.io")
	kubectl(ctx, t, "apiVersion: apps.kruise.io/v1alpha1\nkind: CloneSet\nmetadata: {name: web}\n"+
		"spec:\n  replicas: 1\n  selector: {matchLabels: {app: web}}\n"+
		"  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: registry.lab.internal/web:missing}]}\n",
		"apply", "-n", ns, "-f", "-")
	kubectl(ctx, t, "", "patch", "clonesets.apps.kruise.io", "web", "-n", ns, "--subresource=status", "--type=merge",
		"-p", `{"status":{"observedGeneration":1,"replicas":1,"updatedReplicas":1,"readyReplicas":0,"availableReplicas":0}}`)
	uid := strings.TrimSpace(kubectl(ctx, t, "", "get", "clonesets.apps.kruise.io", "web", "-n", ns, "-o", "jsonpath={.metadata.uid}"))
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-x7k2p", Labels: map[string]string{"app": "web"},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps.kruise.io/v1alpha1", Kind: "CloneSet", Name: "web", UID: types.UID(uid), Controller: ptr.To(true)}}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "registry.lab.internal/web:missing"}}}}
	if _, err := client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"clone/web", "pod/web-x7k2p"} {
		var (
			v   verdict
			out []byte
		)
		poll(ctx, t, target+" broken at containers with ImageNotFound", func() bool {
			var code int
			var err error
			v, out, code, err = diagnose(ctx, target, "-n", ns)
			return err == nil && code == 1 && v.Link == chain.LinkContainers && v.Cause == "ImageNotFound"
		})
		if !strings.Contains(string(out), `"kind": "CloneSet"`) {
			t.Errorf("%s: not the CloneSet's chain\n%s", target, out)
		}
	}
}

// TestReleaseGate runs the real binary on the release a new user meets:
// a Certificate no controller touches (the lab serves cert-manager's CRDs
// and runs no cert-manager), naming an Issuer that does not exist, is
// progressing within the grace and broken after it, the Issuer named; a release with a Deployment that cannot pull and a claim that
// stays Pending fails --manifests --wait at the Deployment's terminal
// cause, not at the timeout the claim would hold it to.
func TestReleaseGate(t *testing.T) {
	alone(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	ns := createNamespace(ctx, t, "e2e-release-gate")
	kubectl(ctx, t, "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: web-tls\nspec:\n  secretName: web-tls\n  dnsNames: [web.example.com]\n  issuerRef: {name: letsencrypt-prod}\n", "apply", "-n", ns, "-f", "-")
	if v, out, code, err := diagnose(ctx, "certificate/web-tls", "-n", ns, "--grace", "1h"); err != nil || code != 2 || v.Cause != "CertificateIssuerNotFound" {
		t.Errorf("within the grace: exit %d, verdict %+v (%v); want 2, CertificateIssuerNotFound progressing\n%s", code, v, err, out)
	}
	var out []byte
	poll(ctx, t, "cert/web-tls broken past a 2s grace", func() bool {
		v, o, code, err := diagnose(ctx, "cert/web-tls", "-n", ns, "--grace", "2s")
		out = o
		return err == nil && code == 1 && v.Cause == "CertificateIssuerNotFound"
	})
	if !strings.Contains(string(out), `Issuer \"letsencrypt-prod\"`) {
		t.Errorf("past the grace: the Issuer is not named\n%s", out)
	}

	// A Deployment whose image does not exist beside a claim of the
	// default class (WaitForFirstConsumer) that no pod mounts, Pending
	// for ever.
	release := filepath.Join(t.TempDir(), "release.yaml")
	manifests := `apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  replicas: 1
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers: [{name: api, image: "registry.lab.internal/web:missing"}]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: cache}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Mi}}
`
	if err := os.WriteFile(release, []byte(manifests), 0o600); err != nil {
		t.Fatal(err)
	}
	kubectl(ctx, t, "", "apply", "-n", ns, "-f", release)
	code, gateOut, errOut, took := gate(ctx, "--manifests", release, "-n", ns, "--wait", "--timeout", "180s")
	if code != 1 || took > 90*time.Second || !strings.Contains(gateOut, "ImageNotFound") {
		t.Errorf("--manifests --wait: exit %d after %s, want 1 with ImageNotFound well before the 180s timeout\n%s%s", code, took.Round(time.Second), gateOut, errOut)
	}
}
