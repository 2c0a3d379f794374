package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-chain/kubectl-chain/chain"
	chaindiagnose "github.com/kubectl-chain/kubectl-chain/diagnose"
	"github.com/kubectl-chain/kubectl-chain/internal/capture"
	"github.com/kubectl-chain/kubectl-chain/lab/fill"
	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

// capturesDir holds the captures lab fill copies.
var capturesDir = filepath.Join("..", "..", "testdata", "captures")

// bigCluster is a frozen lab that lab fill wrote a cluster into, reached
// through a proxy that counts the bytes the API server sends.
type bigCluster struct {
	dir        string
	kubeconfig string // through the proxy
	plan       fill.Plan
	client     kubernetes.Interface
	proxy      *countingProxy
}

// startBigCluster starts a frozen lab of its own and fills it with spec
// (the lab fill command, as a user runs it). KUBECTL_CHAIN_BIG_LAB names
// the state directory of a frozen lab already filled with spec instead,
// to measure again without filling again.
func startBigCluster(ctx context.Context, tb testing.TB, spec fill.Spec) *bigCluster {
	tb.Helper()
	plan, err := fill.NewPlan(spec)
	if err != nil {
		tb.Fatal(err)
	}
	if dir := os.Getenv("KUBECTL_CHAIN_BIG_LAB"); dir != "" {
		return connect(tb, dir, plan)
	}
	dir := filepath.Join(tb.TempDir(), "big")
	if err := startReaper(dir, dir); err != nil {
		tb.Fatal(err)
	}
	if out, err := labAt(dir, "up", "--frozen"); err != nil {
		tb.Fatalf("lab up --frozen: %v\n%s", err, out)
	}
	tb.Cleanup(func() {
		if out, err := labAt(dir, "down"); err != nil {
			tb.Errorf("lab down: %v\n%s", err, out)
		}
	})
	start := time.Now()
	out, err := labAt(dir, "fill", "--seed", strconv.FormatUint(spec.Seed, 10),
		"--namespaces", strconv.Itoa(spec.Namespaces), "--deployments", strconv.Itoa(spec.Deployments),
		"--broken", strconv.Itoa(spec.Broken), "--pods", strconv.Itoa(spec.Pods), "--events", strconv.Itoa(spec.Events),
		"--big", strconv.Itoa(spec.Big), "--big-broken", strconv.Itoa(spec.BigBroken), "--templates", capturesDir)
	if err != nil {
		tb.Fatalf("lab fill: %v\n%s", err, out)
	}
	tb.Logf("lab fill in %.0fs: %s", time.Since(start).Seconds(), firstLine(out))
	return connect(tb, dir, plan)
}

func connect(tb testing.TB, dir string, plan fill.Plan) *bigCluster {
	kc, err := labAt(dir, "kubeconfig")
	if err != nil {
		tb.Fatal(err)
	}
	c := &bigCluster{dir: dir, plan: plan, client: clientFor(tb, strings.TrimSpace(kc), 200)}
	c.proxy, c.kubeconfig = proxied(tb, strings.TrimSpace(kc))
	return c
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "Wrote") {
			return l
		}
	}
	return s
}

// countingProxy forwards TCP to the API server and counts the bytes it
// sends back: what a command read, on the wire (TLS and gzip included).
type countingProxy struct {
	addr string
	down atomic.Int64
}

// countingWriter adds what it writes to n as it goes.
type countingWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (c countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n.Add(int64(n))
	return n, err
}

// proxied starts a proxy to the API server of kubeconfig kc and writes a
// kubeconfig that goes through it.
func proxied(tb testing.TB, kc string) (*countingProxy, string) {
	cfg, err := clientcmd.LoadFromFile(kc)
	if err != nil {
		tb.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { l.Close() })
	p := &countingProxy{addr: l.Addr().String()}
	var target string
	for _, c := range cfg.Clusters {
		target = strings.TrimPrefix(c.Server, "https://")
		c.Server = "https://" + p.addr
	}
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				up, err := net.Dial("tcp", target)
				if err != nil {
					return
				}
				defer up.Close()
				go func() { _, _ = io.Copy(up, conn) }()
				_, _ = io.Copy(countingWriter{conn, &p.down}, up)
			}()
		}
	}()
	path := filepath.Join(tb.TempDir(), "proxied.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		tb.Fatal(err)
	}
	return p, path
}

// cost is what one command cost: wall time, its peak resident memory, and
// what the API server saw of it (requests from the audit log, by verb) and
// sent it.
type cost struct {
	wall     time.Duration
	rssMB    float64
	requests map[string]int
	bytes    int64
	code     int
	out      []byte
}

func (u cost) total() int {
	n := 0
	for _, v := range u.requests {
		n += v
	}
	return n
}

// measure runs commands one after the other as one measurement: kubectl or
// kubectl-chain with the proxied kubeconfig. agent is the user agent
// prefix its requests carry in the audit log.
func (c *bigCluster) measure(ctx context.Context, tb testing.TB, agent string, cmds ...[]string) cost {
	tb.Helper()
	audit := state.Layout{Dir: c.dir}.Log(state.Audit)
	from := fileSize(tb, audit)
	c.proxy.down.Store(0)
	var u cost
	for _, args := range cmds {
		// Started by a small process, so that its peak RSS is its own
		// (spawn).
		cmd, report := spawned(ctx, append(args, "--kubeconfig", c.kubeconfig))
		out, err := cmd.Output()
		u.out = append(u.out, out...)
		if ee, ok := err.(*exec.ExitError); ok {
			u.code = ee.ExitCode()
		} else if err != nil {
			tb.Fatalf("%v: %v", args, err)
		}
		rss, wall, err := report()
		if err != nil {
			tb.Fatalf("%v: %v", args, err)
		}
		u.wall += wall
		u.rssMB = max(u.rssMB, rss)
	}
	u.bytes = c.proxy.down.Load()
	time.Sleep(time.Second) // the last watches' lines
	u.requests = auditRequests(tb, audit, from, agent)
	return u
}

// auditRequests counts the requests of user agent prefix agent in the
// audit log from offset on, by verb.
func auditRequests(tb testing.TB, path string, from int64, agent string) map[string]int {
	return countAudit(tb, path, from, func(ev auditEvent) bool { return strings.HasPrefix(ev.UserAgent, agent) })
}

// auditEvent is what the tests read of an audit log line.
type auditEvent struct {
	AuditID    string    `json:"auditID"`
	Verb       string    `json:"verb"`
	UserAgent  string    `json:"userAgent"`
	RequestURI string    `json:"requestURI"`
	Received   time.Time `json:"requestReceivedTimestamp"`
}

// countAudit counts the requests keep accepts in the audit log from offset
// on, by verb (a watch is logged when it starts and when it ends: requests
// are counted by audit ID).
func countAudit(tb testing.TB, path string, from int64, keep func(auditEvent) bool) map[string]int {
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		tb.Fatal(err)
	}
	seen := map[string]bool{}
	verbs := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev auditEvent
		if json.Unmarshal(sc.Bytes(), &ev) != nil || seen[ev.AuditID] || !keep(ev) {
			continue
		}
		seen[ev.AuditID] = true
		verbs[ev.Verb]++
	}
	return verbs
}

// expectedCauses are the verdicts of the fill's templates: what the walk
// of each capture says.
func expectedCauses(tb testing.TB) map[string]string {
	out := map[string]string{}
	for _, name := range fill.Templates() {
		f, err := os.Open(filepath.Join(capturesDir, name+".yaml"))
		if err != nil {
			tb.Fatal(err)
		}
		b, err := capture.Load(f)
		f.Close()
		if err != nil {
			tb.Fatal(err)
		}
		snap, err := b.Read("", chain.Ref{Kind: chain.KindDeployment, Name: b.Deployments[0].Name})
		if err != nil {
			tb.Fatal(err)
		}
		out[name] = string(chaindiagnose.Walk(snap, chaindiagnose.Options{}).Verdict.Cause)
	}
	return out
}

// reportList is the part of -o json's list the tests read.
type reportList struct {
	Requests int `json:"requests"`
	Items    []struct {
		Namespace string        `json:"namespace"`
		Name      string        `json:"name"`
		Verdict   chain.Verdict `json:"verdict"`
	} `json:"items"`
}

// checkVerdicts checks a -A --all -o json report list of the filled
// cluster: exactly the planted Deployments are broken, each with the cause
// its template's capture has, and every other one is healthy.
func checkVerdicts(tb testing.TB, c *bigCluster, out []byte) {
	tb.Helper()
	want := expectedCauses(tb)
	var list reportList
	if err := json.Unmarshal(out, &list); err != nil {
		tb.Fatalf("-A -o json: %v\n%.2000s", err, out)
	}
	broken := map[string]fill.Workload{}
	for _, w := range c.plan.BrokenWorkloads() {
		broken[w.Namespace+"/"+w.Name] = w
	}
	if len(list.Items) != len(c.plan.Workloads) {
		tb.Errorf("%d reports, want %d", len(list.Items), len(c.plan.Workloads))
	}
	for _, r := range list.Items {
		key := r.Namespace + "/" + r.Name
		w, planted := broken[key]
		switch {
		case planted && string(r.Verdict.Cause) != want[w.Template]:
			tb.Errorf("%s (%s): %s %s, want cause %s", key, w.Template, r.Verdict.Health, r.Verdict.Cause, want[w.Template])
		case !planted && r.Verdict.Health != chain.Healthy:
			tb.Errorf("%s is healthy, reported %s %s: %s", key, r.Verdict.Health, r.Verdict.Cause, r.Verdict.Summary)
		}
		delete(broken, key)
	}
	for key := range broken {
		tb.Errorf("%s was planted broken and not reported", key)
	}
}

// TestBigCluster: among hundreds of healthy Deployments in namespaces of
// thousands of events, -A --all finds exactly the broken ones lab fill
// planted, each with the cause its template's capture has, for a number
// of requests that does not depend on the cluster's size, only on what is
// broken; each broken Deployment, alone in its namespace too busy to
// list, has the same cause in 9 requests and 2 round trips: the GET
// beside the serving link's Services, the autoscalers and the events'
// first page (whose count says the namespace is busy), then its
// ReplicaSets and pods beside the window of its first pods' events (lab
// fill's broken pods fail from the first, so the window holds the events
// of the pods it quotes and nothing is sought after them) and, as lab
// fill gives each Deployment a Service, that Service's EndpointSlices and
// the NetworkPolicies.
func TestBigCluster(t *testing.T) {
	heavyTurn(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	spec := fill.Spec{Seed: 3, Namespaces: 4, Deployments: 300, Broken: 12, Pods: 2400, Events: 12000}
	c := startBigCluster(ctx, t, spec)
	u := c.measure(ctx, t, "kubectl-chain/", []string{chainBin, "-A", "--all", "-o", "json"})
	checkVerdicts(t, c, u.out)
	// 5 workload kinds, Ingresses and IngressClasses, the Gateway API's 5
	// (the lab installs the CRDs), pods, ReplicaSets, Services,
	// EndpointSlices and NetworkPolicies, the events' first page, the
	// check that the API server seeks events by name, per namespace one
	// whole read at most, and for each broken workload at most two sought
	// reads (chain.MaxEventTargets): within 19 + n + 2 per broken
	// workload, the budget.
	if limit := 19 + spec.Namespaces + 2*len(c.plan.BrokenWorkloads()); u.total() > limit || u.requests["list"]+u.requests["watch"] != u.total() {
		t.Errorf("-A --all: %v requests, want at most %d lists and watches", u.requests, limit)
	}
	t.Logf("-A --all on %d Deployments, %d pods, %d events: %v requests, %.1f MB read, %.2fs, %.0f MB RSS",
		spec.Deployments, spec.Pods, spec.Events, u.requests, float64(u.bytes)/1e6, u.wall.Seconds(), u.rssMB)

	want := expectedCauses(t)
	for _, w := range c.plan.BrokenWorkloads() {
		one := c.measure(ctx, t, "kubectl-chain/", []string{chainBin, "deploy/" + w.Name, "-n", w.Namespace, "-o", "json"})
		var r struct {
			Verdict chain.Verdict `json:"verdict"`
		}
		if err := json.Unmarshal(one.out, &r); err != nil {
			t.Fatalf("deploy/%s -o json: %v\n%.2000s", w.Name, err, one.out)
		}
		if one.total() != 9 || one.code != 1 || string(r.Verdict.Cause) != want[w.Template] {
			t.Errorf("deploy/%s (%s): exit %d, %s, %v requests; want 1, %s, 9", w.Name, w.Template, one.code, r.Verdict.Cause, one.requests, want[w.Template])
		}
	}
}

// BenchmarkBigCluster measures kubectl-chain on the cluster of the scale
// budgets (lab fill's defaults: 2,000 Deployments, 20,000 pods, 100,000
// events in 5 namespaces, one Deployment of 500 pods in a namespace of
// 20,000 events), beside kubectl describe and kubectl rollout status on the
// same Deployment: requests as the API server's audit log counts them,
// bytes the API server sent, wall time and peak RSS. The fill takes about 5
// minutes on 2 cores. It checks the verdicts of -A as TestBigCluster does,
// and ends with the floor (docs/benchmarks.md): -A beside the API server's
// raw lists of pods and events, kubectl get pods -A -o json, a broken
// Deployment in its busy namespace beside a copy in a quiet one and one
// field-selected events read, serve -A, and the MCP answers' sizes, in the
// same run.
func BenchmarkBigCluster(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	spec := fill.Spec{Seed: 1, Namespaces: 5, Deployments: 2000, Broken: 12, Pods: 20000, Events: 100000, Big: 500, BigBroken: 50}
	c := startBigCluster(ctx, b, spec)
	ns := c.plan.Namespaces[0]
	events, err := c.client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{ResourceVersion: "0", Limit: 1})
	if err == nil && events.RemainingItemCount != nil {
		b.Logf("namespace %s holds %d events", ns, *events.RemainingItemCount+1)
	}
	type row struct {
		name   string
		u      cost
		budget string
	}
	var rows []row
	add := func(name, budget string, u cost) {
		rows = append(rows, row{name, u, budget})
		b.ReportMetric(u.wall.Seconds(), "s-"+strings.ReplaceAll(name, " ", "-"))
	}
	for i := 0; i < b.N; i++ {
		add("chain deploy/big", "1 s, 9 requests (served)", c.measure(ctx, b, "kubectl-chain/", []string{chainBin, "deploy/big", "-n", ns}))
		add("chain deploy/big-broken", "1 s, 10 requests (served)", c.measure(ctx, b, "kubectl-chain/", []string{chainBin, "deploy/big-broken", "-n", ns}))
		add("describe deploy,rs,pods big", "", c.measure(ctx, b, "kubectl/",
			[]string{"kubectl", "describe", "deploy/big", "-n", ns},
			[]string{"kubectl", "describe", "rs", "-l", "app=big", "-n", ns},
			[]string{"kubectl", "describe", "pods", "-l", "app=big", "-n", ns}))
		add("rollout status big", "", c.measure(ctx, b, "kubectl/", []string{"kubectl", "rollout", "status", "deploy/big", "-n", ns, "--timeout", "60s"}))
		rawPods := c.measure(ctx, b, "kubectl/", []string{"kubectl", "get", "--raw", "/api/v1/pods"})
		rawEvents := c.measure(ctx, b, "kubectl/", []string{"kubectl", "get", "--raw", "/api/v1/events"})
		add("get --raw /api/v1/pods", "", rawPods)
		add("get --raw /api/v1/events", "", rawEvents)
		all := c.measure(ctx, b, "kubectl-chain/", []string{chainBin, "-A", "--all", "-o", "json"})
		checkVerdicts(b, c, all.out)
		add("chain -A --all -o json", "1.0 times the raw reads, 250 MB, constant requests", all)
		b.ReportMetric(all.wall.Seconds()/(rawPods.wall+rawEvents.wall).Seconds(), "x-raw-reads")
		churn, stop := context.WithCancel(ctx)
		changed := make(chan int, 1)
		go func() { changed <- churnPods(churn, c, spec.Pods/100, time.Minute) }()
		wait := c.measure(ctx, b, "kubectl-chain/", []string{chainBin, "-A", "--all", "--wait", "--timeout", "60s", "-o", "json"})
		stop()
		b.Logf("--wait -A: %d pod status writes while it followed", <-changed)
		add("chain -A --all --wait 60s", "no re-list, a few requests/s", wait)
		if wait.requests["list"] > all.requests["list"]+1 {
			b.Errorf("--wait -A listed %d times, -A alone %d: a re-list", wait.requests["list"], all.requests["list"])
		}
		getPods := c.measure(ctx, b, "kubectl/", []string{"kubectl", "get", "pods", "-A", "-o", "json"})
		add("get pods -A -o json", "", getPods)
		drop := copyQuiet(ctx, b, c, ns, "big-broken")
		busy := median(5, func() cost {
			return c.measure(ctx, b, "kubectl-chain/", []string{chainBin, "deploy/big-broken", "-n", ns})
		})
		quiet := median(5, func() cost {
			return c.measure(ctx, b, "kubectl-chain/", []string{chainBin, "deploy/big-broken", "-n", quietNamespace})
		})
		drop()
		// The floor of the busy namespace: one field-selected events read
		// still makes the API server scan the namespace's events.
		scan := median(5, func() cost {
			return c.measure(ctx, b, "kubectl/", []string{"kubectl", "get", "events", "-n", ns, "--field-selector", "involvedObject.name=big-broken"})
		})
		if busy.code != 1 || quiet.code != 1 {
			b.Errorf("deploy/big-broken: exit %d in its namespace, %d in the quiet copy; want 1 (broken) in both", busy.code, quiet.code)
		}
		b.ReportMetric(busy.wall.Seconds()/quiet.wall.Seconds(), "x-busy-namespace")
		sizes := measureMCP(ctx, b, c, ns, "big-broken")
		b.ReportMetric(float64(sizes.firstPage+3)/4, "tokens-first-page")
		b.ReportMetric(float64(sizes.diagnosis+3)/4, "tokens-diagnosis")
		srv := measureServe(ctx, b, c, spec)
		b.ReportMetric(srv.ready.Seconds(), "s-serve-ready")
		b.ReportMetric(srv.rssMB, "MB-serve-rss")
		b.Log(floorTable(all, rawPods, rawEvents, getPods, busy, quiet, scan, srv, sizes))
	}
	var t strings.Builder
	fmt.Fprintf(&t, "\n| command | requests (audit) | bytes read | wall | peak RSS | budget |\n|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&t, "| %s | %d %v | %.1f MB | %.2f s | %.0f MB | %s |\n", r.name, r.u.total(), r.u.requests, float64(r.u.bytes)/1e6, r.u.wall.Seconds(), r.u.rssMB, r.budget)
	}
	b.Log(t.String())
}

// churnPods flips the Ready condition of n random pods over d, as pods
// failing and passing their probes do, and returns how many status writes
// it made.
func churnPods(ctx context.Context, c *bigCluster, n int, d time.Duration) int {
	pods, err := c.client.CoreV1().Pods("").List(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil || len(pods.Items) == 0 {
		return 0
	}
	rng := rand.New(rand.NewPCG(1, 2))
	writes := 0
	tick := time.NewTicker(d / time.Duration(n))
	defer tick.Stop()
	for range n {
		select {
		case <-ctx.Done():
			return writes
		case <-tick.C:
		}
		p := pods.Items[rng.IntN(len(pods.Items))]
		for i := range p.Status.Conditions {
			if p.Status.Conditions[i].Type == corev1.PodReady {
				p.Status.Conditions[i].LastTransitionTime = metav1.Now()
			}
		}
		if _, err := c.client.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, &p, metav1.UpdateOptions{}); err == nil {
			writes++
		}
	}
	return writes
}
