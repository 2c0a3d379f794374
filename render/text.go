package render

import (
	"errors"
	"io"
	"strings"
	"time"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Text prints a report for a person: the verdict first, then the chain link
// by link with the findings, evidence and next steps under the link that is
// not ok, then the ReplicaSets when a rollout has more than one. Nothing is
// truncated: long messages wrap with a hanging indent.
func Text(w io.Writer, r *chain.Report, o Options) error {
	if r == nil {
		return errors.New("rendering report: no report")
	}
	p := newPrinter(w, o)
	writeHeader(p, r)
	p.blank()
	writeChain(p, r)
	writeReplicaSets(p, r.ReplicaSets)
	writeChange(p, r.Change, r.Time)
	return p.flush(w)
}

// writeHeader prints which Deployment, when, and the verdict with its next
// step: the three lines a reader needs when nothing else is read.
func writeHeader(p *printer, r *chain.Report) {
	head := []span{{role: roleBold, text: titled(r)}}
	if r.Via != "" {
		head = append(head, span{role: rolePlain, text: " (of " + r.Via + ")"})
	}
	if !r.Time.IsZero() {
		head = append(head, span{role: roleDim, text: " at " + r.Time.UTC().Format(time.RFC3339)})
	}
	p.para(0, 2, head...)
	p.para(0, 2, verdictSpans(r.Verdict)...)
	if r.Verdict.NextStep != "" {
		p.para(0, 6, span{role: roleBold, text: "next:"}, span{role: rolePlain, text: " " + r.Verdict.NextStep})
	}
}

// verdictSpans is the verdict in one line:
// "BROKEN at containers: <summary> (ImageNotFound, terminal)".
func verdictSpans(v chain.Verdict) []span {
	health := v.Health
	if health == "" {
		health = chain.Unknown
	}
	out := []span{{role: healthRole(health), text: strings.ToUpper(string(health))}}
	if v.Link != "" {
		out = append(out, span{role: rolePlain, text: " at "}, span{role: roleBold, text: string(v.Link)})
	}
	if v.Summary != "" {
		out = append(out, span{role: rolePlain, text: ": " + v.Summary})
	}
	if v.Cause != "" {
		cause := "(" + string(v.Cause)
		if v.Terminal {
			cause += ", terminal"
		}
		out = append(out, span{role: rolePlain, text: " "}, kept(rolePlain, cause+")"))
	}
	return out
}

// healthRole colors a verdict.
func healthRole(h chain.Health) role {
	switch h {
	case chain.Healthy:
		return roleOK
	case chain.Broken:
		return roleBroken
	case chain.Progressing:
		return roleProgressing
	}
	return roleUnknown
}

// statusRole colors a link status.
func statusRole(s chain.Status) role {
	switch s {
	case chain.StatusOK:
		return roleOK
	case chain.StatusBroken:
		return roleBroken
	case chain.StatusProgressing:
		return roleProgressing
	case chain.StatusUnknown:
		return roleUnknown
	}
	return roleDim
}

// statusMark is the one-cell mark of a link status. The marks stay without
// color too: they read as the status on their own.
func statusMark(s chain.Status) string {
	switch s {
	case chain.StatusOK:
		return "✓"
	case chain.StatusBroken:
		return "✗"
	case chain.StatusProgressing:
		return "…"
	case chain.StatusUnknown:
		return "?"
	}
	return "·"
}

// Indents of the chain section.
const (
	linkIndent    = 2
	findingIndent = 6
	detailIndent  = 8
	messageIndent = 10
)

// writeChain prints one row per link, with the status the walk gave it: the
// walk alone decides what is not reached, so text and JSON always agree.
func writeChain(p *printer, r *chain.Report) {
	idWidth := linkIDWidth(r.Links)
	for i, l := range r.Links {
		writeLinkRow(p, l, l.Status, idWidth)
		detailed := writeLinkBody(p, r.Time, l, l.Status)
		if detailed && i < len(r.Links)-1 {
			p.blank()
		}
	}
}

// linkIDWidth is the width of the link ID column.
func linkIDWidth(links []chain.Link) int {
	w := 0
	for _, id := range chain.Links {
		w = max(w, len(id))
	}
	for _, l := range links {
		w = max(w, len(l.ID))
	}
	return w
}

// writeLinkRow prints "  ✗ containers       0/3 pods running".
func writeLinkRow(p *printer, l chain.Link, status chain.Status, idWidth int) {
	mark := statusRole(status)
	id := rolePlain
	summary := rolePlain
	switch status {
	case chain.StatusOK:
	case chain.StatusNotReached:
		id, summary = roleDim, roleDim
	default:
		id = mark
	}
	text := l.Summary
	if status == chain.StatusNotReached && text == "" {
		text = "not reached"
	}
	if text == "" {
		text = string(status)
	}
	lead := []span{
		{role: rolePlain, text: strings.Repeat(" ", linkIndent)},
		{role: mark, text: statusMark(status)},
		{role: rolePlain, text: " "},
		{role: id, text: string(l.ID)},
		{role: rolePlain, text: strings.Repeat(" ", idWidth-len(l.ID)+2)},
	}
	leadWidth := linkIndent + 2 + idWidth + 2
	p.row(lead, leadWidth, leadWidth, span{role: summary, text: text})
}

// writeLinkBody prints the findings of a link that is not ok and the link's
// notes; it reports whether it printed findings, which earn a blank line
// before the next link.
func writeLinkBody(p *printer, now time.Time, l chain.Link, status chain.Status) bool {
	printed := false
	switch status {
	case chain.StatusBroken, chain.StatusProgressing, chain.StatusUnknown:
		for j, f := range l.Findings {
			if j > 0 {
				p.blank()
			}
			writeFinding(p, now, f, status)
			printed = true
		}
	}
	for _, n := range l.Notes {
		p.para(findingIndent, findingIndent+6, span{role: roleDim, text: "note: " + n})
	}
	return printed
}

// kindOf is the report's kind as kubectl spells resources ("statefulset");
// reports written before kinds existed are Deployments'.
func kindOf(r *chain.Report) string {
	if r.Kind == "" {
		return "deployment"
	}
	if r.API != nil && chain.Foreign(r.Kind, r.API.Group) {
		return r.Kind.Resource() + "." + r.API.Group // not the built-in kind of its name
	}
	return r.Kind.Resource()
}

// qualified is the report's object as NAMESPACE/NAME, or NAME for a
// cluster-scoped one; with the context it was read from when several
// were ("shop/web in lab2").
func qualified(r *chain.Report) string {
	name := r.Name
	if r.Namespace != "" {
		name = r.Namespace + "/" + r.Name
	}
	if r.Context != "" && r.Name != "" {
		name += " in context " + r.Context
	}
	if r.Name == "" {
		// A context of several that could not be judged at all.
		return "context " + r.Context
	}
	return name
}

// titled is the report's object with its kind ("deployment shop/web"),
// or only its context for a context not judged at all.
func titled(r *chain.Report) string {
	if r.Name == "" {
		return qualified(r)
	}
	return kindOf(r) + " " + qualified(r)
}
