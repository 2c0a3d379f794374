package paste

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// describeGeneric rebuilds an object from kubectl's generic describe,
// the one kubectl prints for a kind it has no describer of its own for
// (custom resources: an HTTPRoute, an Argo Rollout, a cert-manager
// Certificate, an operator's kind; k8s.io/kubectl pkg/describe
// genericDescriber). Its head is Name, Namespace, Labels and
// Annotations as every describe's; then the object's other fields
// (API Version, Kind, Metadata, Spec, Status, ...) as a tree whose keys
// are humanized (smartLabelFor) and whose lists are printed without
// their dashes (printUnstructuredContent); then Events. The tree is read
// back (readTree) with the kind's Go type where the project knows it,
// and the object is handed on as YAML in a paste is (Result.YAML), with
// the paste's UIDs: its events and the objects it owns (Controlled By)
// are tied to it as to any described object.
func (p *parser) describeGeneric(b block) {
	apiVersion, kind := b.value("API Version"), b.value("Kind")
	ns, name := b.value("Namespace"), b.value("Name")
	var lines []line
	for _, f := range b.fields {
		switch f.key {
		case "Name", "Namespace", "Labels", "Annotations", "Events":
			continue
		}
		lines = append(lines, f.at)
		lines = append(lines, f.body...)
	}
	gv, _ := schema.ParseGroupVersion(apiVersion)
	obj := readTree(lines, typeOfKind(gv.WithKind(kind)))
	obj["apiVersion"], obj["kind"] = apiVersion, kind
	meta, _ := obj["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	meta["name"] = name
	if ns != "" {
		meta["namespace"] = ns
	}
	head := p.objectMeta(b, kind)
	if head.Labels != nil {
		meta["labels"] = anyMap(head.Labels)
	}
	if head.Annotations != nil {
		meta["annotations"] = anyMap(head.Annotations)
	}
	// The paste's UIDs: the events under the describe and the owner
	// lines of what it owns name it by them; the printed UID is dropped.
	meta["uid"] = string(UID(kind, ns, name))
	if refs, ok := meta["ownerReferences"].([]any); ok {
		for _, r := range refs {
			if ref, ok := r.(map[string]any); ok {
				k, _ := ref["kind"].(string)
				n, _ := ref["name"].(string)
				ref["uid"] = string(UID(k, ns, n))
			}
		}
	}
	p.pastTimes(obj)
	obj["metadata"] = meta
	js, err := json.Marshal(obj)
	if err != nil {
		p.note(fmt.Sprintf("%s %s: the kubectl describe could not be read back: %v", strings.ToLower(kind), key(ns, name), err))
		return
	}
	p.res.YAML = append(p.res.YAML, string(js))
	p.res.Generic++
	p.generic = append(p.generic, metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: apiVersion, Kind: kind},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}})
	p.read(b, kind, metav1.ObjectMeta{Namespace: ns, Name: name})
}

// pastTimeRe are the keys of times that were past when kubectl ran (a
// creation, a condition's transition, a start, an abort), which the
// paste's moment is at least: not a certificate's notAfter or a renewal
// time, which may be ahead.
var pastTimeRe = regexp.MustCompile(`^(?:creationTimestamp|last[A-Za-z]*Time|startTime|completionTime|abortedAt)$`)

// pastTimes records the times of obj that were past when kubectl ran.
func (p *parser) pastTimes(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && pastTimeRe.MatchString(k) {
				p.absolute(s)
				continue
			}
			p.pastTimes(x)
		}
	case []any:
		for _, x := range v {
			p.pastTimes(x)
		}
	}
}

func anyMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// treeLine is one line of a generic describe's tree: a key and its
// value, a section's key alone, or a bare value of a list.
type treeLine struct {
	indent   int
	key, val string
	keyed    bool // "Key:" or "Key:  value"; else a bare value
	// empty says a keyed line printed no value: a section (its fields,
	// or nothing when it is empty, follow deeper), or an empty string
	// when the line is padded.
	empty, padded bool
}

// rawKeyRe is a key smartLabelFor printed as it is (it holds other
// characters than letters and '-': "lab.kubectl-chain.io/revision",
// "app.kubernetes.io/name"), which keyRe does not take.
var rawKeyRe = regexp.MustCompile(`^(\S+?):(?:[ \t]+(.*))?$`)

// treeLines reads the lines of a tree, joining a value kubectl printed
// on several lines (a message with newlines) to its key.
func treeLines(lines []line) []treeLine {
	var out []treeLine
	for _, l := range lines {
		if l.text == "" {
			continue
		}
		t := treeLine{indent: l.indent, padded: l.padded}
		switch {
		case l.key != "":
			t.key, t.val, t.keyed = l.key, l.val, true
		default:
			if m := rawKeyRe.FindStringSubmatch(l.text); m != nil {
				t.key, t.val, t.keyed = m[1], strings.TrimSpace(m[2]), true
			}
		}
		if t.keyed {
			t.empty = t.val == ""
		} else {
			t.val = l.text
		}
		// A line that is no key after a key's value continues it; after
		// a section's key or another bare value it is a list's value.
		if n := len(out); !t.keyed && n > 0 {
			prev := &out[n-1]
			if prev.keyed && !prev.empty || !prev.keyed && l.indent != prev.indent {
				prev.val += "\n" + l.text
				prev.empty = false
				continue
			}
		}
		out = append(out, t)
	}
	return out
}

// readTree reads the lines of a generic describe's tree (after its
// head) into an object, as printUnstructuredContent printed it.
func readTree(lines []line, t shape) map[string]any {
	tl := treeLines(lines)
	if len(tl) == 0 {
		return map[string]any{}
	}
	m, _ := readMap(tl, tl[0].indent, t)
	return m
}

// readMap reads the keyed lines at indent, each with the lines deeper
// than it, until a line less deep.
func readMap(tl []treeLine, indent int, t shape) (map[string]any, int) {
	out := map[string]any{}
	i := 0
	for i < len(tl) && tl[i].indent >= indent {
		l := tl[i]
		j := i + 1
		for j < len(tl) && tl[j].indent > l.indent {
			j++
		}
		if !l.keyed || l.indent != indent {
			i = j // a stray line: skipped with what is under it
			continue
		}
		k, sub := t.field(l.key)
		if v, ok := readValue(l, tl[i+1:j], k, sub); ok {
			out[k] = v
		}
		i = j
	}
	return out, i
}

// readValue reads one key's value: printed after it, or the lines
// under it.
func readValue(l treeLine, under []treeLine, k string, t shape) (any, bool) {
	if l.val == "<nil>" {
		return nil, false // a null
	}
	if !l.empty {
		return t.scalar(l.val), true
	}
	if len(under) == 0 {
		// An empty map or list prints its key alone; an empty string
		// pads it.
		switch {
		case t.isList():
			return []any{}, true
		case t.isMap():
			return map[string]any{}, true
		case t.known() || l.padded:
			return "", true
		}
		return nil, false
	}
	indent := under[0].indent
	switch {
	case !under[0].keyed:
		var vals []any
		for _, u := range under {
			if u.indent == indent && !u.keyed {
				vals = append(vals, t.elem().scalar(u.val))
			}
		}
		return vals, true
	case t.isList():
		return readList(under, indent, t.elem()), true
	case t.isMap():
		m, _ := readMap(under, indent, t)
		return m, true
	}
	items := readList(under, indent, t.elem())
	if len(items) > 1 || listKeys[k] {
		return items, true
	}
	return items[0], true
}

// listKeys are the fields read as lists when no Go type says so and
// their items do not: a list of one map prints as a map does.
var listKeys = map[string]bool{
	"conditions": true, "ownerReferences": true, "containers": true, "initContainers": true,
	"ports": true, "parentRefs": true, "backendRefs": true, "rules": true, "parents": true,
	"steps": true, "matches": true, "env": true, "volumes": true, "volumeMounts": true,
	"tolerations": true, "subjects": true, "items": true, "listeners": true,
}

// readList splits a list of maps printed without dashes into its items:
// each item's keys are printed sorted, so an item ends where a key
// repeats or the order goes back.
func readList(tl []treeLine, indent int, t shape) []any {
	var items []any
	start := 0
	seen := map[string]bool{}
	last := ""
	flush := func(end int) {
		if end > start {
			m, _ := readMap(tl[start:end], indent, t)
			items = append(items, m)
		}
	}
	for i, l := range tl {
		if l.indent != indent || !l.keyed {
			continue
		}
		k, _ := t.field(l.key)
		if seen[k] || k < last {
			flush(i)
			start, seen = i, map[string]bool{}
		}
		seen[k], last = true, k
	}
	flush(len(tl))
	return items
}

// unlabel inverts smartLabelFor for a key no Go type names:
// "Last Transition Time" is lastTransitionTime, "API Version"
// apiVersion, "UID" uid, "Stable RS" stableRS, "HPA Replicas"
// HPAReplicas (smartLabelFor capitalises a lower-case first word, and
// upper-cases only the acronyms API, URL, UID and GUID), "App" app; a
// key printed raw (it holds other characters than letters and '-') is
// itself.
func unlabel(label string) string {
	if !strings.Contains(label, " ") {
		if strings.IndexFunc(label, func(r rune) bool { return !isLetter(r) && r != '-' }) >= 0 {
			return label
		}
	}
	// "x-request-id" was printed "X - Request - Id".
	var parts []string
	for _, seg := range strings.Split(label, " - ") {
		words := strings.Fields(seg)
		if len(words) == 0 {
			continue
		}
		first := words[0]
		switch {
		case acronyms[first] || len(first) == 1:
			first = strings.ToLower(first)
		case strings.ToUpper(first) != first:
			first = strings.ToLower(first[:1]) + first[1:]
		}
		parts = append(parts, first+strings.Join(words[1:], ""))
	}
	return strings.Join(parts, "-")
}

// acronyms are the words smartLabelFor upper-cases.
var acronyms = map[string]bool{"API": true, "URL": true, "UID": true, "GUID": true}

func isLetter(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127
}

// guess reads a value no Go type names: an integer, a number, true or
// false, else the string printed.
func guess(v string) any {
	if v == "true" || v == "false" {
		return v == "true"
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n
	}
	if floatRe.MatchString(v) {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return f
		}
	}
	return v
}

// floatRe is a number %v prints for a float64: "0.5", "1e+06".
var floatRe = regexp.MustCompile(`^-?\d+(?:\.\d+)?(?:e[+-]\d+)?$`)
