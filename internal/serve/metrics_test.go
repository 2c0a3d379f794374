package serve

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

func report(ns, name string, h chain.Health, link chain.LinkID, cause chain.CauseID) chain.Report {
	return chain.Report{Kind: chain.KindDeployment, Namespace: ns, Name: name,
		Verdict: chain.Verdict{Health: h, Link: link, Cause: cause}}
}

func scrape(t *testing.T, h http.Handler, path string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	b, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, string(b)
}

// TestMetrics: a broken workload is health 1 with one info series naming
// its link and cause; healed, the info series goes and health is 0; a
// deleted workload loses its series; /readyz answers once judged.
func TestMetrics(t *testing.T) {
	m := NewMetrics()
	h := m.Handler()
	if code, _ := scrape(t, h, "/readyz"); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz before the first judgement: %d, want 503", code)
	}
	t0 := time.Unix(1764920000, 0)
	changes := m.Update([]chain.Report{
		report("shop", "web", chain.Broken, chain.LinkContainers, "ImageNotFound"),
		report("shop", "api", chain.Healthy, "", ""),
	}, t0)
	if len(changes) != 2 {
		t.Errorf("first judgement: %d changes, want 2", len(changes))
	}
	_, text := scrape(t, h, "/metrics")
	for _, want := range []string{
		`kubectl_chain_workload_health{kind="Deployment",name="web",namespace="shop"} 1`,
		`kubectl_chain_workload_health{kind="Deployment",name="api",namespace="shop"} 0`,
		`kubectl_chain_workload_broken_info{cause="ImageNotFound",kind="Deployment",link="containers",name="web",namespace="shop"} 1`,
		`kubectl_chain_workload_verdict_changed_timestamp_seconds{kind="Deployment",name="web",namespace="shop"} 1.76492e+09`,
		`kubectl_chain_judgements_total 1`,
		`go_goroutines`, `process_resident_memory_bytes`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if strings.Count(text, "kubectl_chain_workload_broken_info{") != 1 {
		t.Errorf("one broken info series expected:\n%s", text)
	}
	if code, _ := scrape(t, h, "/readyz"); code != http.StatusOK {
		t.Errorf("/readyz after a judgement: %d", code)
	}
	// Unchanged: no change, the timestamp stays.
	if c := m.Update([]chain.Report{report("shop", "web", chain.Broken, chain.LinkContainers, "ImageNotFound"), report("shop", "api", chain.Healthy, "", "")}, t0.Add(time.Minute)); len(c) != 0 {
		t.Errorf("same verdicts: %d changes", len(c))
	}
	// web heals, api is deleted.
	c := m.Update([]chain.Report{report("shop", "web", chain.Healthy, "", "")}, t0.Add(2*time.Minute))
	if len(c) != 1 || c[0].From.Health != chain.Broken || c[0].To.Health != chain.Healthy {
		t.Errorf("healing: %+v", c)
	}
	_, text = scrape(t, h, "/metrics")
	if strings.Contains(text, "kubectl_chain_workload_broken_info{") || strings.Contains(text, `name="api"`) ||
		!strings.Contains(text, `kubectl_chain_workload_health{kind="Deployment",name="web",namespace="shop"} 0`) {
		t.Errorf("after healing and deletion:\n%s", text)
	}
	if code, body := scrape(t, h, "/healthz"); code != http.StatusOK || body != "ok\n" {
		t.Errorf("/healthz: %d %q", code, body)
	}
}
