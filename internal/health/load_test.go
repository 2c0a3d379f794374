package health

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// overrideLua is a user check that disagrees with every built-in one.
const overrideLua = `return {status = "Degraded", message = "user check for " .. obj.kind}`

// TestLoadForms loads the three forms Argo CD users keep their checks in and
// checks, on the real cert-manager fixture whose built-in verdict is
// Healthy, that the user's check wins over the built-in one.
func TestLoadForms(t *testing.T) {
	cert := fixture(t, "cert-manager.io/Certificate/testdata/healthy_issued.yaml")
	base, _, err := Builtin().Check(decodeFixture(t, cert))
	if err != nil || base.Status != Healthy {
		t.Fatalf("built-in verdict %+v, %v; want Healthy", base, err)
	}
	folder := t.TempDir()
	writeFile(t, folder, "cert-manager.io/Certificate/health.lua", overrideLua)
	writeFile(t, folder, "cert-manager.io/Certificate/health_test.yaml", "tests: []\n")

	tests := []struct {
		name         string
		path         string
		script       string // Result.Script, after the path
		coversIssuer bool   // the user's check also covers cert-manager.io/Issuer
	}{
		{"per-kind key", writeConfigMap(t, map[string]any{
			"resource.customizations.health.cert-manager.io_Certificate": overrideLua,
			"resource.customizations.ignoreDifferences.apps_Deployment":  "jsonPointers: [/spec/replicas]",
			"url": "https://argocd.example.com",
		}), " (key resource.customizations.health.cert-manager.io_Certificate)", false},
		{"single key", writeConfigMap(t, map[string]any{
			"resource.customizations": "cert-manager.io/Certificate:\n  health.lua: |\n    " + overrideLua + "\n",
		}), " (key resource.customizations, entry cert-manager.io/Certificate)", false},
		{"single key, wildcard entry", writeConfigMap(t, map[string]any{
			"resource.customizations": "\"cert-manager.io/*\":\n  health.lua: |\n    " + overrideLua + "\n",
		}), " (key resource.customizations, entry cert-manager.io/*)", true},
		{"per-kind key wins over single key", writeConfigMap(t, map[string]any{
			"resource.customizations":                                    "cert-manager.io/Certificate:\n  health.lua: |\n    return {status = \"Healthy\"}\n",
			"resource.customizations.health.cert-manager.io_Certificate": overrideLua,
		}), " (key resource.customizations.health.cert-manager.io_Certificate)", false},
		{"folder", folder, "/cert-manager.io/Certificate/health.lua", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			user, err := Load(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			cat := user.Over(Builtin())
			res, ok, err := cat.Check(decodeFixture(t, cert))
			if !ok || err != nil {
				t.Fatalf("ok=%v err=%v", ok, err)
			}
			want := Result{Status: Degraded, Message: "user check for Certificate", Script: tc.path + tc.script}
			if res != want {
				t.Fatalf("got %+v, want %+v", res, want)
			}
			// Kinds the user did not cover still get Argo CD's check.
			issuer := fixture(t, "cert-manager.io/Issuer/testdata/healthy_registered.yaml")
			res, ok, err = cat.Check(decodeFixture(t, issuer))
			want = Result{Status: issuer.Status, Message: issuer.Message, Script: "argo-cd " + Version() + " cert-manager.io/Issuer/health.lua"}
			if tc.coversIssuer {
				want = Result{Status: Degraded, Message: "user check for Issuer", Script: tc.path + tc.script}
			}
			if !ok || err != nil || res != want {
				t.Fatalf("Issuer: got %+v ok=%v err=%v, want %+v", res, ok, err, want)
			}
		})
	}
}

// TestLoadKeys checks the key forms that reach other kinds: a core kind, the
// "all" key, a wildcard over a built-in wildcard folder, and useOpenLibs.
func TestLoadKeys(t *testing.T) {
	path := writeConfigMap(t, map[string]any{
		"resource.customizations.health.Pod":                 `return {status = "Suspended", message = "core " .. obj.kind}`,
		"resource.customizations.health.all":                 `return {status = "Missing", message = "all " .. obj.kind}`,
		"resource.customizations":                            "\"*.aws.crossplane.io/*\":\n  health.lua: |\n    return {status = \"Progressing\", message = \"aws \" .. obj.kind}\n",
		"resource.customizations.health.lib.test_Strict":     `return {status = "Healthy", message = string.lower("X")}`,
		"resource.customizations.health.lib.test_Open":       `return {status = "Healthy", message = string.lower("X")}`,
		"resource.customizations.useOpenLibs.lib.test_Open":  true, // unquoted, as in Argo CD's docs
		"resource.customizations.useOpenLibs.lib.test_Other": "false",
	})
	user, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	cat := user.Over(Builtin())
	tests := []struct {
		apiVersion, kind string
		status           Status
		message          string
		errPart          string
	}{
		{"v1", "Pod", Suspended, "core Pod", ""},
		{"v1", "Service", "", "", ""}, // "all" is */*: no core kind
		{"apps/v1", "Deployment", Missing, "all Deployment", ""},
		// exact user key beats the user wildcard...
		{"lib.test/v1", "Open", Healthy, "x", ""},
		// ...and the user's wildcards are tried in sorted order: "*.aws..." < "*/*".
		{"ec2.aws.crossplane.io/v1", "VPC", Progressing, "aws VPC", ""},
		{"lib.test/v1", "Strict", "", "", "non-table object(nil) with key 'lower'"},
	}
	for _, tc := range tests {
		t.Run(tc.apiVersion+" "+tc.kind, func(t *testing.T) {
			res, ok, err := cat.Check(object(tc.apiVersion, tc.kind, nil))
			if tc.errPart != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errPart) {
					t.Fatalf("err = %v, want one containing %q", err, tc.errPart)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ok != (tc.status != "") || res.Status != tc.status || res.Message != tc.message {
				t.Fatalf("got %+v ok=%v, want %s %q", res, ok, tc.status, tc.message)
			}
		})
	}
}

// TestLoadErrors checks that every bad input is refused at load time with
// a message that says which file, which key and which line.
func TestLoadErrors(t *testing.T) {
	badLua := "hs = {}\nif obj.status ~= nil then\n  hs.status = = \"Healthy\"\nend\nreturn hs\n"
	badFolder := t.TempDir()
	writeFile(t, badFolder, "example.com/Widget/health.lua", badLua)
	dir := t.TempDir()
	tests := []struct {
		name  string
		path  string
		parts []string
		is    error
	}{
		{"syntax error in a per-kind key", writeConfigMap(t, map[string]any{
			"resource.customizations.health.cert-manager.io_Certificate": badLua,
		}), []string{"health check cert-manager.io/Certificate in ", "argocd-cm.yaml (key resource.customizations.health.cert-manager.io_Certificate): line 3: "}, nil},
		{"syntax error in the single key", writeConfigMap(t, map[string]any{
			"resource.customizations": "cert-manager.io/Certificate:\n  health.lua: |\n" + indent(badLua, "    "),
		}), []string{"argocd-cm.yaml (key resource.customizations, entry cert-manager.io/Certificate): line 3: "}, nil},
		{"syntax error in a folder", badFolder, []string{filepath.Join(badFolder, "example.com/Widget/health.lua") + ": line 3: "}, nil},
		{"unfinished script", writeConfigMap(t, map[string]any{
			"resource.customizations.health.a.io_B": "if true then\n",
		}), []string{"(key resource.customizations.health.a.io_B): at end of script"}, nil},
		{"two underscores", writeConfigMap(t, map[string]any{
			"resource.customizations.health.a_b_C": "return {}",
		}), []string{"(key resource.customizations.health.a_b_C): group kind should be in format"}, nil},
		{"unknown type", writeConfigMap(t, map[string]any{
			"resource.customizations.healthy.a.io_B": "return {}",
		}), []string{`type "healthy" not supported`}, nil},
		{"useOpenLibs not a bool", writeConfigMap(t, map[string]any{
			"resource.customizations.health.a.io_B":      "return {}",
			"resource.customizations.useOpenLibs.a.io_B": "yes please",
		}), []string{"(key resource.customizations.useOpenLibs.a.io_B)", "invalid syntax"}, nil},
		{"no health checks", writeConfigMap(t, map[string]any{"url": "https://argocd.example.com"}),
			[]string{`ConfigMap "argocd-cm" has no health checks`, "expected an argocd-cm ConfigMap"}, nil},
		{"a Deployment", writeFile(t, dir, "deploy.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"),
			[]string{"deploy.yaml: no ConfigMap in this file (found kind Deployment)", "expected an argocd-cm ConfigMap", "or a folder of <group>/<Kind>/health.lua"}, errNoConfigMap},
		{"a Lua file", writeFile(t, dir, "health.lua", badLua),
			[]string{"health.lua: not a YAML object", "expected an argocd-cm ConfigMap"}, nil},
		{"a binary file", writeFile(t, dir, "kubectl-chain", "\x7fELF\x02\x01\x01\x00\x00"),
			[]string{"kubectl-chain: a binary file, not YAML", "expected an argocd-cm ConfigMap"}, nil},
		{"two ConfigMaps, no argocd-cm", writeFile(t, dir, "two.yaml", "kind: ConfigMap\nmetadata: {name: a}\n---\nkind: ConfigMap\nmetadata: {name: b}\n"),
			[]string{"2 ConfigMaps and none named argocd-cm"}, nil},
		{"empty folder", t.TempDir(), []string{"no health checks in this folder: expected <group>/<Kind>/health.lua"}, nil},
		{"missing path", filepath.Join(dir, "nope.yaml"), []string{"nope.yaml"}, fs.ErrNotExist},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cat, err := Load(tc.path)
			if err == nil {
				t.Fatalf("loaded %+v, want an error", cat)
			}
			t.Log(err)
			for _, part := range tc.parts {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("error %q does not contain %q", err, part)
				}
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %q does not wrap %v", err, tc.is)
			}
			if err.Error() != strings.ToLower(err.Error()[:1])+err.Error()[1:] && !strings.HasPrefix(err.Error(), "/") {
				t.Errorf("error %q starts with a capital", err)
			}
		})
	}
}

// TestLoadPicksArgoCDConfigMap: several documents, or a List, still load
// when one ConfigMap is named argocd-cm.
func TestLoadPicksArgoCDConfigMap(t *testing.T) {
	dir := t.TempDir()
	script := "      return {status = \"Healthy\", message = \"picked\"}\n"
	for name, content := range map[string]string{
		"multi.yaml": "kind: ConfigMap\nmetadata: {name: other}\ndata: {x: y}\n---\n# argo\nkind: ConfigMap\nmetadata: {name: argocd-cm}\ndata:\n  resource.customizations.health.a.io_B: |\n" + script[2:],
		"list.yaml":  "apiVersion: v1\nkind: List\nitems:\n- kind: ConfigMap\n  metadata: {name: argocd-cm}\n  data:\n    resource.customizations.health.a.io_B: |\n" + script,
	} {
		t.Run(name, func(t *testing.T) {
			cat, err := Load(writeFile(t, dir, name, content))
			if err != nil {
				t.Fatal(err)
			}
			res, ok, err := cat.Check(object("a.io/v1", "B", nil))
			if !ok || err != nil || res.Message != "picked" {
				t.Fatalf("got %+v ok=%v err=%v", res, ok, err)
			}
		})
	}
}

func indent(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "")
}
