package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/lab/scenarios"
)

// A fleet of two labs: the package's lab and TestWaitThroughAPIServerRestart's,
// as the contexts "main" and "second" of one kubeconfig, as a user with two
// clusters has them. fleetUp runs while both labs are up, fleetDown once the
// second is down.

// fleetKubeconfig writes one kubeconfig holding each lab's kubeconfig as a
// context of its own name (each lab names its context after itself, and
// both labs here are called "lab").
func fleetKubeconfig(t *testing.T, labs map[string]string) string {
	t.Helper()
	out := clientcmdapi.NewConfig()
	for name, path := range labs {
		cfg, err := clientcmd.LoadFromFile(path)
		if err != nil {
			t.Fatal(err)
		}
		c := cfg.Contexts[cfg.CurrentContext]
		out.Clusters[name] = cfg.Clusters[c.Cluster]
		out.AuthInfos[name] = cfg.AuthInfos[c.AuthInfo]
		out.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
		out.CurrentContext = name
	}
	path := filepath.Join(t.TempDir(), "fleet-kubeconfig")
	if err := clientcmd.WriteToFile(*out, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// fleetRun runs kubectl-chain ARGS -o json with the fleet's kubeconfig and
// decodes the list it prints.
func fleetRun(ctx context.Context, t *testing.T, kc string, args ...string) (chain.ReportList, int, string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, chainBin, append(args, "-o", "json", "--kubeconfig", kc)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	var l chain.ReportList
	if err := json.Unmarshal(stdout.Bytes(), &l); err != nil {
		t.Fatalf("%v: decoding the list: %v\nstdout:\n%s\nstderr:\n%s", args, err, stdout.String(), stderr.String())
	}
	return l, code, stderr.String()
}

// rowsByContext are a fleet report's rows, by context.
func rowsByContext(l chain.ReportList) map[string][]chain.Report {
	out := map[string][]chain.Report{}
	for _, r := range l.Items {
		out[r.Context] = append(out[r.Context], r)
	}
	return out
}

// fleetUp: with both labs up, the same namespace broken in one lab and
// healthy in the other is one report with a row per context and exit 1;
// -A over both reports every namespace of each; --wait over both contexts
// waits until each is healthy.
func fleetUp(ctx context.Context, t *testing.T, kc string, second kubernetes.Interface) {
	t.Helper()
	begin := time.Now()
	healthy, err := scenarios.Get("healthy")
	if err != nil {
		t.Fatal(err)
	}
	broken, err := scenarios.Get("image-not-found")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []struct {
		c  kubernetes.Interface
		sc scenarios.Scenario
		ns string
	}{{client, broken, "fleet-a"}, {second, healthy, "fleet-a"}, {client, healthy, "fleet-b"}, {second, healthy, "fleet-b"}} {
		if err := scenarios.Apply(ctx, a.c, a.sc, a.ns); err != nil {
			t.Fatal(err)
		}
	}
	// Both contexts healthy at fleet-b: the wait ends when both are.
	l, code, stderr := fleetRun(ctx, t, kc, "deploy/web", "-n", "fleet-b", "--context", "main,second", "--wait", "--timeout", "3m")
	rows := rowsByContext(l)
	if code != 0 || len(rows["main"]) != 1 || len(rows["second"]) != 1 || l.Health != chain.Healthy {
		t.Errorf("--wait over two contexts: exit %d, %+v; want 0, both healthy\n%s", code, rows, stderr)
	}
	// Costs: two contexts cost what each costs alone, read at once.
	var alone [2]int
	var took [3]time.Duration
	for i, c := range []string{"main", "second", "main,second"} {
		start := time.Now()
		l, _, _ := fleetRun(ctx, t, kc, "--all", "-n", "fleet-b", "--context", c)
		took[i] = time.Since(start)
		if i < 2 {
			alone[i] = l.Requests
		} else if l.Requests != alone[0]+alone[1] {
			t.Errorf("two contexts cost %d requests; main alone %d, second alone %d", l.Requests, alone[0], alone[1])
		}
	}
	t.Logf("fleet costs: main alone %d requests in %v, second alone %d in %v, both %d in %v (commands, process start included)",
		alone[0], took[0].Round(time.Millisecond), alone[1], took[1].Round(time.Millisecond), alone[0]+alone[1], took[2].Round(time.Millisecond))
	// fleet-a is broken in main and healthy in second; second is healthy
	// by now (its Deployment is the same as fleet-b's).
	l, code, stderr = fleetRun(ctx, t, kc, "--all", "-n", "fleet-a", "--context", "main,second", "--wait", "--timeout", "3m")
	rows = rowsByContext(l)
	if code != 1 || len(rows["main"]) != 1 || rows["main"][0].Verdict.Cause != "ImageNotFound" || len(rows["second"]) != 1 {
		t.Errorf("--all over two contexts: exit %d, %+v; want 1, main broken (ImageNotFound), second's row\n%s", code, rows, stderr)
	}
	// -A: every namespace of each lab, each row naming its context.
	l, code, stderr = fleetRun(ctx, t, kc, "-A", "--all-contexts")
	rows = rowsByContext(l)
	if code != 1 || len(rows["main"]) < 2 || len(rows["second"]) < 2 || len(rows) != 2 {
		t.Errorf("-A --all-contexts: exit %d, %d rows of main, %d of second; want 1 and both labs' workloads\n%s", code, len(rows["main"]), len(rows["second"]), stderr)
	}
	t.Logf("fleet with both labs up: %v", time.Since(begin).Round(time.Second))
}

// fleetDown: with the second lab down, its context is a row that says it
// could not be read (exit 6), and main is judged all the same.
func fleetDown(ctx context.Context, t *testing.T, kc string) {
	t.Helper()
	l, code, stderr := fleetRun(ctx, t, kc, "--all", "-n", "fleet-b", "--context", "main,second", "--request-timeout", "10s")
	rows := rowsByContext(l)
	if code != 6 || len(rows["main"]) != 1 || rows["main"][0].Verdict.Health != chain.Healthy ||
		len(rows["second"]) != 1 || rows["second"][0].Error == nil || rows["second"][0].Error.Exit != 6 {
		t.Errorf("one lab down: exit %d, %+v; want 6, main healthy and second's row exit 6\n%s", code, rows, stderr)
	}
	if !strings.Contains(stderr, "context second: ") {
		t.Errorf("stderr names no context not read:\n%s", stderr)
	}
}

// alertmanagerBin and prometheusBin are Debian's (.ci/run installs them).
const (
	prometheusBin   = "prometheus"
	alertmanagerBin = "prometheus-alertmanager"
)

// webhookAlert is one alert as Alertmanager's webhook sends it.
type webhookAlert struct {
	Status      string            `json:"status"`
	Labels      map[string]string `json:"labels"`
	Fingerprint string            `json:"fingerprint"`
}

// fleetAlerts: serve watches namespace fleet-alert in each lab; a real
// Prometheus scrapes both (each target labelled with its cluster, as a
// fleet's scrape configuration gives it) and evaluates the rules serve
// rules prints; a real Alertmanager routes to a webhook of this test. The
// namespace broken in the second lab fires exactly one alert, naming the
// cluster, namespace, workload, link and cause; fixing it resolves it.
func fleetAlerts(ctx context.Context, t *testing.T, secondKubeconfig string, second kubernetes.Interface) {
	t.Helper()
	begin := time.Now()
	for _, bin := range []string{prometheusBin, alertmanagerBin} {
		if _, err := exec.LookPath(bin); err != nil {
			if os.Getenv("KUBECTL_CHAIN_CI") != "" {
				t.Fatalf("%s is not installed: .ci/run installs Debian's prometheus and prometheus-alertmanager", bin)
			}
			t.Logf("SKIP the fleet's alerts: %s is not installed (apt-get install prometheus prometheus-alertmanager)", bin)
			return
		}
	}
	healthy, _ := scenarios.Get("healthy")
	broken, _ := scenarios.Get("image-not-found")
	if err := scenarios.Apply(ctx, client, healthy, "fleet-alert"); err != nil {
		t.Fatal(err)
	}
	if err := scenarios.Apply(ctx, second, broken, "fleet-alert"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// The webhook receiver.
	var (
		mu       sync.Mutex
		received []webhookAlert
	)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var msg struct {
			Alerts []webhookAlert `json:"alerts"`
		}
		if err := json.NewDecoder(r.Body).Decode(&msg); err == nil {
			mu.Lock()
			received = append(received, msg.Alerts...)
			mu.Unlock()
		}
	}))
	defer hook.Close()
	// A watcher per lab.
	targets := map[string]string{}
	for name, kc := range map[string]string{"main": kubeconfig, "second": secondKubeconfig} {
		addr := freeAddr(t)
		defer startLogged(ctx, t, "serve in "+name, chainBin, "serve", "--namespaces", "fleet-alert", "--listen", addr, "--resync", "2s", "--grace", "5s", "--kubeconfig", kc)()
		targets[name] = addr
	}
	rules, err := exec.Command(chainBin, "serve", "rules", "--for", "5s", "--down", "1m").Output()
	if err != nil {
		t.Fatal(err)
	}
	amAddr, promAddr := freeAddr(t), freeAddr(t)
	files := map[string]string{
		"rules.yml": string(rules),
		"alertmanager.yml": `route:
  receiver: hook
  group_by: [alertname, cluster, namespace, name]
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
receivers:
- name: hook
  webhook_configs: [{url: "` + hook.URL + `", send_resolved: true}]
`,
		"prometheus.yml": `global: {scrape_interval: 1s, evaluation_interval: 1s}
rule_files: [rules.yml]
alerting:
  alertmanagers: [{static_configs: [{targets: ["` + amAddr + `"]}]}]
scrape_configs:
- job_name: kubectl-chain
  static_configs:
  - {targets: ["` + targets["main"] + `"], labels: {cluster: main}}
  - {targets: ["` + targets["second"] + `"], labels: {cluster: second}}
`,
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{alertmanagerBin, "--config.file", filepath.Join(dir, "alertmanager.yml"), "--storage.path", filepath.Join(dir, "am"),
			"--web.listen-address", amAddr, "--cluster.listen-address", ""},
		{prometheusBin, "--config.file", filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path", filepath.Join(dir, "prom"),
			"--web.listen-address", promAddr},
	} {
		defer startLogged(ctx, t, args[0], args...)()
	}
	// firing and resolved are the WorkloadBroken alerts received so far.
	seen := func(status string) []webhookAlert {
		mu.Lock()
		defer mu.Unlock()
		var out []webhookAlert
		for _, a := range received {
			if a.Labels["alertname"] == "WorkloadBroken" && a.Status == status {
				out = append(out, a)
			}
		}
		return out
	}
	deadline := time.Now().Add(3 * time.Minute)
	for len(seen("firing")) == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Second)
	}
	firing := seen("firing")
	fingerprints := map[string]bool{}
	for _, a := range firing {
		fingerprints[a.Fingerprint] = true
	}
	if len(firing) == 0 || len(fingerprints) != 1 {
		t.Fatalf("WorkloadBroken alerts: %+v; want exactly one, of the second lab", firing)
	}
	want := map[string]string{"cluster": "second", "namespace": "fleet-alert", "kind": "Deployment", "name": "web", "link": "containers", "cause": "ImageNotFound"}
	for k, v := range want {
		if firing[0].Labels[k] != v {
			t.Errorf("the alert's %s is %q, want %q (labels %v)", k, firing[0].Labels[k], v, firing[0].Labels)
		}
	}
	t.Logf("the alert fired %v after the scenarios were applied", time.Since(begin).Round(time.Second))
	// The fix: the image the healthy lab runs.
	good, err := client.AppsV1().Deployments("fleet-alert").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := second.AppsV1().Deployments("fleet-alert").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d.Spec.Template.Spec.Containers[0].Image = good.Spec.Template.Spec.Containers[0].Image
	if _, err := second.AppsV1().Deployments("fleet-alert").Update(ctx, d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	fixed := time.Now()
	deadline = time.Now().Add(3 * time.Minute)
	for len(seen("resolved")) == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Second)
	}
	if r := seen("resolved"); len(r) == 0 || r[0].Fingerprint != firing[0].Fingerprint {
		t.Fatalf("resolved: %+v; want the alert that fired resolved once the image is fixed", r)
	}
	t.Logf("the alert resolved %v after the fix", time.Since(fixed).Round(time.Second))
}

// startLogged starts a program in the background and returns what stops
// it; its output is logged, as what, when the test failed.
func startLogged(ctx context.Context, t *testing.T, what string, args ...string) func() {
	t.Helper()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("%s:\n%s", what, out.String())
		}
	}
}
