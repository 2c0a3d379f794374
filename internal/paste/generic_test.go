package paste

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// genericFiles are the fixtures of testdata/generic: kubectl 1.32's
// output of the lab's scenarios, and kubectl's generic describer's over
// the lab's captures (*-generated.txt, gen/main.go).
func genericFiles(t *testing.T) map[string]string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join("testdata", "generic", "*.txt"))
	if err != nil || len(names) == 0 {
		t.Fatal("no fixtures", err)
	}
	out := map[string]string{}
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(n)] = string(data)
	}
	return out
}

// genericBlocks are the blocks of text kubectl's generic describe
// printed.
func genericBlocks(text string) []block {
	lines := splitLines(text)
	var out []block
	for i := 0; i < len(lines); i++ {
		if !isDescribeStart(lines, i) {
			continue
		}
		b := readBlock(lines, i)
		if b.has("API Version") && b.has("Kind") {
			out = append(out, b)
		}
		i = max(b.end, i+1) - 1
	}
	return out
}

// treeOf is a block's tree lines (after its head, before its Events).
func treeOf(b block) []line {
	var lines []line
	for _, f := range b.fields {
		switch f.key {
		case "Name", "Namespace", "Labels", "Annotations", "Events":
			continue
		}
		lines = append(lines, f.at)
		lines = append(lines, f.body...)
	}
	return lines
}

// printed is one line as printUnstructuredContent writes it: its level,
// its key (spaces and case aside) and its value.
type printed struct {
	level      int
	key, value string
}

func (p printed) String() string { return fmt.Sprintf("%d %s=%q", p.level, p.key, p.value) }

// reprint prints an object as printUnstructuredContent does (keys
// sorted, a list's maps one after another, a list's scalars bare, maps
// and lists under their key one level deeper), keys lower-cased.
func reprint(level int, m map[string]any) []printed {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []printed
	for _, k := range keys {
		key := strings.ToLower(k)
		switch v := m[k].(type) {
		case map[string]any:
			out = append(out, printed{level, key, ""})
			out = append(out, reprint(level+1, v)...)
		case []any:
			out = append(out, printed{level, key, ""})
			for _, item := range v {
				if im, ok := item.(map[string]any); ok {
					out = append(out, reprint(level+1, im)...)
				} else {
					out = append(out, printed{level + 1, "", fmt.Sprint(item)})
				}
			}
		default:
			out = append(out, printed{level, key, fmt.Sprint(v)})
		}
	}
	return out
}

// asPrinted reads the text's tree lines as printed lines: labels with
// their spaces taken out and lower-cased.
func asPrinted(lines []line) []printed {
	var out []printed
	for _, tl := range treeLines(lines) {
		k := ""
		if tl.keyed {
			k = strings.ToLower(strings.Join(strings.Fields(strings.ReplaceAll(tl.key, " - ", "-")), ""))
		}
		out = append(out, printed{tl.indent / 2, k, tl.val})
	}
	return out
}

// TestGenericRoundTrip: each generic describe of the fixtures, read into
// an object and printed again as kubectl prints it, gives the same lines
// (keys, levels, values, the items of every list in their order).
func TestGenericRoundTrip(t *testing.T) {
	n := 0
	for name, text := range genericFiles(t) {
		for _, b := range genericBlocks(text) {
			n++
			lines := treeOf(b)
			gv, _ := schema.ParseGroupVersion(b.value("API Version"))
			obj := readTree(lines, typeOfKind(gv.WithKind(b.value("Kind"))))
			// The head's fields are printed by the head, not the tree.
			if meta, ok := obj["metadata"].(map[string]any); ok {
				for _, k := range []string{"name", "namespace", "labels", "annotations"} {
					delete(meta, k)
				}
			}
			if diff := cmp.Diff(asPrinted(lines), reprint(0, obj), cmp.Comparer(func(a, b printed) bool { return a == b })); diff != "" {
				t.Errorf("%s: %s %s read and printed again differs (-text +reprinted):\n%s", name, b.value("Kind"), b.value("Name"), diff)
			}
		}
	}
	if n < 10 {
		t.Errorf("%d generic describes in the fixtures", n)
	}
}

// pasted reads a fixture and returns the objects rebuilt from its
// generic describes, by kind/name.
func pasted(t *testing.T, file string) map[string]map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "generic", file))
	if err != nil {
		t.Fatal(err)
	}
	r := Parse(string(data))
	out := map[string]map[string]any{}
	for _, doc := range r.YAML {
		var m map[string]any
		if err := json.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatal(err)
		}
		meta := m["metadata"].(map[string]any)
		out[m["kind"].(string)+"/"+meta["name"].(string)] = m
	}
	if r.Generic != len(r.YAML) {
		t.Errorf("%s: %d generic of %d YAML", file, r.Generic, len(r.YAML))
	}
	return out
}

// at follows a path of map keys and list indexes.
func at(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

// TestGenericFields: the fields the walks read come back with their
// json keys and types: a list of one map stays a list where the Go type
// says so, an empty value is "", a number printed for a string field
// stays a string, Argo's HPAReplicas keeps its case, a step's empty
// pause is {}.
func TestGenericFields(t *testing.T) {
	route := pasted(t, "httproute-backend-missing.txt")["HTTPRoute/web"]
	ro := pasted(t, "rollout-paused-step.txt")["Rollout/web"]
	aborted := pasted(t, "rollout-analysis-aborted.txt")["Rollout/web"]
	shop := pasted(t, "operator-claim-refused.txt")["Shop/web"]
	certs := pasted(t, "certificate-issuer-missing-certificates-generated.txt")
	for _, c := range []struct {
		obj  map[string]any
		path []any
		want any
	}{
		{route, []any{"apiVersion"}, "gateway.networking.k8s.io/v1"},
		{route, []any{"metadata", "uid"}, "paste:HTTPRoute/sc-httproute-backend-missing/web"},
		{route, []any{"metadata", "generation"}, float64(1)},
		{route, []any{"metadata", "resourceVersion"}, "2276"},
		{route, []any{"spec", "hostnames", 0}, "web.lab.internal"},
		{route, []any{"spec", "parentRefs", 0, "name"}, "web"},
		{route, []any{"spec", "rules", 0, "backendRefs", 0, "group"}, ""},
		{route, []any{"spec", "rules", 0, "backendRefs", 0, "port"}, float64(80)},
		{route, []any{"spec", "rules", 0, "matches", 0, "path", "value"}, "/"},
		{route, []any{"status", "parents", 0, "controllerName"}, "traefik.io/gateway-controller"},
		{route, []any{"status", "parents", 0, "conditions", 1, "reason"}, "BackendNotFound"},
		{route, []any{"status", "parents", 0, "conditions", 0, "message"}, ""},
		{ro, []any{"status", "HPAReplicas"}, float64(2)},
		{ro, []any{"status", "observedGeneration"}, "4"},
		{ro, []any{"status", "controllerPause"}, true},
		{ro, []any{"status", "blueGreen"}, map[string]any{}},
		{ro, []any{"status", "pauseConditions", 0, "reason"}, "CanaryPauseStep"},
		{ro, []any{"status", "conditions", 4, "type"}, "Paused"},
		{ro, []any{"spec", "strategy", "canary", "steps", 0, "setWeight"}, float64(50)},
		{ro, []any{"spec", "strategy", "canary", "steps", 1, "pause"}, map[string]any{}},
		{ro, []any{"spec", "selector", "matchLabels", "app"}, "web"},
		{ro, []any{"spec", "template", "metadata", "annotations", "lab.kubectl-chain.io/revision"}, "2"},
		{ro, []any{"spec", "template", "spec", "containers", 0, "name"}, "web"},
		{ro, []any{"metadata", "annotations", "rollout.argoproj.io/revision"}, "2"},
		{aborted, []any{"spec", "strategy", "canary", "steps", 1, "analysis", "templates", 0, "templateName"}, "smoke"},
		{aborted, []any{"status", "abort"}, true},
		{shop, []any{"spec", "dbStorage"}, "5Gi"},
		{shop, []any{"spec", "webReplicas"}, float64(1)},
		{shop, []any{"status", "conditions", 1, "type"}, "Reconciling"},
		{shop, []any{"metadata", "labels", "lab.kubectl-chain.io/scenario"}, "operator-claim-refused"},
		{certs["Certificate/web-tls"], []any{"spec", "dnsNames", 0}, "web.example.com"},
		{certs["Certificate/web-tls"], []any{"spec", "issuerRef", "name"}, "letsencrypt-prod"},
		{certs["Certificate/web-tls"], []any{"status", "conditions", 1, "type"}, "Ready"},
		{certs["CertificateRequest/web-tls-1"], []any{"metadata", "ownerReferences", 0, "uid"}, "paste:Certificate/sc-certificate-issuer-missing/web-tls"},
		{certs["CertificateRequest/web-tls-1"], []any{"metadata", "ownerReferences", 0, "blockOwnerDeletion"}, true},
		{certs["CertificateRequest/web-tls-1"], []any{"metadata", "annotations", "cert-manager.io/certificate-name"}, "web-tls"},
	} {
		if got := at(c.obj, c.path...); !cmp.Equal(got, c.want) {
			t.Errorf("%v %v: %#v, want %#v", at(c.obj, "kind"), c.path, got, c.want)
		}
	}
	if n := len(at(ro, "status", "conditions").([]any)); n != 5 {
		t.Errorf("the Rollout's conditions: %d, want 5", n)
	}
	if n := len(at(ro, "spec", "strategy", "canary", "steps").([]any)); n != 2 {
		t.Errorf("the Rollout's steps: %d, want 2", n)
	}
}

// TestUnlabel inverts smartLabelFor for keys no Go type names.
func TestUnlabel(t *testing.T) {
	for label, want := range map[string]string{
		"Last Transition Time":          "lastTransitionTime",
		"API Version":                   "apiVersion",
		"UID":                           "uid",
		"Stable RS":                     "stableRS",
		"HPA Replicas":                  "HPAReplicas",
		"URL":                           "url",
		"App":                           "app",
		"Db Replicas":                   "dbReplicas",
		"X - Request - Id":              "x-request-id",
		"lab.kubectl-chain.io/revision": "lab.kubectl-chain.io/revision",
		"app.kubernetes.io/name":        "app.kubernetes.io/name",
	} {
		if got := unlabel(label); got != want {
			t.Errorf("unlabel(%q) = %q, want %q", label, got, want)
		}
	}
}

// TestGenericEventsAndOwners: a generic describe's events are the
// object's, and a ReplicaSet it controls is not named as missing its
// owner.
func TestGenericEventsAndOwners(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "generic", "rollout-analysis-aborted.txt"))
	if err != nil {
		t.Fatal(err)
	}
	r := Parse(string(data))
	n := 0
	for _, e := range r.Events {
		if e.InvolvedObject.Kind == "Rollout" && e.InvolvedObject.Name == "web" {
			n++
			if e.InvolvedObject.UID != UID("Rollout", "sc-rollout-analysis-aborted", "web") || e.InvolvedObject.APIVersion != "argoproj.io/v1alpha1" {
				t.Errorf("event's object %+v", e.InvolvedObject)
			}
		}
	}
	if n != 17 {
		t.Errorf("%d events of rollout/web, want 17", n)
	}
	for _, note := range r.Notes {
		if strings.Contains(note, "rollout/web, which is not in the paste") {
			t.Errorf("note %q", note)
		}
	}
	if !strings.Contains(strings.Join(r.Forms, "\n"), "kubectl describe rollout sc-rollout-analysis-aborted/web") {
		t.Errorf("forms %q", r.Forms)
	}
}

// TestGenericNow: the times a generic describe prints that were past when
// kubectl ran (conditions' transitions, a pause's start) count toward the
// paste's moment; a Certificate's notAfter, ahead, does not.
func TestGenericNow(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "generic", "rollout-paused-step.txt"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	start := strings.Index(text, "Name:")
	head := text[start : start+strings.Index(text[start:], "\n\n\n")]
	if got := Parse(head).Now.Format(time.RFC3339); got != "2026-12-06T20:58:07Z" {
		t.Errorf("now %s, want the Rollout's last transition 2026-12-06T20:58:07Z", got)
	}
	cert := "Name:         web-tls\nNamespace:    shop\nLabels:       <none>\nAnnotations:  <none>\nAPI Version:  cert-manager.io/v1\nKind:         Certificate\n" +
		"Metadata:\n  Creation Timestamp:  2026-12-04T22:31:53Z\nStatus:\n  Not After:  2027-03-04T22:31:53Z\nEvents:  <none>\n"
	if got := Parse(cert).Now.Format(time.RFC3339); got != "2026-12-04T22:31:53Z" {
		t.Errorf("now %s, want the creation 2026-12-04T22:31:53Z", got)
	}
}

// TestGenericPadded: a copy that pads every line with blanks (a terminal
// UI's) reads as the text does, and a message kubectl printed on several
// lines is one value.
func TestGenericPadded(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "generic", "httproute-backend-missing.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var padded strings.Builder
	for _, l := range strings.Split(string(data), "\n") {
		padded.WriteString(l + strings.Repeat(" ", max(0, 120-len(l))) + "\n")
	}
	if a, b := Parse(string(data)).YAML, Parse(padded.String()).YAML; len(a) != 1 || !cmp.Equal(a, b) {
		t.Errorf("padded:\n%s\nas printed:\n%s", b, a)
	}
	text := "Name:         web\nNamespace:    shop\nLabels:       <none>\nAnnotations:  <none>\nAPI Version:  example.com/v1\nKind:         Widget\n" +
		"Status:\n  Conditions:\n    Message:  first line\nsecond line\n    Type:     Ready\n  Hosts:\n    a.example.com\n    b.example.com\nEvents:  <none>\n"
	got := map[string]any{}
	if r := Parse(text); len(r.YAML) != 1 || json.Unmarshal([]byte(r.YAML[0]), &got) != nil {
		t.Fatalf("%+v", r)
	}
	if m := at(got, "status", "conditions", 0, "message"); m != "first line\nsecond line" {
		t.Errorf("message %q", m)
	}
	if h := at(got, "status", "hosts"); !cmp.Equal(h, []any{"a.example.com", "b.example.com"}) {
		t.Errorf("hosts %v", h)
	}
}
