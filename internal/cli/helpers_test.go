package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-chain/kubectl-chain/internal/golden"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

// result is what one run of the command left behind.
type result struct {
	stdout, stderr string
	code           int
}

// kubeconfig writes a kubeconfig whose current context points at server in
// namespace ns and points KUBECONFIG at it, so no test reads the user's.
func kubeconfig(t *testing.T, server, ns string) string {
	t.Helper()
	cfg := `apiVersion: v1
kind: Config
clusters:
- name: test
  cluster:
    server: ` + server + `
contexts:
- name: test
  context:
    cluster: test
    user: test
    namespace: ` + ns + `
current-context: test
users:
- name: test
  user:
    token: test-token
`
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", path)
	return path
}

// runWith runs the real root command against a fake clientset holding objs.
func runWith(t *testing.T, client kube.Client, args ...string) result {
	t.Helper()
	streams, _, out, errOut := genericiooptions.NewTestIOStreams()
	o := NewOptions(streams)
	if client != nil {
		o.NewClient = func() (kube.Client, error) { return client, nil }
	}
	o.NewMapper = func() (meta.RESTMapper, error) { return testMapper(), nil }
	o.Now = func() time.Time { return now }
	err := ExecuteWith(context.Background(), o, args)
	return result{stdout: out.String(), stderr: errOut.String(), code: ExitCode(err)}
}

var now = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

// testMapper is what discovery would resolve on a cluster with
// cert-manager installed, besides some built-in kinds.
func testMapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	for _, k := range []struct {
		gvk        schema.GroupVersionKind
		namespaced bool
	}{
		{schema.GroupVersionKind{Group: "cert-manager.io", Version: "v1", Kind: "Certificate"}, true},
		{schema.GroupVersionKind{Group: "cert-manager.io", Version: "v1", Kind: "ClusterIssuer"}, false},
		{schema.GroupVersionKind{Version: "v1", Kind: "PersistentVolumeClaim"}, true},
		{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, true},
	} {
		scope := meta.RESTScopeRoot
		if k.namespaced {
			scope = meta.RESTScopeNamespace
		}
		m.Add(k.gvk, scope)
	}
	return m
}

// fixtureObjects reads a testdata snapshot into typed objects for a fake
// clientset.
func fixtureObjects(t *testing.T, name string) []runtime.Object {
	t.Helper()
	return golden.ListObjects(t, filepath.Join("..", "..", "testdata", "snapshots", name))
}

func fakeClient(t *testing.T, fixture string) *fake.Clientset {
	t.Helper()
	return fake.NewClientset(fixtureObjects(t, fixture)...)
}

func decodeJSON(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.NewDecoder(bytes.NewBufferString(s)).Decode(v); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, s)
	}
}
