package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
	"github.com/kubectl-chain/kubectl-chain/internal/golden"
	"github.com/kubectl-chain/kubectl-chain/internal/health"
)

// TestCatalogueFixtures walks every object of the fixtures Argo CD keeps
// beside its health checks (every health_test.yaml of the catalogue
// module) exactly as a user would: `kubectl chain KIND.GROUP/NAME -f
// OBJECT -o json`, with no cluster. A gate must not pass what the kind's
// community calls Degraded or still Progressing, and must pass what it
// calls Healthy. It prints the table docs/chain.md shows.
func TestCatalogueFixtures(t *testing.T) {
	fixtures, err := health.Fixtures()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Setenv("KUBECONFIG", filepath.Join(dir, "none")) // no cluster, no lab: -f alone
	type tally struct{ total, right int }
	table, ks := map[health.Status]map[string]int{}, map[health.Status]map[string]int{}
	goal := map[health.Status]*tally{}
	var wrong []string
	for i, fx := range fixtures {
		var meta struct {
			Metadata struct{ Name string } `json:"metadata"`
		}
		if err := yaml.Unmarshal(fx.Object, &meta); err != nil {
			t.Fatalf("%s: %v", fx.InputPath, err)
		}
		data := fx.Object
		if meta.Metadata.Name == "" {
			// Some fixtures leave out metadata.name, which no object in a
			// cluster lacks; it has no part in any check.
			meta.Metadata.Name = "unnamed"
			var obj map[string]any
			if err := yaml.Unmarshal(data, &obj); err != nil {
				t.Fatalf("%s: %v", fx.InputPath, err)
			}
			md, _ := obj["metadata"].(map[string]any)
			if md == nil {
				md = map[string]any{}
				obj["metadata"] = md
			}
			md["name"] = meta.Metadata.Name
			if data, err = yaml.Marshal(obj); err != nil {
				t.Fatal(err)
			}
		}
		file := filepath.Join(dir, fmt.Sprintf("%d.yaml", i))
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		typ := strings.ToLower(fx.Kind)
		if fx.Group != "" {
			typ += "." + fx.Group
		}
		if ks[fx.Status] == nil {
			ks[fx.Status] = map[string]int{}
		}
		ks[fx.Status][kstatusAlone(data)]++
		res := runWith(t, nil, typ+"/"+meta.Metadata.Name, "-f", file, "-o", "json")
		got := "cannot walk"
		var rep chain.Report
		if res.code != 4 && res.code != 5 && json.Unmarshal([]byte(res.stdout), &rep) == nil && rep.Verdict.Health != "" {
			got = string(rep.Verdict.Health)
			golden.NextSteps(t, fx.InputPath, &rep)
		}
		if table[fx.Status] == nil {
			table[fx.Status] = map[string]int{}
		}
		table[fx.Status][got]++
		g := goal[fx.Status]
		if g == nil {
			g = &tally{}
			goal[fx.Status] = g
		}
		g.total++
		ok := false
		switch fx.Status {
		case health.Healthy:
			ok = got == string(chain.Healthy)
		case health.Degraded, health.Suspended:
			ok = got == string(chain.Broken)
		case health.Progressing:
			ok = got == string(chain.Progressing)
		default: // Missing, Unknown: anything but healthy
			ok = got != string(chain.Healthy) && got != "cannot walk"
		}
		why, excepted := exceptions[fx.InputPath]
		switch {
		case ok && excepted:
			t.Errorf("%s is judged as Argo CD judges it now: take it out of exceptions", fx.InputPath)
		case ok:
			g.right++
		case excepted:
			t.Logf("exception: %s (%s): Argo CD %s, kubectl chain %s: %s", fx.InputPath, typ, fx.Status, got, why)
		default:
			wrong = append(wrong, fmt.Sprintf("%s (%s): Argo CD %s, kubectl chain %s; exit %d %s", fx.InputPath, typ, fx.Status, got, res.code, firstLine([]byte(res.stderr))))
		}
	}
	var rows, ksRows []string
	for _, st := range []health.Status{health.Degraded, health.Progressing, health.Healthy, health.Suspended, health.Missing, health.Unknown} {
		g := goal[st]
		if g == nil {
			continue
		}
		rows = append(rows, fmt.Sprintf("%-11s %4d  right %4d (%.1f%%)  %s", st, g.total, g.right, 100*float64(g.right)/float64(g.total), cells(table[st])))
		ksRows = append(ksRows, fmt.Sprintf("%-11s %4d  %s", st, g.total, cells(ks[st])))
	}
	t.Logf("Argo CD's catalogue %s, %d fixtures walked with -f:\n%s\nkstatus alone on the same objects:\n%s",
		health.Version(), len(fixtures), strings.Join(rows, "\n"), strings.Join(ksRows, "\n"))
	// Every fixture is judged as its community judges it, or is one of
	// the exceptions, each with its reason; none cannot be walked.
	for _, w := range wrong {
		t.Error(w)
	}
	for st, g := range goal {
		if st != health.Missing && st != health.Unknown && float64(g.right) < 0.99*float64(g.total) {
			t.Errorf("%s: %d of %d judged as Argo CD judges them, under 99%%", st, g.right, g.total)
		}
	}
	for _, st := range []health.Status{health.Degraded, health.Suspended, health.Progressing} {
		if n := table[st][string(chain.Healthy)]; n > 0 {
			t.Errorf("%d %s fixtures called healthy: a gate would pass them", n, st)
		}
	}
}

// exceptions are the fixtures kubectl chain judges otherwise than Argo CD,
// on purpose, with why (docs/chain.md lists them).
var exceptions = map[string]string{
	"batch/CronJob/testdata/suspended.yaml": "a suspended CronJob runs nothing until a person resumes it: broken (CronJobSuspended), " +
		"as a paused Deployment; Argo CD's own check calls it Healthy only until its issue 24428 is fixed, Suspended being meant",
	"batch/CronJob/testdata/never-scheduled.yaml": "a CronJob whose first scheduled time has not come is progressing (CronJobNotScheduledYet), " +
		"which a gate waits on for one period; Argo CD passes it",
}

// cells prints a tally as "broken 3, healthy 1", sorted.
func cells(m map[string]int) string {
	var out []string
	for w, n := range m {
		out = append(out, fmt.Sprintf("%s %d", w, n))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// kstatusAlone is kstatus's reading of an object, as the gates built on it
// (Flux, kpt, Helm 4's waits) judge it.
func kstatusAlone(data []byte) string {
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return "cannot read"
	}
	var u unstructured.Unstructured
	if err := u.UnmarshalJSON(js); err != nil {
		return "cannot read"
	}
	res, err := status.Compute(&u)
	if err != nil {
		return "error"
	}
	return string(res.Status)
}

// TestHealthChecksFlag: a user's own check, kept as Argo CD users keep it
// in argocd-cm, changes the verdict; bad Lua is one clear line naming the
// file, key and line, with the usage exit code.
func TestHealthChecksFlag(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("KUBECONFIG", filepath.Join(dir, "none"))
	cert := filepath.Join(dir, "cert.yaml")
	if err := os.WriteFile(cert, []byte(`apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: web-tls, namespace: shop, creationTimestamp: "2026-11-30T09:00:00Z"}
spec: {secretName: web-tls, issuerRef: {name: letsencrypt}}
status:
  conditions:
  - {type: Ready, status: "True", reason: Ready, message: Certificate is up to date and has not expired}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runWith(t, nil, "certificate.cert-manager.io/web-tls", "-f", cert); r.code != 0 {
		t.Fatalf("Argo CD's check: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	cm := filepath.Join(dir, "argocd-cm.yaml")
	if err := os.WriteFile(cm, []byte(`apiVersion: v1
kind: ConfigMap
metadata: {name: argocd-cm, namespace: argocd}
data:
  resource.customizations.health.cert-manager.io_Certificate: |
    return {status = "Degraded", message = "our rule: every certificate is renewed by hand"}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runWith(t, nil, "certificate.cert-manager.io/web-tls", "-f", cert, "--health-checks", cm)
	if r.code != 1 || !strings.Contains(r.stdout, "our rule: every certificate is renewed by hand") || !strings.Contains(r.stdout, string(decode.HealthDegraded)) {
		t.Errorf("with the user's check: exit %d, want 1 quoting it\n%s%s", r.code, r.stdout, r.stderr)
	}
	// The MCP server's calls take the mcp command's --health-checks.
	if rep, text := mcpDiagnose(t, (&Options{HealthChecks: cm}).mcpConfig(), map[string]any{"target": "certificate.cert-manager.io/web-tls", "file": cert}); rep.Verdict.Health != chain.Broken || !strings.Contains(text, "our rule: every certificate is renewed by hand") {
		t.Errorf("an MCP call with --health-checks: %s\n%s", rep.Verdict.Health, text)
	}
	if r := runWith(t, nil, "mcp", "--health-checks", filepath.Join(dir, "missing.yaml")); r.code != 4 || !strings.Contains(r.stderr, "missing.yaml") {
		t.Errorf("mcp with a missing --health-checks file: exit %d, want 4 naming it; stderr:\n%s", r.code, r.stderr)
	}
	// Every front that judges loads them: serve and capture too, which
	// once ignored the flag.
	for _, args := range [][]string{{"serve"}, {"capture", "deploy/web"}} {
		if r := runWith(t, nil, append(args, "--health-checks", filepath.Join(dir, "missing.yaml"))...); r.code != 4 || !strings.Contains(r.stderr, "missing.yaml") {
			t.Errorf("%s with a missing --health-checks file: exit %d, want 4 naming it; stderr:\n%s", args[0], r.code, r.stderr)
		}
	}
	if err := os.WriteFile(cm, []byte(`apiVersion: v1
kind: ConfigMap
metadata: {name: argocd-cm}
data:
  resource.customizations.health.cert-manager.io_Certificate: |
    hs = {}
    hs.status = = "Healthy"
    return hs
`), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runWith(t, nil, "certificate.cert-manager.io/web-tls", "-f", cert, "--health-checks", cm)
	if r.code != 4 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || !strings.Contains(r.stderr, cm) ||
		!strings.Contains(r.stderr, "resource.customizations.health.cert-manager.io_Certificate") || !strings.Contains(r.stderr, "line 2") {
		t.Errorf("bad Lua: exit %d, want 4 and one line naming the file, key and line; stderr:\n%s", r.code, r.stderr)
	}
	r = runWith(t, nil, "certificate.cert-manager.io/web-tls", "-f", cert, "--health-checks", filepath.Join(dir, "missing.yaml"))
	if r.code != 4 || !strings.Contains(r.stderr, "missing.yaml") {
		t.Errorf("a missing file: exit %d, want 4 naming it; stderr:\n%s", r.code, r.stderr)
	}
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return s
}
