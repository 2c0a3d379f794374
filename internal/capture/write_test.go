package capture_test

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/internal/capture"
)

// TestEncodeDropsEnvOfObjectsKeptWhole: a capture drops the literal env
// values of the pod template an object kept as the API returned it holds
// at spec.template (an operator's resource), as it drops a Deployment's,
// unless --keep-env; references (valueFrom) stay, and the object read is
// not changed.
func TestEncodeDropsEnvOfObjectsKeptWhole(t *testing.T) {
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(`apiVersion: example.com/v1
kind: Widget
metadata: {name: web, namespace: shop}
spec:
  template:
    spec:
      initContainers: [{name: init, env: [{name: SEED, value: s3cr3t-seed}]}]
      containers: [{name: web, env: [{name: API_TOKEN, value: s3cr3t-token}, {name: DB, valueFrom: {secretKeyRef: {name: db, key: url}}}]}]
`), &obj.Object); err != nil {
		t.Fatal(err)
	}
	api := chain.APIResource{Group: "example.com", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true}
	s := &chain.Snapshot{Kind: "Widget", Namespace: "shop", Name: "web", Object: obj, API: &api, Now: time.Unix(0, 0)}
	for _, keep := range []bool{false, true} {
		data, err := capture.Encode(s, &capture.Related{}, keep)
		if err != nil {
			t.Fatal(err)
		}
		out := string(data)
		if kept := strings.Contains(out, "s3cr3t-token") && strings.Contains(out, "s3cr3t-seed"); kept != keep || !strings.Contains(out, "secretKeyRef") {
			t.Errorf("--keep-env %v: the values kept %v, or the reference lost:\n%s", keep, kept, out)
		}
	}
	if v, _, _ := unstructured.NestedSlice(obj.Object, "spec", "template", "spec", "containers"); !strings.Contains(toYAML(t, v), "s3cr3t-token") {
		t.Error("Encode changed the object it was given")
	}
}

func toYAML(t *testing.T, v any) string {
	t.Helper()
	b, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
