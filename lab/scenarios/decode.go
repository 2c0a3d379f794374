package scenarios

import (
	"bufio"
	"bytes"
	"errors"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// kinds are client-go's kinds and the Gateway API's, whose CRDs the lab
// installs; codecs decode them.
var (
	kinds = func() *runtime.Scheme {
		s := runtime.NewScheme()
		if err := scheme.AddToScheme(s); err != nil {
			panic(err)
		}
		if err := gatewayv1.Install(s); err != nil {
			panic(err)
		}
		return s
	}()
	codecs = serializer.NewCodecFactory(kinds)
)

// Decode splits a YAML stream into typed objects (the client-go scheme's
// kinds and the Gateway API's); documents that hold nothing but comments are skipped.
func Decode(raw []byte) ([]runtime.Object, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
	var out []runtime.Object
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if commentsOnly(doc) {
			continue
		}
		obj, _, err := codecs.UniversalDeserializer().Decode(doc, nil, nil)
		if runtime.IsNotRegisteredError(err) {
			// A custom resource (the lab operator's Shop), created
			// through its API as JSON.
			u := &unstructured.Unstructured{}
			var body []byte
			if body, err = utilyaml.ToJSON(doc); err == nil {
				err = u.UnmarshalJSON(body)
			}
			obj = u
		}
		if err != nil {
			return nil, err
		}
		out = append(out, obj)
	}
}

// commentsOnly says a YAML document holds no content: blank lines and
// comments only.
func commentsOnly(doc []byte) bool {
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if l := bytes.TrimSpace(line); len(l) > 0 && l[0] != '#' {
			return false
		}
	}
	return true
}
