package render

import (
	"fmt"
	"strings"
	"time"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// writeChange prints what changed since the last revision that ran healthy:
// a heading line, one line a field (before -> after), and the rollback.
func writeChange(p *printer, c *chain.Change, now time.Time) {
	if c == nil {
		return
	}
	indent := strings.Repeat(" ", linkIndent)
	p.blank()
	p.para(0, linkIndent, span{role: roleBold, text: "What changed: "}, span{role: rolePlain, text: changeHeading(c)})
	for _, f := range c.Fields {
		p.para(linkIndent, linkIndent+2, span{role: rolePlain, text: f.Field + ": " + dash(f.From) + " -> " + dash(f.To)})
	}
	if c.Note != "" && c.Kind == chain.ChangeTemplate {
		p.para(linkIndent, linkIndent, span{role: roleDim, text: c.Note})
	}
	if c.Applied != nil {
		p.para(linkIndent, linkIndent+2, span{role: rolePlain, text: c.Applied.Line(now)})
	}
	if c.Rollback != "" {
		p.line(span{role: rolePlain, text: indent}, span{role: roleDim, text: "rollback: "}, span{role: rolePlain, text: c.Rollback})
	}
}

// changeHeading says between which revisions the fields differ, or why
// there is nothing to compare.
func changeHeading(c *chain.Change) string {
	if c.Kind != chain.ChangeTemplate {
		return c.Note
	}
	health := "last ran ready"
	if !c.HealthKnown {
		health = "health not known"
	}
	return fmt.Sprintf("revision %s (%s, %s) -> revision %s (%s), %d field(s)", c.From, c.FromName, health, c.To, c.ToName, len(c.Fields))
}

// markdownChange writes the change as a diff block for a pull request
// comment: "-" lines from the last healthy revision, "+" lines now.
func markdownChange(b *strings.Builder, c *chain.Change, now time.Time) {
	if c == nil {
		return
	}
	fmt.Fprintf(b, "**What changed:** %s\n\n", mdCell(changeHeading(c)))
	if len(c.Fields) > 0 {
		b.WriteString("```diff\n")
		for _, f := range c.Fields {
			if f.From != "" {
				fmt.Fprintf(b, "- %s: %s\n", f.Field, fence(f.From))
			}
			if f.To != "" {
				fmt.Fprintf(b, "+ %s: %s\n", f.Field, fence(f.To))
			}
		}
		b.WriteString("```\n\n")
	}
	if c.Kind == chain.ChangeTemplate && c.Note != "" {
		fmt.Fprintf(b, "%s\n\n", mdCell(c.Note))
	}
	if c.Applied != nil {
		fmt.Fprintf(b, "**Applied:** %s\n\n", mdCell(strings.TrimPrefix(c.Applied.Line(now), "applied by ")))
	}
	if c.Rollback != "" {
		fmt.Fprintf(b, "**Rollback:** `%s`\n\n", c.Rollback)
	}
}

func fence(s string) string { return strings.ReplaceAll(s, "```", "'''") }
