package render

import (
	"io"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// role is what a piece of text means; the palette maps it to a style. Roles
// rather than styles travel through layout because styles are not comparable
// and adjacent pieces of the same role are merged into one escape sequence.
type role int

const (
	rolePlain role = iota
	roleDim
	roleBold
	roleOK
	roleBroken
	roleProgressing
	roleUnknown
	roleCount
)

// palette holds one lipgloss style per role, bound to one writer's renderer.
type palette [roleCount]lipgloss.Style

// newPalette builds the styles for w. The color profile is forced from
// Options.Color so that the caller's decision (flags, NO_COLOR, terminal or
// not) is the only one: Ascii emits no escape codes at all.
func newPalette(w io.Writer, color bool) palette {
	r := lipgloss.NewRenderer(w)
	if color {
		r.SetColorProfile(termenv.ANSI)
	} else {
		r.SetColorProfile(termenv.Ascii)
	}
	// Tabs in verbatim messages stay tabs.
	base := r.NewStyle().TabWidth(lipgloss.NoTabConversion)
	var p palette
	p[rolePlain] = base
	p[roleDim] = base.Faint(true)
	p[roleBold] = base.Bold(true)
	// ANSI colors 1-5 follow the user's terminal theme.
	p[roleOK] = base.Foreground(lipgloss.Color("2"))
	p[roleBroken] = base.Foreground(lipgloss.Color("1")).Bold(true)
	p[roleProgressing] = base.Foreground(lipgloss.Color("3")).Bold(true)
	p[roleUnknown] = base.Foreground(lipgloss.Color("5")).Bold(true)
	return p
}

// render styles one line's text; text never contains a newline here.
func (p *palette) render(r role, text string) string {
	if r == rolePlain || text == "" {
		return text
	}
	return p[r].Render(text)
}

// terminalEscaper neutralises terminal control characters in what the
// cluster said, as kubectl does (k8s.io/cli-runtime/pkg/printers
// terminal.go, issue kubernetes#101695): an event message must not be able
// to drive the reader's terminal.
var terminalEscaper = strings.NewReplacer("\x1b", "^[", "\r", "\\r")

// escape returns s safe to print on a terminal.
func escape(s string) string {
	return terminalEscaper.Replace(s)
}
