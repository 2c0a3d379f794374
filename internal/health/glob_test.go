package health

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestMatchFolder pins the doublestar reading of "_" folders.
func TestMatchFolder(t *testing.T) {
	tests := []struct {
		dir, key string
		want     bool
	}{
		{"_.crossplane.io/_", "pkg.crossplane.io/Provider", true},
		{"_.crossplane.io/_", "a.b.crossplane.io/X", true},
		{"_.crossplane.io/_", ".crossplane.io/X", true}, // "*" may match nothing
		{"_.crossplane.io/_", "crossplane.io/X", false},
		{"_.crossplane.io/_", "pkg.crossplane.io", false},
		{"_.crossplane.io/_", "pkg.crossplane.io/A/B", false},
		{"_.crossplane.io/_", "pkg.crossplane.iox/A", false},
		{"operator.victoriametrics.com/_", "operator.victoriametrics.com/VMCluster", true},
		{"operator.victoriametrics.com/_", "xoperator.victoriametrics.com/VMCluster", false},
		{"_", "Pod", true}, // a core-kind wildcard folder
		{"a[b]/_", "a[b]/X", true},
		{"a[b]/_", "ab/X", false},
	}
	for _, tc := range tests {
		if got := matchFolder(tc.dir, tc.key); got != tc.want {
			t.Errorf("matchFolder(%q, %q) = %v, want %v", tc.dir, tc.key, got, tc.want)
		}
	}
}

// TestMatchGlob pins the gobwas/glob reading of wildcard ConfigMap keys.
func TestMatchGlob(t *testing.T) {
	tests := []struct {
		pattern, text string
		want          bool
	}{
		{"*/*", "apps/Deployment", true},
		{"*/*", "Pod", false}, // "all" does not reach core kinds
		{"*", "Pod", true},
		{"*", "apps/Deployment", true}, // no separator: "*" spans "/"
		{"*.aws.crossplane.io/*", "ec2.aws.crossplane.io/VPC", true},
		{"*.aws.crossplane.io/*", "ec2.gcp.crossplane.io/VPC", false},
		{"ec2.aws.crossplane.io/*", "ec2.aws.crossplane.io/VPC", true},
		{"ec2.aws.crossplane.io/*", "ec2.aws.crossplane.io", false},
		{"ec2.aws.crossplane.io/{VPC,Subnet}", "ec2.aws.crossplane.io/Subnet", true},
		{"ec2.aws.crossplane.io/{VPC,Subnet}", "ec2.aws.crossplane.io/Instance", false},
		{"{a,b{c,d}}/X", "bd/X", true},
		{"apps/Deploymen?", "apps/Deployment", true},
		{"apps/Deploymen?", "apps/Deploymen", false},
		{"[a-c]pps/Deployment", "apps/Deployment", true},
		{"[!a]pps/Deployment", "apps/Deployment", false},
		{"[!a]pps/Deployment", "opps/Deployment", true},
		{`\*/X`, "*/X", true},
		{`\*/X`, "a/X", false},
		{"a*b*c", "aXXbYYc", true},
		{"a*b*c", "aXXbYY", false},
		{"{a", "{a", false}, // malformed: matches nothing
		{"[a", "[a", false}, // malformed
		{`a\`, `a\`, false}, // malformed
		{"a}", "a}", false}, // malformed
		{"", "", true},
	}
	for _, tc := range tests {
		if got := matchGlob(tc.pattern, tc.text); got != tc.want {
			t.Errorf("matchGlob(%q, %q) = %v, want %v", tc.pattern, tc.text, got, tc.want)
		}
	}
}

// FuzzMatchGlob: matchGlob never panics, a (valid UTF-8) pattern without
// glob syntax matches exactly itself, and "*" matches everything.
func FuzzMatchGlob(f *testing.F) {
	f.Add("*.aws.crossplane.io/*", "ec2.aws.crossplane.io/VPC")
	f.Add("{a,b{c,d}}/[!x-z]?", "bd/ab")
	f.Add(`[\]]\{`, "]{")
	f.Add("{{{{{{a,b},c},d},e},f}", "e")
	f.Fuzz(func(t *testing.T, pattern, text string) {
		got := matchGlob(pattern, text)
		plain := !isGlob(pattern) && !strings.ContainsAny(pattern, "]}")
		// Invalid UTF-8 reads as U+FFFD on both sides, as in gobwas/glob.
		if plain && utf8.ValidString(pattern) && utf8.ValidString(text) && got != (pattern == text) {
			t.Fatalf("matchGlob(%q, %q) = %v for a plain pattern", pattern, text, got)
		}
		if !matchGlob("*", text) {
			t.Fatalf("* does not match %q", text)
		}
	})
}
