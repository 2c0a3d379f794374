package render

import (
	"io"
	"strings"
)

// printer accumulates styled, wrapped lines and writes them at once, so a
// failing writer yields one error and never half a line.
type printer struct {
	pal   palette
	width int
	b     strings.Builder
}

func newPrinter(w io.Writer, o Options) *printer {
	return &printer{pal: newPalette(w, o.Color), width: o.width()}
}

// para prints spans starting at indent, continuation lines at hang.
func (p *printer) para(indent, hang int, spans ...span) {
	p.row([]span{{role: rolePlain, text: strings.Repeat(" ", indent)}}, indent, hang, spans...)
}

// row prints spans after an unbreakable lead of leadWidth cells.
func (p *printer) row(lead []span, leadWidth, hang int, spans ...span) {
	for _, line := range layout(lead, leadWidth, spans, p.width, hang) {
		for _, s := range trimRight(merge(line)) {
			p.b.WriteString(p.pal.render(s.role, s.text))
		}
		p.b.WriteByte('\n')
	}
}

// line prints spans as one line, unwrapped: for tables, whose rows must not
// break.
func (p *printer) line(spans ...span) {
	for _, s := range trimRight(merge(spans)) {
		p.b.WriteString(p.pal.render(s.role, escape(s.text)))
	}
	p.b.WriteByte('\n')
}

// blank prints an empty line.
func (p *printer) blank() {
	p.b.WriteByte('\n')
}

// flush writes everything printed to w.
func (p *printer) flush(w io.Writer) error {
	_, err := io.WriteString(w, p.b.String())
	return err
}

// trimRight drops trailing unstyled spaces, which only an empty word at the
// end of a line can leave.
func trimRight(line []span) []span {
	for n := len(line); n > 0 && line[n-1].role == rolePlain; n = len(line) {
		t := strings.TrimRight(line[n-1].text, " ")
		if t != "" {
			line[n-1].text = t
			break
		}
		line = line[:n-1]
	}
	return line
}
