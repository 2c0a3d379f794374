package render

import (
	"fmt"
	"strings"
	"time"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// maxObjectNames caps the objects named in a finding; the count says the rest.
const maxObjectNames = 3

// writeFinding prints one finding: the cause and its summary, the objects,
// the evidence verbatim, the decoded details and the next step.
func writeFinding(p *printer, now time.Time, f chain.Finding, status chain.Status) {
	p.para(findingIndent, detailIndent, findingHead(now, f, status)...)
	if objs := objectsText(f.Objects, f.Of); objs != "" {
		p.para(detailIndent, messageIndent, span{role: rolePlain, text: objs})
	}
	for _, e := range f.Evidence {
		p.para(detailIndent, messageIndent+2, evidenceHead(now, e)...)
		// Probe output often ends in a newline; a trailing one is no text.
		if msg := strings.TrimRight(e.Message, "\n"); msg != "" {
			p.para(messageIndent, messageIndent, span{role: rolePlain, text: msg})
		}
	}
	for _, d := range f.Details {
		p.para(detailIndent, messageIndent, span{role: roleDim, text: d.Key + ":"}, span{role: rolePlain, text: " " + d.Value})
	}
	if f.NextStep != "" {
		p.para(detailIndent, detailIndent+len("next: "), span{role: roleBold, text: "next:"}, span{role: rolePlain, text: " " + f.NextStep})
	}
}

// findingHead is "ImageNotFound: image "web:v9" not found (terminal, for 4m, x5)".
func findingHead(now time.Time, f chain.Finding, status chain.Status) []span {
	cause := statusRole(status)
	if f.Progressing {
		cause = roleProgressing
	}
	out := []span{{role: cause, text: string(f.Cause)}}
	if f.Summary != "" {
		out = append(out, span{role: rolePlain, text: ": " + f.Summary})
	}
	var tags []string
	if f.Terminal {
		tags = append(tags, "terminal")
	}
	if f.Progressing {
		tags = append(tags, "progressing")
	}
	if a := age(now, f.Since); a != "" {
		tags = append(tags, "for "+a)
	}
	if f.Repeats > 0 {
		tags = append(tags, fmt.Sprintf("x%d", f.Repeats))
	}
	if len(tags) > 0 {
		out = append(out, span{role: rolePlain, text: " "}, kept(roleDim, "("+strings.Join(tags, ", ")+")"))
	}
	return out
}

// objectsText is "3/3 pods: web-a, web-b, web-c +2 more": how many of the
// objects looked at show the cause, and which. Mixed kinds keep their
// "kind/" prefix.
func objectsText(objects []string, of int) string {
	if len(objects) == 0 {
		return ""
	}
	kind, names := splitKind(objects)
	total := of
	if total <= 0 {
		total = len(objects)
	}
	if total != 1 {
		kind = plural(kind)
	}
	count := fmt.Sprint(len(objects))
	if of > 0 {
		count += fmt.Sprintf("/%d", of)
	}
	shown := names
	if len(shown) > maxObjectNames {
		shown = shown[:maxObjectNames]
	}
	text := count + " " + kind + ": " + strings.Join(shown, ", ")
	if more := len(names) - len(shown); more > 0 {
		text += fmt.Sprintf(" +%d more", more)
	}
	return text
}

// splitKind returns the common kind of "kind/name" objects and the bare
// names; when kinds differ or are missing, "object" and the full names.
func splitKind(objects []string) (string, []string) {
	kind := ""
	names := make([]string, len(objects))
	for i, o := range objects {
		k, n, ok := strings.Cut(o, "/")
		if !ok || (kind != "" && k != kind) {
			return "object", objects
		}
		kind, names[i] = k, n
	}
	return kind, names
}

// plural is the plural of a lowercase kind ("pod" -> "pods").
func plural(kind string) string {
	if strings.HasSuffix(kind, "s") {
		return kind + "es"
	}
	return kind + "s"
}

// evidenceHead is where a piece of evidence came from, in one line:
// "event pod/web-a · Warning Failed · x4, last 2m ago". A line break never
// separates a "·" from what it introduces.
func evidenceHead(now time.Time, e chain.Evidence) []span {
	where := []string{string(e.Source)}
	if e.Object != "" {
		where = append(where, e.Object)
	}
	if e.Field != "" {
		where = append(where, e.Field)
	}
	var more []string
	if what := strings.TrimSpace(e.Type + " " + e.Reason); what != "" {
		more = append(more, what)
	}
	var when []string
	if e.Count > 0 {
		when = append(when, fmt.Sprintf("x%d", e.Count))
	}
	if a := age(now, e.Last); a != "" {
		when = append(when, "last "+a+" ago")
	}
	if len(when) > 0 {
		more = append(more, strings.Join(when, ", "))
	}
	out := []span{{role: roleDim, text: strings.Join(where, " ")}}
	for _, m := range more {
		out = append(out, span{role: rolePlain, text: " "}, kept(roleDim, "· "+m))
	}
	return out
}
