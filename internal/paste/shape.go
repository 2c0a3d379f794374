package paste

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// shape is the Go type a generic describe's field has, when the project
// knows its kind: it tells a list of one map from a map, an empty list
// from an empty map, a string that reads as a number from a number, and
// which json key a humanized label stands for ("HPA Replicas" is Argo's
// HPAReplicas). The zero shape is unknown: keys are unlabelled and
// values guessed.
type shape struct{ t reflect.Type }

// anyObject is the shape of a kind the project has no Go type for: its
// metadata is an ObjectMeta, the rest unknown.
type anyObject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// typeOfKind is the Go type of a kind: the Gateway API's, the project's
// Argo Rollout, a built-in kind's (client-go's scheme), else anyObject.
func typeOfKind(gvk schema.GroupVersionKind) shape {
	switch gvk.Group {
	case chain.GatewayGroup:
		switch gvk.Kind {
		case "HTTPRoute":
			return shape{reflect.TypeOf(gatewayv1.HTTPRoute{})}
		case "GRPCRoute":
			return shape{reflect.TypeOf(gatewayv1.GRPCRoute{})}
		case "TLSRoute":
			return shape{reflect.TypeOf(gatewayv1.TLSRoute{})}
		case "Gateway":
			return shape{reflect.TypeOf(gatewayv1.Gateway{})}
		case "GatewayClass":
			return shape{reflect.TypeOf(gatewayv1.GatewayClass{})}
		}
	case chain.RolloutGroup:
		if gvk.Kind == string(chain.KindRollout) {
			return shape{reflect.TypeOf(chain.Rollout{})}
		}
	}
	if obj, err := scheme.Scheme.New(gvk); err == nil {
		return shape{reflect.TypeOf(obj).Elem()}
	}
	return shape{reflect.TypeOf(anyObject{})}
}

var (
	marshalerType = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
	// opaque are types that hold any JSON: unknown shapes.
	opaque = map[reflect.Type]bool{
		reflect.TypeOf(runtime.RawExtension{}): true,
	}
)

// base is the type a shape stands for, without pointers; nil for
// unknown.
func (s shape) base() reflect.Type {
	t := s.t
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || opaque[t] || t.Kind() == reflect.Interface {
		return nil
	}
	return t
}

func (s shape) known() bool { return s.base() != nil }

// scalarType says values of t are printed as one value: strings,
// numbers, booleans, and types that marshal themselves as one (a time,
// a quantity, an int-or-string).
func scalarType(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Struct:
		return t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType)
	case reflect.Map, reflect.Slice, reflect.Array:
		return false
	}
	return true
}

func (s shape) isList() bool {
	t := s.base()
	return t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && t.Elem().Kind() != reflect.Uint8
}

func (s shape) isMap() bool {
	t := s.base()
	return t != nil && !scalarType(t) && (t.Kind() == reflect.Struct || t.Kind() == reflect.Map)
}

// elem is a list's items' shape.
func (s shape) elem() shape {
	if s.isList() {
		return shape{s.base().Elem()}
	}
	return shape{}
}

// field is the json key a label stands for in a map of this shape, and
// its value's shape.
func (s shape) field(label string) (string, shape) {
	t := s.base()
	if t == nil || scalarType(t) {
		return unlabel(label), shape{}
	}
	if t.Kind() == reflect.Map {
		return unlabel(label), shape{t.Elem()}
	}
	if t.Kind() != reflect.Struct {
		return unlabel(label), shape{}
	}
	want := strings.ToLower(strings.Join(strings.Fields(strings.ReplaceAll(label, " - ", "-")), ""))
	if name, ft, ok := jsonField(t, want); ok {
		return name, shape{ft}
	}
	return unlabel(label), shape{}
}

// jsonField finds the field of struct t whose json name is want, case
// aside, in t or the structs it inlines.
func jsonField(t reflect.Type, want string) (string, reflect.Type, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		inline := strings.Contains(opts, "inline") || f.Anonymous && name == ""
		if inline {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				if n, typ, ok := jsonField(ft, want); ok {
					return n, typ, true
				}
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if strings.ToLower(name) == want {
			return name, f.Type, true
		}
	}
	return "", nil, false
}

// scalar reads a value printed with %v as this shape's: a string field
// keeps "1" and "true" as strings.
func (s shape) scalar(v string) any {
	t := s.base()
	if t == nil {
		return guess(v)
	}
	switch t.Kind() {
	case reflect.String:
		return v
	case reflect.Bool:
		if b, err := strconv.ParseBool(v); err == nil {
			return b
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return n
		}
	case reflect.Float32, reflect.Float64:
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return f
		}
	case reflect.Struct:
		// A time, a quantity: their string; an int-or-string: a number
		// when it reads as one.
		return guessNumber(v)
	}
	return v
}

// guessNumber is an integer when v reads as one, else v.
func guessNumber(v string) any {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n
	}
	return v
}
