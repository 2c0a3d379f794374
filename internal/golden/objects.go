package golden

import (
	"encoding/json"
	"os"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"
)

// ListObjects reads a kind: List file (what kubectl get -o yaml prints,
// the shape of testdata/snapshots) into typed objects for a fake
// clientset. Two events of one name (the copies two event APIs keep) get
// distinct names: a clientset holds one object a name.
func ListObjects(t testing.TB, path string) []runtime.Object {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(js, &list); err != nil {
		t.Fatal(err)
	}
	var objs []runtime.Object
	names := map[string]bool{}
	for _, item := range list.Items {
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(item, nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if e, ok := obj.(*corev1.Event); ok {
			for names[e.Namespace+"/"+e.Name] {
				e.Name += "-"
			}
			names[e.Namespace+"/"+e.Name] = true
		}
		objs = append(objs, obj)
	}
	return objs
}
