package paste

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// line is one line of pasted text, with the indentation kubectl's prefix
// writer gave it (two spaces a level) and, for a "Key:  value" line, its
// key and value.
type line struct {
	n      int // 0-based line number in the input
	raw    string
	text   string // trimmed
	indent int
	key    string // "" when the line is no "Key: value" line
	val    string
	// padded says the line ended in blanks a terminal kept: kubectl's
	// tabwriter pads a "Key:\t" whose value is empty, and prints a
	// section's "Key:" bare.
	padded bool
}

// keyRe is a describe "Key:  value" line: the key is words (kubectl's
// titles: "Container ID", "Node-Selectors", "Image(s)") or a name (a
// container's, a volume's, an environment variable's, a resource's), then
// a colon, then the value after tabs or spaces, or nothing.
var keyRe = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9 ()._/-]*?):(?:[ \t]+(.*))?$`)

// splitLines cuts text into lines, expanding tabs the way a terminal shows
// kubectl's older tab-separated output.
func splitLines(text string) []line {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	raws := strings.Split(text, "\n")
	out := make([]line, 0, len(raws))
	for i, raw := range raws {
		raw = strings.TrimRight(unframe(raw), "\r")
		trimmed := strings.TrimRight(raw, " \t")
		l := line{n: i, raw: trimmed, text: strings.TrimSpace(trimmed), padded: trimmed != raw}
		raw = trimmed
		l.indent = indentOf(raw)
		if m := keyRe.FindStringSubmatch(l.text); m != nil && !strings.Contains(m[1], "  ") {
			l.key, l.val = m[1], strings.TrimSpace(m[2])
		}
		out = append(out, l)
	}
	return out
}

// frameBars are the box-drawing bars a terminal UI (k9s, Lens, a tmux
// pane) draws around the text it shows: a copy from it keeps them at the
// start and the end of each line.
const frameBars = "\u2502\u2503\u2551"

// unframe takes a terminal UI's bar off the start (after blanks) and the
// end of a line, keeping the indentation inside the frame.
func unframe(raw string) string {
	if !strings.ContainsAny(raw, frameBars) {
		return raw
	}
	trimmed := strings.TrimLeft(raw, " \t")
	if r, size := utf8.DecodeRuneInString(trimmed); size > 0 && strings.ContainsRune(frameBars, r) {
		raw = trimmed[size:]
	}
	end := strings.TrimRight(raw, " \t\r")
	if r, size := utf8.DecodeLastRuneInString(end); size > 0 && strings.ContainsRune(frameBars, r) {
		raw = end[:len(end)-size]
	}
	return raw
}

// indentOf counts leading blanks; a tab counts as a tab stop of 8.
func indentOf(s string) int {
	n := 0
	for _, r := range s {
		switch r {
		case ' ':
			n++
		case '\t':
			n += 8 - n%8
		default:
			return n
		}
	}
	return n
}

// none says a value is kubectl's word for nothing.
func none(v string) bool {
	switch strings.TrimSpace(v) {
	case "", "<none>", "<unset>", "<nil>", "<unknown>":
		return true
	}
	return false
}

// columns splits a table row or an event row on runs of two or more
// blanks (kubectl's tabwriter pads with at least two), keeping single
// spaces inside a cell.
func columns(s string) []string {
	var out []string
	for _, f := range multiSpace.Split(strings.TrimSpace(s), -1) {
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

var multiSpace = regexp.MustCompile(`[ \t]{2,}|\t`)
