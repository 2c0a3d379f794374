package render

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/google/go-cmp/cmp"
)

// paraText wraps plain text with the printer, without color.
func paraText(width, indent, hang int, text string) string {
	p := &printer{pal: newPalette(&strings.Builder{}, false), width: width}
	p.para(indent, hang, span{role: rolePlain, text: text})
	return p.b.String()
}

func TestPara(t *testing.T) {
	tests := []struct {
		name                string
		width, indent, hang int
		text, want          string
	}{
		{"fits", 20, 2, 4, "short line", "  short line\n"},
		{"wraps with hanging indent", 20, 2, 4, "one two three four five six seven",
			"  one two three four\n    five six seven\n"},
		{"long word overflows, never cut", 10, 0, 2, "a registry.lab.internal/web:v9 b",
			"a\n  registry.lab.internal/web:v9\n  b\n"},
		{"double spaces kept", 40, 0, 0, "a  b", "a  b\n"},
		{"newline in text starts a line", 40, 2, 4, "first\nsecond", "  first\n    second\n"},
		{"escape sequences neutralised", 40, 0, 0, "a\x1b[31mb\rc", "a^[[31mb\\rc\n"},
		{"empty", 40, 2, 2, "", "\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := paraText(tc.width, tc.indent, tc.hang, tc.text)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestShortDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{-5 * time.Second, "<invalid>"},
		{-1500 * time.Millisecond, "0s"},
		{0, "0s"},
		{59 * time.Second, "59s"},
		{3*time.Minute + 59*time.Second, "3m"},
		{2*time.Hour + 30*time.Minute, "2h"},
		{4*24*time.Hour + time.Hour, "4d"},
		{800 * 24 * time.Hour, "2y"},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, shortDuration(tc.d)); diff != "" {
			t.Errorf("shortDuration(%v) (-want +got):\n%s", tc.d, diff)
		}
	}
}

// FuzzPara checks the wrapping invariants: no word is lost or reordered,
// a line is wider than the width only when it holds a single word, and the
// output is deterministic.
func FuzzPara(f *testing.F) {
	for _, s := range []string{msgFailedPull, msgPullBackOff, msgQuotaEvent, msgForbidden, "a  b", "x\ny", ""} {
		f.Add(s, 40)
	}
	f.Fuzz(func(t *testing.T, text string, width int) {
		width = 10 + abs(width)%150
		text = strings.ToValidUTF8(text, "?")
		got := paraText(width, 2, 4, text)
		if again := paraText(width, 2, 4, text); again != got {
			t.Fatalf("not deterministic: %q vs %q", got, again)
		}
		if diff := cmp.Diff(strings.Fields(escape(text)), strings.Fields(got)); diff != "" {
			t.Fatalf("words changed (-want +got):\n%s", diff)
		}
		for _, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
			// A line holds several words when a space is left after the indent.
			if lipgloss.Width(line) > width && strings.Contains(strings.TrimLeft(line, " "), " ") {
				t.Fatalf("line wider than %d with several words: %q", width, line)
			}
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
