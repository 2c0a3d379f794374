package render

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// span is a piece of text in one role.
type span struct {
	role role
	text string
	// keep makes the span's own spaces unbreakable: "(ImageNotFound,
	// terminal)" is one thing to read and must not be split over lines.
	keep bool
}

// word is the unit wrapping never splits: text between two single spaces.
// Long words (image references, URLs) overflow the width rather than being
// cut, so evidence stays copyable.
type word struct {
	chunks []span
	width  int
	// newline forces the word onto a new line (a newline in the text).
	newline bool
}

// words splits spans at single spaces and newlines (kept spans only at
// newlines). Consecutive spaces
// yield empty words, so that joining words with one space restores the text
// exactly: wrapping replaces only the spaces it breaks at.
func words(spans []span) []word {
	var out []word
	var cur word
	for _, s := range spans {
		for i, seg := range strings.Split(escape(s.text), "\n") {
			if i > 0 {
				out = append(out, cur)
				cur = word{newline: true}
			}
			parts := strings.Split(seg, " ")
			if s.keep {
				parts = []string{seg}
			}
			for j, part := range parts {
				if j > 0 {
					out = append(out, cur)
					cur = word{}
				}
				if part != "" {
					cur.chunks = append(cur.chunks, span{role: s.role, text: part})
					cur.width += lipgloss.Width(part)
				}
			}
		}
	}
	return append(out, cur)
}

// layout fills lines of at most width cells with spans after lead (a prefix
// of leadWidth cells that is never broken); continuation lines start with
// hang spaces. A word wider than the room left still gets a line of its own.
func layout(lead []span, leadWidth int, spans []span, width, hang int) [][]span {
	var lines [][]span
	line := append([]span(nil), lead...)
	col, empty := leadWidth, true
	for _, w := range words(spans) {
		if w.newline || (!empty && col+1+w.width > width) {
			lines = append(lines, line)
			line = []span{{role: rolePlain, text: strings.Repeat(" ", hang)}}
			col, empty = hang, true
		}
		if !empty {
			line = append(line, span{role: rolePlain, text: " "})
			col++
		}
		line = append(line, w.chunks...)
		col += w.width
		empty = false
	}
	return append(lines, line)
}

// merge joins adjacent spans of the same role, including the unstyled
// spaces between two of them, so a dim message is one styled run and not
// one escape sequence per word.
func merge(line []span) []span {
	var kept []span
	for _, s := range line {
		if s.text != "" {
			kept = append(kept, s)
		}
	}
	var out []span
	for i, s := range kept {
		if i > 0 && i < len(kept)-1 && s.role == rolePlain && strings.Trim(s.text, " ") == "" &&
			kept[i-1].role == kept[i+1].role {
			s.role = kept[i-1].role
		}
		if n := len(out); n > 0 && out[n-1].role == s.role {
			out[n-1].text += s.text
			continue
		}
		out = append(out, s)
	}
	return out
}

// kept is a span whose spaces never break.
func kept(r role, text string) span {
	return span{role: r, text: text, keep: true}
}
