package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-chain/kubectl-chain/lab/fill"
)

// BenchmarkServe measures kubectl chain serve -A on the scale budgets'
// cluster (lab fill's defaults, as BenchmarkBigCluster, which measures it
// too beside the other figures): the time to its first judgement, its
// memory once steady, its CPU over an idle minute, and how long a write
// takes to show in its metrics (a Deployment's template changed: the
// frozen lab has no controller to observe it, so its verdict turns
// progressing). Budgets: 500 MB, idle CPU near zero, 2 s.
//
//	go -C lab test ./e2e -run '^$' -bench Serve -benchtime 1x -timeout 60m
func BenchmarkServe(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	spec := fill.Spec{Seed: 1, Namespaces: 5, Deployments: 2000, Broken: 12, Pods: 20000, Events: 100000, Big: 500, BigBroken: 50}
	c := startBigCluster(ctx, b, spec)
	f := measureServe(ctx, b, c, spec)
	b.ReportMetric(f.ready.Seconds(), "s-ready")
	b.ReportMetric(f.rssMB, "MB-rss")
	b.ReportMetric(f.idlePercent(), "%cpu-idle")
	b.ReportMetric(f.maxLatency().Seconds(), "s-write-to-metric-max")
	b.Logf("\n| serve -A on %d workloads | figure | budget |\n|---|---|---|\n%s", f.workloads, f.rows())
}

// serveFigures are what measureServe measured of serve -A.
type serveFigures struct {
	workloads int
	ready     time.Duration
	rssMB     float64
	idle      time.Duration
	latencies []time.Duration // sorted
}

func (f serveFigures) idlePercent() float64         { return f.idle.Seconds() / 60 * 100 }
func (f serveFigures) maxLatency() time.Duration    { return f.latencies[len(f.latencies)-1] }
func (f serveFigures) medianLatency() time.Duration { return f.latencies[len(f.latencies)/2] }
func (f serveFigures) rows() string {
	return fmt.Sprintf("| first judgement (/readyz) | %.1f s | 5 s |\n| memory, steady (RSS) | %.0f MB | 250 MB |\n| CPU, an idle minute | %.1f%% of a core (%.2f s) | near zero |\n| a write to its verdict in the metrics | median %.2f s, max %.2f s | 1 s median |\n",
		f.ready.Seconds(), f.rssMB, f.idlePercent(), f.idle.Seconds(), f.medianLatency().Seconds(), f.maxLatency().Seconds())
}

// measureServe runs serve -A on the big cluster and measures it.
func measureServe(ctx context.Context, b *testing.B, c *bigCluster, spec fill.Spec) serveFigures {
	b.Helper()
	addr := freeAddr(b)
	start := time.Now()
	cmd := exec.CommandContext(ctx, chainBin, "serve", "-A", "--listen", addr, "--kubeconfig", c.kubeconfig)
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	get := func(path string) (int, string) { return httpGet("http://" + addr + path) }
	for code, _ := get("/readyz"); code != http.StatusOK; code, _ = get("/readyz") {
		if ctx.Err() != nil {
			b.Fatal("serve never became ready")
		}
		time.Sleep(100 * time.Millisecond)
	}
	f := serveFigures{ready: time.Since(start)}
	_, body := get("/metrics")
	f.workloads = strings.Count(body, "kubectl_chain_workload_health{")
	if f.workloads < spec.Deployments {
		b.Errorf("%d workloads in the metrics, want at least %d", f.workloads, spec.Deployments)
	}
	time.Sleep(30 * time.Second) // settle: the first judgements' garbage collected
	proc := filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid))
	cpu0 := procCPU(b, proc)
	time.Sleep(time.Minute)
	f.idle = procCPU(b, proc) - cpu0
	status, err := os.ReadFile(filepath.Join(proc, "status"))
	if err != nil {
		b.Fatal(err)
	}
	f.rssMB = float64(procKB(status, "VmRSS:")) / 1e6

	// A write, then its verdict in the metrics: five healthy Deployments.
	for _, w := range c.plan.Workloads {
		if w.Broken || len(f.latencies) == 5 {
			continue
		}
		series := fmt.Sprintf(`kubectl_chain_workload_health{kind="Deployment",name=%q,namespace=%q} `, w.Name, w.Namespace)
		patch := []byte(`{"spec":{"template":{"metadata":{"annotations":{"bench":"` + strconv.FormatInt(time.Now().UnixNano(), 10) + `"}}}}}`)
		wrote := time.Now()
		if _, err := c.client.AppsV1().Deployments(w.Namespace).Patch(ctx, w.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}); err != nil {
			b.Fatal(err)
		}
		for {
			_, body := get("/metrics")
			if i := strings.Index(body, series); i >= 0 && !strings.HasPrefix(body[i+len(series):], "0") {
				break
			}
			if time.Since(wrote) > time.Minute {
				b.Fatalf("%s/%s: its change never showed in the metrics", w.Namespace, w.Name)
			}
			time.Sleep(20 * time.Millisecond)
		}
		f.latencies = append(f.latencies, time.Since(wrote))
		restore(ctx, b, c, w.Namespace, w.Name)
	}
	slices.Sort(f.latencies)
	if f.rssMB > 500 {
		b.Errorf("steady memory %.0f MB, over the 500 MB it held before", f.rssMB)
	}
	if f.maxLatency() > 2*time.Second {
		b.Errorf("a write took %v to show in the metrics, over the 2 s it took before", f.maxLatency())
	}
	return f
}

// restore takes the bench's annotation off a Deployment's template and
// says, as its controller would, that the change was observed: the frozen
// lab has none, and a cluster reused (KUBECTL_CHAIN_BIG_LAB) must judge it
// healthy again.
func restore(ctx context.Context, b *testing.B, c *bigCluster, ns, name string) {
	b.Helper()
	patch := []byte(`{"spec":{"template":{"metadata":{"annotations":{"bench":null}}}}}`)
	d, err := c.client.AppsV1().Deployments(ns).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil {
		b.Fatal(err)
	}
	d.Status.ObservedGeneration = d.Generation
	if _, err := c.client.AppsV1().Deployments(ns).UpdateStatus(ctx, d, metav1.UpdateOptions{}); err != nil {
		b.Fatal(err)
	}
}

// procCPU is the process's user and system time so far.
func procCPU(b *testing.B, proc string) time.Duration {
	stat, err := os.ReadFile(filepath.Join(proc, "stat"))
	if err != nil {
		b.Fatal(err)
	}
	i := strings.LastIndexByte(string(stat), ')')
	fields := strings.Fields(string(stat)[i+1:])
	ut, _ := strconv.ParseInt(fields[11], 10, 64)
	st, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}
