package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// TestCaptureRoundTrip: what capture writes, -f reads back to the same
// verdict and the same report the live walk gives, at the capture's time.
func TestCaptureRoundTrip(t *testing.T) {
	for _, fixture := range []string{"image-not-found.yaml", "quota-exceeded.yaml", "insufficient-cpu.yaml", "healthy.yaml"} {
		t.Run(fixture, func(t *testing.T) {
			kubeconfig(t, "https://127.0.0.1:1", "shop")
			file := filepath.Join(t.TempDir(), "web.yaml")
			r := runFixture(t, fixture, nil, "capture", "deploy/web", "--to", file)
			if r.code != ExitHealthy || !strings.Contains(r.stderr, "captured deployment shop/web") {
				t.Fatalf("capture: code %d, stderr %q", r.code, r.stderr)
			}
			live := runFixture(t, fixture, nil, "deploy/web", "-o", "json")
			offline := runWith(t, nil, "deploy/web", "-f", file, "-o", "json")
			var a, b chain.Report
			decodeJSON(t, live.stdout, &a)
			decodeJSON(t, offline.stdout, &b)
			a.Requests = 0 // offline costs nothing
			if diff := cmp.Diff(a, b); diff != "" || live.code != offline.code {
				t.Errorf("live %d vs offline %d (-live +offline):\n%s", live.code, offline.code, diff)
			}
		})
	}
}

func TestCaptureScrubsAndKeeps(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "shop")
	c := fakeClient(t, "healthy.yaml")
	r := runFixture(t, "healthy.yaml", c, "capture", "deploy/web")
	for _, want := range []string{"# kubectl-chain capture at ", "# left out: managedFields", "kind: List", "kind: Deployment", "kind: Event"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("capture lacks %q", want)
		}
	}
	if strings.Contains(r.stdout, "managedFields:") || strings.Contains(r.stdout, "kubectl.kubernetes.io/last-applied-configuration") {
		t.Errorf("capture keeps what it must drop:\n%s", r.stdout)
	}
	existing := filepath.Join(t.TempDir(), "keep.yaml")
	os.WriteFile(existing, []byte("mine"), 0o600)
	r = runFixture(t, "healthy.yaml", nil, "capture", "deploy/web", "--to", existing)
	if data, _ := os.ReadFile(existing); r.code != ExitUsage || string(data) != "mine" {
		t.Errorf("code %d, file now %q: an existing file must not be replaced", r.code, data)
	}
}

// TestCaptureRelated: the quotas and the nodes the evidence names travel
// with the capture; what may not be read is said in its head.
func TestCaptureRelated(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "shop")
	objs := fixtureObjects(t, "healthy.yaml")
	var node string
	for _, o := range objs {
		if p, ok := o.(*corev1.Pod); ok && p.Spec.NodeName != "" {
			node = p.Spec.NodeName
		}
	}
	objs = append(objs,
		&corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "compute"}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: node}})
	c := fake.NewClientset(objs...)
	c.PrependReactor("get", "nodes", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.(k8stesting.GetAction).GetName() == node {
			return false, nil, nil
		}
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "nodes"}, "", errString("RBAC"))
	})
	r := runFixture(t, "healthy.yaml", c, "capture", "deploy/web")
	for _, want := range []string{"kind: ResourceQuota", "kind: Node", "name: " + node, "could not be read"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("capture lacks %q", want)
		}
	}
}

// TestCaptureEveryKindReadsBack: a capture of any kind (a pod, a claim, a
// custom resource) is read back with -f alone, its "# target:" line
// naming what to walk, to the live walk's verdict and report. (The lab's
// e2e does the same for every scenario's kind on a real cluster.)
func TestCaptureEveryKindReadsBack(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "shop")
	certs := schema.GroupVersionResource{Group: "cert-manager.io", Version: "v1", Resource: "certificates"}
	kinds := map[schema.GroupVersionResource]string{certs: "CertificateList"}
	listedKinds(kinds)
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), kinds)
	if err := dyn.Tracker().Create(certs, readyObject("cert-manager.io/v1", "Certificate", "shop", "web-tls"), "shop"); err != nil {
		t.Fatal(err)
	}
	objs := fixtureObjects(t, "image-not-found.yaml")
	var pod string
	for _, o := range objs {
		if p, ok := o.(*corev1.Pod); ok && pod == "" {
			pod = p.Name
		}
	}
	// A claim, read (as any kind but the walked ones) through the dynamic
	// client.
	claim := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "data", CreationTimestamp: metav1.NewTime(now.Add(-time.Minute))},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound}}
	pvcs := schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumeclaims"}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(claim)
	if err != nil {
		t.Fatal(err)
	}
	uc := &unstructured.Unstructured{Object: u}
	uc.SetAPIVersion("v1")
	uc.SetKind("PersistentVolumeClaim")
	if err := dyn.Tracker().Create(pvcs, uc, "shop"); err != nil {
		t.Fatal(err)
	}
	c := dynamicFake{Clientset: fake.NewClientset(objs...), dyn: dyn}
	for _, target := range []string{"pod/" + pod, "persistentvolumeclaim/data", "certificate/web-tls"} {
		t.Run(target, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "capture.yaml")
			if r := runWith(t, c, "capture", target, "--to", file); r.code != ExitHealthy {
				t.Fatalf("capture %s: exit %d\n%s", target, r.code, r.stderr)
			}
			live := runWith(t, c, target, "-o", "json")
			if live.stdout == "" {
				t.Fatalf("live: exit %d\n%s", live.code, live.stderr)
			}
			offline := runWith(t, nil, "-f", file, "-o", "json")
			if offline.stdout == "" {
				t.Fatalf("-f alone: exit %d\n%s", offline.code, offline.stderr)
			}
			var a, b chain.Report
			decodeJSON(t, live.stdout, &a)
			decodeJSON(t, offline.stdout, &b)
			if a.Verdict != b.Verdict || a.Kind != b.Kind || a.Name != b.Name || live.code != offline.code {
				t.Errorf("live %s %+v (exit %d), from the capture alone %s %+v (exit %d)\n%s", a.Kind, a.Verdict, live.code, b.Kind, b.Verdict, offline.code, offline.stderr)
			}
		})
	}
}
