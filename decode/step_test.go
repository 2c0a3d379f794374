package decode

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestStepTemplates: every cause's next step names only fields the walk
// or its decoder fills, and its generic text (what `kubectl chain causes`
// prints) is its template with each field's bare name.
func TestStepTemplates(t *testing.T) {
	known := []Field{FieldNamespace, FieldName, FieldType, FieldPod, FieldNode, FieldService, FieldClass, FieldGateway, FieldSelector, FieldRun, "VOLUME"}
	for _, c := range Catalogue() {
		for _, f := range Unfilled(c.Step, nil) {
			if !slices.Contains(known, f) {
				t.Errorf("%s: the next step names the field %s, which nothing fills", c.ID, f)
			}
		}
		if c.NextStep != Render(c.Step, nil) || fieldRE.MatchString(c.NextStep) {
			t.Errorf("%s: generic step %q is not its template %q rendered", c.ID, c.NextStep, c.Step)
		}
	}
}

// TestFill: a field is replaced by name, never inside another word or
// field; jsonpath's braces are not fields.
func TestFill(t *testing.T) {
	tmpl := "kubectl describe {TYPE} {NAME} -n {NAMESPACE} -o jsonpath='{.spec.selector}'; {NAMESPACE}S {SERVICE}"
	got := Fill(tmpl, Fields{FieldName: "test-cert", FieldNamespace: "test-ns", FieldType: "certificates.cert-manager.io"})
	want := "kubectl describe certificates.cert-manager.io test-cert -n test-ns -o jsonpath='{.spec.selector}'; test-nsS {SERVICE}"
	if got != want {
		t.Errorf("Fill = %q, want %q", got, want)
	}
	if r := Render(got, nil); strings.Contains(r, "{SERVICE}") || !strings.HasSuffix(r, " SERVICE") {
		t.Errorf("Render leaves %q", r)
	}
	if u := Unfilled(tmpl, Fields{FieldName: "x"}); !slices.Equal(u, []Field{FieldType, FieldNamespace, FieldNamespace, FieldService}) {
		t.Errorf("Unfilled = %v", u)
	}
	if regexp.MustCompile(`\{[A-Z]+\}`).MatchString(Render(tmpl, nil)) {
		t.Error("Render leaves braces")
	}
}
