// Command gen prints what kubectl's describers (k8s.io/kubectl v0.37.2
// pkg/describe: DescriberFor for a kind with a describer of its own,
// GenericDescriberFor, the code kubectl 1.37 runs for any other) print for
// the objects of the given kinds in a YAML file, each served by a stub API
// server (no events). It made the *-generated.txt fixtures beside it from the lab's
// captures (testdata/captures at the repository's root):
//
//	cd internal/paste/testdata/generic/gen
//	go run . ../../../../../testdata/captures/httproute-class-no-controller.yaml Gateway,GatewayClass
package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"k8s.io/kubectl/pkg/describe"
)

func main() {
	f, _ := os.Open(os.Args[1])
	kinds := map[string]bool{}
	for _, k := range strings.Split(os.Args[2], ",") {
		kinds[k] = true
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			break
		}
		var objs []map[string]any
		if items, ok := m["items"].([]any); ok {
			for _, it := range items {
				objs = append(objs, it.(map[string]any))
			}
		} else {
			objs = append(objs, m)
		}
		for _, o := range objs {
			u := &unstructured.Unstructured{Object: o}
			if !kinds[u.GetKind()] {
				continue
			}
			js, _ := json.Marshal(o)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if strings.Contains(r.URL.Path, "/events") {
					w.Write([]byte(`{"apiVersion":"v1","kind":"EventList","items":[]}`))
					return
				}
				w.Write(js)
			}))
			gv, _ := schema.ParseGroupVersion(u.GetAPIVersion())
			scope := meta.RESTScopeNamespace
			if u.GetNamespace() == "" {
				scope = meta.RESTScopeRoot
			}
			mapping := &meta.RESTMapping{Resource: gv.WithResource(strings.ToLower(u.GetKind()) + "s"), GroupVersionKind: gv.WithKind(u.GetKind()), Scope: scope}
			// A kind with a describer of its own (IngressClass, Pod) is
			// described by it, as kubectl does; any other generically.
			d, ok := describe.DescriberFor(mapping.GroupVersionKind.GroupKind(), &rest.Config{Host: srv.URL})
			if !ok {
				d, _ = describe.GenericDescriberFor(mapping, &rest.Config{Host: srv.URL})
			}
			out, err := d.Describe(u.GetNamespace(), u.GetName(), describe.DescriberSettings{ShowEvents: true, ChunkSize: 500})
			srv.Close()
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				continue
			}
			fmt.Print(out)
			fmt.Print("\n\n")
		}
	}
}
