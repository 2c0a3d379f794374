package health

import (
	"strings"
	"testing"
)

// formatKey is parseKey's inverse: the argocd-cm key for a type, group and
// kind.
func formatKey(typ, group, kind string) string {
	switch {
	case group == "*" && kind == "*":
		return keyPrefix + typ + ".all"
	case group == "":
		return keyPrefix + typ + "." + kind
	}
	return keyPrefix + typ + "." + group + "_" + kind
}

func TestParseKey(t *testing.T) {
	tests := []struct {
		key              string
		typ, group, kind string
		ok               bool
		errPart          string
	}{
		{"resource.customizations.health.cert-manager.io_Certificate", "health", "cert-manager.io", "Certificate", true, ""},
		{"resource.customizations.useOpenLibs.cert-manager.io_Certificate", "useOpenLibs", "cert-manager.io", "Certificate", true, ""},
		{"resource.customizations.health.Pod", "health", "", "Pod", true, ""},
		{"resource.customizations.health.all", "health", "*", "*", true, ""},
		{"resource.customizations.actions.apps_Deployment", "actions", "apps", "Deployment", true, ""},
		{"resource.customizations", "", "", "", false, ""},
		{"resource.customizations.health", "", "", "", false, ""},
		{"resource.exclusions", "", "", "", false, ""},
		{"url", "", "", "", false, ""},
		{"resource.customizations.health.a_b_C", "health", "", "", true, "group kind should be in format"},
		{"resource.customizations.health.", "health", "", "", true, "group kind should be in format"},
		{"resource.customizations.health._Pod", "health", "", "", true, "empty group"},
		{"resource.customizations.health.apps_", "health", "", "", true, "empty kind"},
		{"resource.customizations.helth.apps_Deployment", "helth", "", "", true, "not supported"},
	}
	for _, tc := range tests {
		typ, group, kind, ok, err := parseKey(tc.key)
		if typ != tc.typ || group != tc.group || kind != tc.kind || ok != tc.ok {
			t.Errorf("parseKey(%q) = %q, %q, %q, %v; want %q, %q, %q, %v", tc.key, typ, group, kind, ok, tc.typ, tc.group, tc.kind, tc.ok)
		}
		if (err != nil) != (tc.errPart != "") || err != nil && !strings.Contains(err.Error(), tc.errPart) {
			t.Errorf("parseKey(%q) error %v, want one containing %q", tc.key, err, tc.errPart)
		}
	}
}

// FuzzParseKey: parseKey never panics, accepts only keys under
// resource.customizations., and what it accepts formats back to a key that
// parses the same, with no "_" left in the group or kind.
func FuzzParseKey(f *testing.F) {
	for _, seed := range []string{
		"resource.customizations.health.cert-manager.io_Certificate",
		"resource.customizations.useOpenLibs.cert-manager.io_Certificate",
		"resource.customizations.health.Pod",
		"resource.customizations.health.all",
		"resource.customizations.health.*_*",
		"resource.customizations.health._Pod",
		"resource.customizations.health.a_b_c",
		"resource.customizations.ignoreDifferences.apps_Deployment",
		"resource.customizations",
		"resource.customizations..",
		"url",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, key string) {
		typ, group, kind, ok, err := parseKey(key)
		if !ok {
			if strings.HasPrefix(key, keyPrefix) && strings.Contains(strings.TrimPrefix(key, keyPrefix), ".") {
				t.Fatalf("parseKey(%q) skipped a resource.customizations.<type>.<x> key", key)
			}
			return
		}
		if !strings.HasPrefix(key, keyPrefix+typ+".") {
			t.Fatalf("parseKey(%q) type %q is not the key's third part", key, typ)
		}
		if err != nil {
			return
		}
		if kind == "" || strings.Contains(group, "_") || strings.Contains(kind, "_") {
			t.Fatalf("parseKey(%q) = group %q kind %q", key, group, kind)
		}
		again := formatKey(typ, group, kind)
		typ2, group2, kind2, ok2, err2 := parseKey(again)
		if !ok2 || err2 != nil || typ2 != typ || group2 != group || kind2 != kind {
			t.Fatalf("parseKey(%q) = %q %q %q; formatted %q parses as %q %q %q %v %v", key, typ, group, kind, again, typ2, group2, kind2, ok2, err2)
		}
		if again != key && !(group == "*" && kind == "*") {
			t.Fatalf("parseKey(%q) formats back as %q", key, again)
		}
	})
}
