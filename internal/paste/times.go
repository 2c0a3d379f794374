package paste

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// ageRe is one age as kubectl prints it (apimachinery's HumanDuration and
// ShortHumanDuration: "7s", "3m12s", "2d4h", "3y45d"), or the words for a
// time it could not print.
var ageRe = regexp.MustCompile(`^(?:\d+[smhdy])+$`)

// parseAge reads an age; ok is false for anything else. "<invalid>" (a
// time in the future) and "<unknown>" (none) read as no age.
func parseAge(s string) (time.Duration, bool) {
	s = strings.TrimSpace(s)
	if !ageRe.MatchString(s) {
		return 0, false
	}
	var d time.Duration
	num := 0
	for _, r := range s {
		if r >= '0' && r <= '9' {
			num = num*10 + int(r-'0')
			continue
		}
		unit := map[rune]time.Duration{'s': time.Second, 'm': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'y': 365 * 24 * time.Hour}[r]
		d += time.Duration(num) * unit
		num = 0
	}
	return d, true
}

// intervalRe is describe's Age column since 1.10 and the RESTARTS cell
// since 1.24: "7s", "7s (x13 over 28s)", "2 (3m ago)".
var intervalRe = regexp.MustCompile(`^(\S+)(?:\s+\(x(\d+) over (\S+)\))?$`)

// interval reads describe's Age cell: when it was last seen, how many
// times, since when.
type interval struct {
	last, first time.Duration
	count       int32
	known       bool
}

func parseInterval(s string) interval {
	m := intervalRe.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return interval{}
	}
	last, ok := parseAge(m[1])
	if !ok {
		return interval{count: 1}
	}
	iv := interval{last: last, first: last, count: 1, known: true}
	if m[2] != "" {
		n, _ := strconv.Atoi(m[2])
		iv.count = int32(n)
		if first, ok := parseAge(m[3]); ok {
			iv.first = first
		}
	}
	return iv
}

// timeLayouts are the absolute times describe prints: RFC 1123 with a
// numeric zone since 1.5 ("Mon, 02 Jan 2006 15:04:05 -0700"), with a
// zone name before, and RFC 3339 in some fields.
var timeLayouts = []string{time.RFC1123Z, time.RFC1123, time.RFC3339, "Mon, 2 Jan 2006 15:04:05 -0700"}

// parseTime reads an absolute time describe printed.
func parseTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}
