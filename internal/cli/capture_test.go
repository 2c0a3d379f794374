package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
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
