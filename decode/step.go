package decode

import (
	"regexp"
	"strings"
)

// Field is a named field of a next step's template, written {FIELD}: what
// the decoder cannot know and the walk fills in (the pod, its node, the
// namespace, the object walked, a Service, a class). A step names a field
// by its braces only, so a value can never be replaced inside another
// (the old NAME-inside-NAMESPACE bug), and a field left unfilled is found
// by name.
type Field string

// The fields the walk fills. Any other capital word of a step ("kubectl
// get secret NAME", "KEY=VALUE") is the user's to fill and has no braces.
const (
	FieldNamespace Field = "NAMESPACE"
	// FieldName is the object the step is about: the walked one, unless
	// the step's own fields name another (an AnalysisRun, a producer).
	FieldName     Field = "NAME"
	FieldType     Field = "TYPE"
	FieldPod      Field = "POD"
	FieldNode     Field = "NODE"
	FieldService  Field = "SERVICE"
	FieldClass    Field = "CLASS"
	FieldGateway  Field = "GATEWAY"
	FieldSelector Field = "SELECTOR"
	FieldRun      Field = "RUN"
)

// Fields are the values of a step's fields.
type Fields map[Field]string

// fieldRE is one {FIELD} of a template.
var fieldRE = regexp.MustCompile(`\{([A-Z]+)\}`)

// Fill puts the values f has into template's fields and leaves the others
// as they are, for the walk to fill later.
func Fill(template string, f Fields) string {
	if len(f) == 0 || !strings.Contains(template, "{") {
		return template
	}
	return fieldRE.ReplaceAllStringFunc(template, func(m string) string {
		if v, ok := f[Field(m[1:len(m)-1])]; ok && v != "" {
			return v
		}
		return m
	})
}

// Render is the step as it is printed: template with f's values in its
// fields, and each field without one as its bare name ("kubectl logs
// POD"), as the catalogue prints the generic step.
func Render(template string, f Fields) string {
	return fieldRE.ReplaceAllString(Fill(template, f), "$1")
}

// Unfilled are the fields of template that f has no value for.
func Unfilled(template string, f Fields) []Field {
	var out []Field
	for _, m := range fieldRE.FindAllStringSubmatch(Fill(template, f), -1) {
		out = append(out, Field(m[1]))
	}
	return out
}
