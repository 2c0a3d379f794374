package e2e

// The bench command (docs/benchmarks.md):
//
//	go -C lab test ./e2e -run '^$' -bench . -benchtime 1x -timeout 40m -v
//
// Each benchmark prints its figures with b.ReportMetric; none of them fails
// on a figure: budgets are read, not asserted, so a busy machine gives a
// slow figure rather than a flaky test.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

// BenchmarkLabUp starts a second 3-node lab beside the shared one: the time
// `lab up` takes to return healthy (goal: 10 s on 2 cores) and the memory
// of all its processes at rest (resident, and proportional: see usage).
func BenchmarkLabUp(b *testing.B) {
	var took time.Duration
	var rss, pss int64
	for i := 0; i < b.N; i++ {
		dir := filepath.Join(b.TempDir(), "lab")
		if err := startReaper(dir, dir); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		out, err := labAt(dir, "up", "--nodes", "3")
		took = time.Since(start)
		if err != nil {
			b.Fatalf("lab up: %v\n%s", err, out)
		}
		time.Sleep(5 * time.Second) // at rest: past the first heartbeats
		rss, pss = labMemory(b, dir)
		if out, err := labAt(dir, "down"); err != nil {
			b.Fatalf("lab down: %v\n%s", err, out)
		}
	}
	b.ReportMetric(took.Seconds(), "s-up-to-healthy")
	b.ReportMetric(float64(rss)/(1<<20), "MB-lab-rss")
	b.ReportMetric(float64(pss)/(1<<20), "MB-lab-pss")
}

// BenchmarkApplyToAvailable creates a healthy 3-replica Deployment on the
// shared lab and times it to Available (goal: 2 s), then times kubectl-chain
// from process start to verdict on it (goal: 300 ms).
func BenchmarkApplyToAvailable(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var avail, verdictTook time.Duration
	for i := 0; i < b.N; i++ {
		ns := createNamespaceIn(ctx, b, client, fmt.Sprintf("bench-available-%d", i))
		start := time.Now()
		if _, err := client.AppsV1().Deployments(ns).Create(ctx, healthyDeployment("web", 3), metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		waitAvailableIn(ctx, b, client, ns, "web")
		avail = time.Since(start)
		verdictTook = timeVerdict(ctx, b, kubeconfig, ns, "web")
	}
	b.ReportMetric(float64(avail.Milliseconds()), "ms-apply-to-available")
	b.ReportMetric(float64(verdictTook.Milliseconds()), "ms-chain-verdict")
}

// BenchmarkScale starts a lab of 100 nodes, rolls out 5,000 pods (10
// Deployments of 500) and reports how long until all are available; whether
// the simulated kubelet keeps up, from its own figures (the longest a pod
// took from the moment its node saw it to ready, and the longest a status
// waited for its write); how long pods took from their binding to their
// Ready condition, which adds the API server's delivery of the binding to
// the node; where the CPU went; the lab's memory; and kubectl-chain's time
// on a 500-pod Deployment.
func BenchmarkScale(b *testing.B) {
	const nodes, deployments, replicas = 100, 10, 500
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	dir := filepath.Join(b.TempDir(), "lab")
	if err := startReaper(dir, dir); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if out, err := labAt(dir, "up", "--nodes", strconv.Itoa(nodes)); err != nil {
		b.Fatalf("lab up: %v\n%s", err, out)
	}
	b.ReportMetric(time.Since(start).Seconds(), "s-up-100-nodes")
	defer func() {
		if out, err := labAt(dir, "down"); err != nil {
			b.Errorf("lab down: %v\n%s", err, out)
		}
	}()
	kc, err := labAt(dir, "kubeconfig")
	if err != nil {
		b.Fatal(err)
	}
	c := clientFor(b, strings.TrimSpace(kc), 100)
	for i := 0; i < b.N; i++ {
		ns := createNamespaceIn(ctx, b, c, fmt.Sprintf("bench-scale-%d", i))
		before := labUsage(b, dir)
		kubeletLog := state.Layout{Dir: dir}.Log(state.Kubelet)
		logFrom := fileSize(b, kubeletLog)
		start := time.Now()
		for d := 0; d < deployments; d++ {
			if _, err := c.AppsV1().Deployments(ns).Create(ctx, healthyDeployment(fmt.Sprintf("web-%d", d), replicas), metav1.CreateOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		for d := 0; d < deployments; d++ {
			waitAvailableIn(ctx, b, c, ns, fmt.Sprintf("web-%d", d))
		}
		took := time.Since(start)
		b.ReportMetric(took.Seconds(), "s-5000-pods-available")
		// Where the rollout's CPU went: a kubelet falling behind for want
		// of its own CPU shows a large share here; one starved by the
		// others (2 cores for the whole control plane) does not.
		var total time.Duration
		after := labUsage(b, dir)
		for name, u := range after {
			total += u.cpu - before[name].cpu
		}
		var parts []string
		for _, name := range slices.Sorted(maps.Keys(after)) {
			used := after[name].cpu - before[name].cpu
			parts = append(parts, fmt.Sprintf("%s %.1f s (%.0f%%)", name, used.Seconds(), 100*used.Seconds()/total.Seconds()))
		}
		b.Logf("CPU used during the rollout: %s", strings.Join(parts, "; "))
		b.ReportMetric(total.Seconds()/took.Seconds(), "cores-busy-lab")
		b.ReportMetric((after["kubelet"].cpu - before["kubelet"].cpu).Seconds(), "cpu-s-kubelet")
		// The kubelet's own figures, logged every 10 s: wait for the
		// period that holds the last pods.
		time.Sleep(11 * time.Second)
		ready, seenToReady, statusWait := keepingUp(b, kubeletLog, logFrom)
		if ready != deployments*replicas {
			b.Errorf("the kubelet counted %d pods ready, want %d", ready, deployments*replicas)
		}
		b.ReportMetric(seenToReady.Seconds(), "s-kubelet-seen-to-ready-max")
		b.ReportMetric(statusWait.Seconds(), "s-kubelet-status-wait-max")
		lags := bindToReady(ctx, b, c, ns)
		if len(lags) != deployments*replicas {
			b.Errorf("%d pods ready, want %d", len(lags), deployments*replicas)
		}
		b.ReportMetric(percentile(lags, 50).Seconds(), "s-bind-to-ready-p50")
		b.ReportMetric(percentile(lags, 99).Seconds(), "s-bind-to-ready-p99")
		b.ReportMetric(percentile(lags, 100).Seconds(), "s-bind-to-ready-max")
		rss, pss := labMemory(b, dir)
		b.ReportMetric(float64(rss)/(1<<20), "MB-lab-rss-5000-pods")
		b.ReportMetric(float64(pss)/(1<<20), "MB-lab-pss-5000-pods")
		b.ReportMetric(float64(timeVerdict(ctx, b, kc, ns, "web-0").Milliseconds()), "ms-chain-verdict-500-pods")
	}
}

// BenchmarkWaitVerdict times `kubectl-chain --wait` from apply to verdict on
// a bad image and on a crash loop, beside `kubectl rollout status` on the
// same Deployment, which fails only at the progress deadline (600 s). It
// runs rollout status for at most 60 s unless KUBECTL_CHAIN_BENCH_FULL=1,
// which lets it run to the deadline (about 10 minutes).
func BenchmarkWaitVerdict(b *testing.B) {
	cases := []struct {
		name   string
		mutate func(*appsv1.Deployment)
	}{
		{"bad-image", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = missingImage }},
		// An app that fails while it starts: it exits 1 after 2 s, before
		// its readiness probe (5 s) ever passes. (One that turns ready and
		// crashes later completes the rollout first, for rollout status
		// and --wait alike.)
		{"crash-loop", func(d *appsv1.Deployment) {
			slowReadiness(d, 5)
			d.Spec.Template.Annotations = map[string]string{"lab.kubectl-chain.io/exit-code": "1", "lab.kubectl-chain.io/exit-after": "2s"}
		}},
	}
	rolloutTimeout := 60 * time.Second
	if os.Getenv("KUBECTL_CHAIN_BENCH_FULL") != "" {
		rolloutTimeout = 11 * time.Minute
	}
	kubectl, kubectlErr := exec.LookPath("kubectl")
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
			defer cancel()
			for i := 0; i < b.N; i++ {
				ns := createNamespaceIn(ctx, b, client, fmt.Sprintf("bench-wait-%s-%d", tc.name, i))
				d := healthyDeployment("web", 2)
				tc.mutate(d)
				start := time.Now()
				if _, err := client.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
					b.Fatal(err)
				}
				var wg sync.WaitGroup
				var rollout time.Duration
				var rolloutOut string
				var rolloutErr error
				if kubectlErr == nil {
					wg.Add(1)
					go func() {
						defer wg.Done()
						out, err := exec.CommandContext(ctx, kubectl, "--kubeconfig", kubeconfig, "-n", ns, "rollout", "status", "deploy/web",
							"--timeout", rolloutTimeout.String()).CombinedOutput()
						rollout, rolloutOut, rolloutErr = time.Since(start), lastLine(string(out)), err
					}()
				}
				out, err := exec.CommandContext(ctx, chainBin, "deploy/web", "-n", ns, "--wait", "--timeout", "10m", "--kubeconfig", kubeconfig).CombinedOutput()
				chainTook := time.Since(start)
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != 1 {
					b.Errorf("kubectl-chain --wait: %v, want exit 1\n%s", err, out)
				}
				b.ReportMetric(chainTook.Seconds(), "s-chain-wait-verdict")
				b.Logf("kubectl-chain --wait: %.1f s: %s", chainTook.Seconds(), lastLine(string(out)))
				if kubectlErr != nil {
					b.Logf("kubectl rollout status not run: %v", kubectlErr)
					continue
				}
				wg.Wait()
				b.ReportMetric(rollout.Seconds(), "s-rollout-status")
				b.Logf("kubectl rollout status --timeout %v: %.1f s (error: %v): %s", rolloutTimeout, rollout.Seconds(), rolloutErr, rolloutOut)
			}
		})
	}
}

// usage is one lab process's memory and CPU time so far. Every lab process
// runs the same binary, whose pages they share: the sum of their resident
// sets counts those pages once per process, the sum of their proportional
// sets (PSS, each shared page split among its users) counts them once, which
// is the memory the lab takes.
type usage struct {
	rss int64         // bytes
	pss int64         // bytes
	cpu time.Duration // user + system
}

// labUsage reads each lab process's usage (by its pid file) and logs it.
func labUsage(b *testing.B, dir string) map[string]usage {
	b.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "pids", "*.pid"))
	if err != nil || len(files) == 0 {
		b.Fatalf("no pid files in %s: %v", dir, err)
	}
	out := map[string]usage{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".pid")
		pid, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		proc := filepath.Join("/proc", strings.TrimSpace(string(pid)))
		status, err := os.ReadFile(filepath.Join(proc, "status"))
		if err != nil {
			b.Fatalf("reading %s's memory: %v", name, err)
		}
		var u usage
		u.rss = procKB(status, "VmRSS:")
		if rollup, err := os.ReadFile(filepath.Join(proc, "smaps_rollup")); err == nil {
			u.pss = procKB(rollup, "Pss:")
		}
		// /proc/PID/stat: after the command in parentheses, utime and
		// stime are the 12th and 13th fields, in clock ticks (100 a second).
		if stat, err := os.ReadFile(filepath.Join(proc, "stat")); err == nil {
			if i := strings.LastIndexByte(string(stat), ')'); i > 0 {
				fields := strings.Fields(string(stat)[i+1:])
				if len(fields) > 12 {
					ut, _ := strconv.ParseInt(fields[11], 10, 64)
					st, _ := strconv.ParseInt(fields[12], 10, 64)
					u.cpu = time.Duration(ut+st) * 10 * time.Millisecond
				}
			}
		}
		out[name] = u
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(out)) {
		parts = append(parts, fmt.Sprintf("%s %d MB (PSS %d) %.1f cpu-s", name, out[name].rss>>20, out[name].pss>>20, out[name].cpu.Seconds()))
	}
	// One line: a benchmark's log is cut after 10.
	b.Logf("lab processes: %s", strings.Join(parts, "; "))
	return out
}

// labMemory sums the resident and the proportional memory of the lab's
// processes.
func labMemory(b *testing.B, dir string) (rss, pss int64) {
	b.Helper()
	for _, u := range labUsage(b, dir) {
		rss += u.rss
		pss += u.pss
	}
	return rss, pss
}

// procKB reads a "Key:   123 kB" line of a /proc file, in bytes.
func procKB(data []byte, key string) int64 {
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, key); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// timeVerdict runs kubectl-chain once on the Deployment and returns the
// time from process start to exit.
func timeVerdict(ctx context.Context, b *testing.B, kc, ns, name string) time.Duration {
	b.Helper()
	return timeVerdictOf(ctx, b, kc, ns, "deploy/"+name)
}

// timeVerdictOf runs kubectl-chain once on target and returns the time
// from process start to exit.
func timeVerdictOf(ctx context.Context, b *testing.B, kc, ns, target string) time.Duration {
	b.Helper()
	start := time.Now()
	out, err := exec.CommandContext(ctx, chainBin, target, "-n", ns, "--kubeconfig", kc).CombinedOutput()
	took := time.Since(start)
	if err != nil {
		b.Errorf("kubectl-chain %s: %v\n%s", target, err, out)
	}
	return took
}

// BenchmarkStatefulSetVerdict creates a 100-replica StatefulSet (Parallel,
// so its pods start together) on the shared lab, waits until all are
// ready, and times kubectl-chain from process start to verdict on it
// (goal: under 1 s), with the requests the verdict cost (2 round trips:
// the GET, then pods, events, revisions and claims).
func BenchmarkStatefulSetVerdict(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// The benchmark runs again for each b.N: a namespace of its own each.
	ns := createNamespaceIn(ctx, b, client, fmt.Sprintf("bench-sts-%d-%d", b.N, time.Now().UnixNano()%100000))
	d := healthyDeployment("web", 100)
	set := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.StatefulSetSpec{Replicas: d.Spec.Replicas, ServiceName: "web", Selector: d.Spec.Selector, Template: d.Spec.Template,
			PodManagementPolicy: appsv1.ParallelPodManagement}}
	if _, err := client.AppsV1().StatefulSets(ns).Create(ctx, set, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	for {
		got, err := client.AppsV1().StatefulSets(ns).Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if got.Status.ReadyReplicas == 100 {
			break
		}
		select {
		case <-ctx.Done():
			b.Fatalf("%d of 100 ready: %v", got.Status.ReadyReplicas, ctx.Err())
		case <-time.After(time.Second):
		}
	}
	b.ResetTimer()
	var total time.Duration
	for i := 0; i < b.N; i++ {
		total += timeVerdictOf(ctx, b, kubeconfig, ns, "sts/web")
	}
	b.StopTimer()
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms-chain-verdict")
	out, err := exec.CommandContext(ctx, chainBin, "sts/web", "-n", ns, "-o", "json", "--kubeconfig", kubeconfig).Output()
	var r struct {
		Requests int `json:"requests"`
		Verdict  verdict
	}
	if err != nil || json.Unmarshal(out, &r) != nil || r.Verdict.Health != chain.Healthy {
		b.Fatalf("kubectl-chain sts/web: %v %+v\n%s", err, r.Verdict, out)
	}
	b.ReportMetric(float64(r.Requests), "requests")
}

// kubeletLags is, for each ready pod, the time from its PodScheduled
// condition (the scheduler's bind) to its Ready condition (the kubelet).
func bindToReady(ctx context.Context, b *testing.B, c kubernetes.Interface, ns string) []time.Duration {
	b.Helper()
	var lags []time.Duration
	opts := metav1.ListOptions{Limit: 500}
	for {
		pods, err := c.CoreV1().Pods(ns).List(ctx, opts)
		if err != nil {
			b.Fatal(err)
		}
		for _, p := range pods.Items {
			var scheduled, ready time.Time
			for _, cond := range p.Status.Conditions {
				switch {
				case cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionTrue:
					scheduled = cond.LastTransitionTime.Time
				case cond.Type == corev1.PodReady && cond.Status == corev1.ConditionTrue:
					ready = cond.LastTransitionTime.Time
				}
			}
			if !scheduled.IsZero() && !ready.IsZero() {
				lags = append(lags, ready.Sub(scheduled))
			}
		}
		if pods.Continue == "" {
			return lags
		}
		opts.Continue = pods.Continue
	}
}

func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := (len(s)*p + 99) / 100
	if i > 0 {
		i--
	}
	return s[i]
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func fileSize(b testing.TB, path string) int64 {
	b.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return fi.Size()
}

// keepingUp reads the simulated kubelet's "Keeping up" lines that log
// logged after offset from: the pods that turned ready, and the largest
// seen-to-ready and status wait of any period.
func keepingUp(b *testing.B, log string, from int64) (ready int, seenToReady, statusWait time.Duration) {
	b.Helper()
	data, err := os.ReadFile(log)
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data[from:]), "\n") {
		if !strings.Contains(line, `"Keeping up"`) {
			continue
		}
		kv := map[string]string{}
		for _, f := range strings.Fields(line) {
			if k, v, ok := strings.Cut(f, "="); ok {
				kv[k] = strings.Trim(v, `"`)
			}
		}
		n, err := strconv.Atoi(kv["podsReady"])
		s, err2 := time.ParseDuration(kv["seenToReadyMax"])
		w, err3 := time.ParseDuration(kv["statusWaitMax"])
		if err := errors.Join(err, err2, err3); err != nil {
			b.Fatalf("kubelet log line %q: %v", line, err)
		}
		ready += n
		seenToReady, statusWait = max(seenToReady, s), max(statusWait, w)
	}
	return ready, seenToReady, statusWait
}
