package health

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// writeConfigMap writes an argocd-cm ConfigMap with data to a temporary
// argocd-cm.yaml and returns its path.
func writeConfigMap(t testing.TB, data map[string]any) string {
	t.Helper()
	cm := map[string]any{
		"apiVersion": "v1",
		"kind":       "ConfigMap",
		"metadata":   map[string]any{"name": "argocd-cm", "namespace": "argocd"},
		"data":       data,
	}
	b, err := yaml.Marshal(cm)
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, t.TempDir(), "argocd-cm.yaml", string(b))
}

// writeFile writes content to dir/name, creating folders, and returns the
// path.
func writeFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// object builds an unstructured object of the given apiVersion and kind,
// with extra top-level fields.
func object(apiVersion, kind string, fields map[string]any) *unstructured.Unstructured {
	obj := map[string]any{
		"apiVersion": apiVersion,
		"kind":       kind,
		"metadata":   map[string]any{"name": "x", "namespace": "default"},
	}
	for k, v := range fields {
		obj[k] = v
	}
	return &unstructured.Unstructured{Object: obj}
}

// fixture returns the built-in fixture at inputPath.
func fixture(t testing.TB, inputPath string) Fixture {
	t.Helper()
	all, err := Fixtures()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range all {
		if f.InputPath == inputPath {
			return f
		}
	}
	t.Fatalf("no fixture %s", inputPath)
	return Fixture{}
}
