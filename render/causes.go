package render

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// CausesText prints the cause catalogue for `kubectl chain causes`, grouped
// by link in chain order: cause ID, when it becomes terminal, its summary
// and, under it, the generic next step.
func CausesText(w io.Writer, causes []decode.Cause, o Options) error {
	p := newPrinter(w, o)
	sorted := sortedCauses(causes)
	idW, termW := len("CAUSE"), len("TERMINAL")
	for _, c := range sorted {
		idW = max(idW, len(c.ID))
		termW = max(termW, len(terminalText(c.Terminal)))
	}
	col := linkIndent + idW + 2 + termW + 2
	// Too little room for the summary beside the columns: put it below.
	below := col > p.width-30
	textCol := col
	if below {
		textCol = linkIndent + 4
	}
	p.line(span{role: roleDim, text: strings.Repeat(" ", linkIndent) + pad("CAUSE", idW) + "  " + pad("TERMINAL", termW) + "  SUMMARY / NEXT STEP"})
	var link chain.LinkID
	for i, c := range sorted {
		if i == 0 || c.Link != link {
			link = c.Link
			p.blank()
			p.para(0, linkIndent, span{role: roleBold, text: c.Link.Title()})
		}
		lead := []span{{role: rolePlain, text: strings.Repeat(" ", linkIndent)}, {role: roleBold, text: pad(string(c.ID), idW)}, {role: rolePlain, text: "  " + pad(terminalText(c.Terminal), termW) + "  "}}
		if below {
			p.line(lead...)
			p.para(textCol, textCol, span{role: rolePlain, text: c.Summary})
		} else {
			p.row(lead, col, textCol, span{role: rolePlain, text: c.Summary})
		}
		if c.NextStep != "" {
			p.para(textCol, textCol+len("next: "), span{role: roleDim, text: "next:"}, span{role: rolePlain, text: " " + c.NextStep})
		}
	}
	return p.flush(w)
}

// CausesMarkdown prints the catalogue as docs/causes.md's table. The output is
// deterministic so a test can keep the docs in sync with the code.
func CausesMarkdown(w io.Writer, causes []decode.Cause) error {
	var b strings.Builder
	b.WriteString("| ID | link | when terminal | summary | next step |\n")
	b.WriteString("|---|---|---|---|---|\n")
	for _, c := range sortedCauses(causes) {
		fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s | %s |\n",
			mdCell(string(c.ID)), mdCell(string(c.Link)), mdCell(terminalText(c.Terminal)),
			mdCell(c.Summary), mdCell(c.NextStep))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// sortedCauses orders the catalogue by link in chain order, then by ID, so
// that the output does not depend on how the catalogue was assembled. Links
// outside the chain come last, by name.
func sortedCauses(causes []decode.Cause) []decode.Cause {
	out := slices.Clone(causes)
	slices.SortStableFunc(out, func(a, b decode.Cause) int {
		return cmp.Or(
			cmp.Compare(linkOrder(a.Link), linkOrder(b.Link)),
			cmp.Compare(a.Link, b.Link),
			cmp.Compare(a.ID, b.ID),
		)
	})
	return out
}

// linkOrder is a link's position in the chain, or after it when unknown.
func linkOrder(l chain.LinkID) int {
	if i := slices.Index(chain.Links, l); i >= 0 {
		return i
	}
	return len(chain.Links)
}

// terminalText says when a cause stops being worth waiting for.
func terminalText(t decode.TerminalRule) string {
	switch t.Mode {
	case decode.Immediate:
		return "immediately"
	case decode.AfterGrace:
		if t.Window > 0 {
			return fmt.Sprintf("after %s (or the grace window, if longer)", t.Window)
		}
		if t.Retried {
			return "after grace window, once a retry past it failed too"
		}
		return "after grace window"
	case decode.AfterRepeats:
		if t.Repeats > 0 {
			return fmt.Sprintf("after %d repeats", t.Repeats)
		}
		return "after repeats"
	case decode.Transient:
		return "never (transient)"
	}
	return string(t.Mode)
}

// mdCell makes text safe inside a Markdown table cell.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "\r\n", " ")
	s = strings.ReplaceAll(s, "\n", " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

// pad right-pads s with spaces to n bytes (IDs and table cells are ASCII).
func pad(s string, n int) string {
	return s + strings.Repeat(" ", max(0, n-len(s)))
}
