package render

import (
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Summary prints one row per workload under the reports: the table a
// person scans first when a gate checks many.
func Summary(w io.Writer, l *chain.ReportList, o Options) error {
	p := newPrinter(w, o)
	contexts := slices.ContainsFunc(l.Items, func(r chain.Report) bool { return r.Context != "" })
	rows := [][]string{{"NAMESPACE", "WORKLOAD", "HEALTH", "LINK", "CAUSE", "SUMMARY"}}
	for _, r := range l.Items {
		workload, cause := kindOf(&r)+"/"+r.Name, dash(string(r.Verdict.Cause))
		if r.Name == "" {
			workload = "-"
		}
		if r.Error != nil {
			cause = fmt.Sprintf("exit %d", r.Error.Exit)
		}
		rows = append(rows, []string{r.Namespace, workload, string(r.Verdict.Health), dash(string(r.Verdict.Link)), cause, r.Verdict.Summary})
	}
	health := 2
	if contexts {
		// A fleet's table leads with the context each row was read from.
		for i := range rows {
			c := "CONTEXT"
			if i > 0 {
				c = l.Items[i-1].Context
			}
			rows[i] = append([]string{c}, rows[i]...)
		}
		health = 3
	}
	widths := make([]int, len(rows[0])-1)
	for _, row := range rows {
		for i := range widths {
			widths[i] = max(widths[i], len(row[i]))
		}
	}
	for i, row := range rows {
		var spans []span
		for c, cell := range row {
			r := rolePlain
			if i == 0 {
				r = roleDim
			} else if c == health {
				r = healthRole(chain.Health(cell))
			}
			text := cell
			if c < len(widths) {
				text = pad(cell, widths[c]+2)
			}
			spans = append(spans, span{role: r, text: text})
		}
		p.line(spans...)
	}
	return p.flush(w)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// JUnit prints the reports as a JUnit XML test suite, one test case per
// Deployment, so CI systems show a broken rollout as a failed test with the
// verdict as its message.
func JUnit(w io.Writer, l *chain.ReportList) error {
	type failure struct {
		Type    string `xml:"type,attr"`
		Message string `xml:"message,attr"`
		Text    string `xml:",chardata"`
	}
	type testcase struct {
		Name      string   `xml:"name,attr"`
		Classname string   `xml:"classname,attr"`
		Failure   *failure `xml:"failure,omitempty"`
	}
	type testsuite struct {
		XMLName  xml.Name   `xml:"testsuite"`
		Name     string     `xml:"name,attr"`
		Tests    int        `xml:"tests,attr"`
		Failures int        `xml:"failures,attr"`
		Cases    []testcase `xml:"testcase"`
	}
	s := testsuite{Name: "kubectl-chain", Tests: len(l.Items)}
	for _, r := range l.Items {
		tc := testcase{Name: qualified(&r), Classname: kindOf(&r)}
		if r.Verdict.Health != chain.Healthy {
			s.Failures++
			var text strings.Builder
			if err := Text(&text, &r, Options{}); err != nil {
				return err
			}
			tc.Failure = &failure{Type: string(r.Verdict.Health), Message: verdictLine(r.Verdict), Text: text.String()}
		}
		s.Cases = append(s.Cases, tc)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(s); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// Markdown prints a summary table and, for each Deployment that is not
// healthy, its cause, next step and evidence: for CI step summaries and pull
// request comments.
func Markdown(w io.Writer, l *chain.ReportList) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### kubectl chain: %s\n\n", l.Health)
	b.WriteString("| workload | health | link | cause | summary |\n|---|---|---|---|---|\n")
	for _, r := range l.Items {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", titled(&r), r.Verdict.Health,
			mdCell(dash(string(r.Verdict.Link))), mdCell(dash(string(r.Verdict.Cause))), mdCell(r.Verdict.Summary))
	}
	for _, r := range l.Items {
		if r.Verdict.Health == chain.Healthy {
			continue
		}
		fmt.Fprintf(&b, "\n#### `%s`: %s\n\n", qualified(&r), mdCell(escape(verdictLine(r.Verdict))))
		if r.Verdict.NextStep != "" {
			fmt.Fprintf(&b, "**Next step:** %s\n\n", mdCell(r.Verdict.NextStep))
		}
		if l := r.Link(r.Verdict.Link); l != nil && len(l.Findings) > 0 {
			b.WriteString("```\n")
			for _, e := range l.Findings[0].Evidence {
				fmt.Fprintf(&b, "%s %s %s: %s\n", e.Source, e.Object, e.Reason, strings.ReplaceAll(e.Message, "```", "'''"))
			}
			b.WriteString("```\n")
		}
		if r.Change != nil {
			b.WriteString("\n")
			markdownChange(&b, r.Change, r.Time)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Annotations prints GitHub Actions workflow commands, one error per broken
// Deployment and one warning per one still progressing or unknown, so the
// cause shows on the run's summary page.
func Annotations(w io.Writer, l *chain.ReportList) error {
	var b strings.Builder
	for _, r := range l.Items {
		kind := "warning"
		switch r.Verdict.Health {
		case chain.Healthy:
			continue
		case chain.Broken:
			kind = "error"
		}
		msg := verdictLine(r.Verdict)
		if r.Verdict.NextStep != "" {
			msg += "\n" + "next: " + r.Verdict.NextStep
		}
		if r.Change != nil && r.Change.Applied != nil {
			msg += "\n" + r.Change.Applied.Line(r.Time)
		}
		fmt.Fprintf(&b, "::%s title=%s::%s\n", kind, titled(&r), workflowEscape(msg))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// verdictLine is the verdict as one plain line.
func verdictLine(v chain.Verdict) string {
	s := string(v.Health)
	if v.Link != "" {
		s += " at " + string(v.Link)
	}
	if v.Summary != "" {
		s += ": " + v.Summary
	}
	if v.Cause != "" {
		s += " (" + string(v.Cause) + ")"
	}
	return s
}

// workflowEscape escapes a workflow command's message as the Actions
// toolkit does (%, CR and LF).
func workflowEscape(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}
