package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/lab/scenarios"
	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

// The soak plays rollouts that a fault breaks for a while and rollouts it
// breaks for good, and follows each with the three gates at once:
// kubectl chain --wait, kubectl rollout status, and a kstatus wait (the
// poller of sigs.k8s.io/cli-utils, as Flux and Helm 4 use it). Whether
// the rollout heals is not taken from the fault's design but checked: a
// healing run counts only if the Deployment completes within soakTimeout +
// soakAfter; a terminal one only if it has not by then.
const (
	soakTimeout = 150 * time.Second // each gate's --timeout
	soakAfter   = 30 * time.Second  // how long completion is watched after the gates end
)

// soakFault is one row of the soak: a scenario, played runs times, whose
// fault heals or not; a global fault (a control plane component killed)
// applies to the whole lab, so its runs are a batch of their own.
type soakFault struct {
	name     string
	scenario string
	heals    bool
	runs     int
	global   *globalFault
	// timeout, when set, is the gates' timeout instead of soakTimeout.
	timeout time.Duration
}

// progressDeadline is the Deployments' default progressDeadlineSeconds
// (600): a readiness probe that never passes is a failure only then, for
// every gate, since a slow starter looks the same before it (the
// readiness twins get a gate a minute longer).
const progressDeadline = 600 * time.Second

// globalFault kills a component of the lab with its supervisor held, and
// lets the supervisor restart it down later (never, with down 0, until the
// batch ends). before kills it before the batch's rollouts are applied
// (the scheduler, the controller manager: else they would have done their
// part already); else after them, by after.
type globalFault struct {
	component   string
	before      bool
	after, down time.Duration
}

// soakFaults: each healing fault beside its terminal twin. Scenarios a
// lab build does not have yet are left out with a printed reason.
func soakFaults() []soakFault {
	var out []soakFault
	for _, f := range []struct {
		heal, twin string
		timeout    time.Duration
	}{
		{"configmap-late", "configmap-missing", 0},
		{"secret-late", "mount-secret-missing", 0},
		{"webhook-late", "webhook-unavailable", 0},
		{"registry-503-heals", "registry-503", 0},
		{"registry-503-long-heals", "registry-503", 0},
		{"registry-429-heals", "registry-429", 0},
		{"pull-slow-heals", "pull-stalled", 0},
		{"ready-after-delay", "readiness-failing", progressDeadline + time.Minute},
		{"start-delay", "readiness-tcp-failing", progressDeadline + time.Minute},
	} {
		heal, twin := scaled(32), scaled(16)
		if sc, err := scenarios.Get(f.heal); err == nil && sc.Exclusive {
			// Played alone, one after the other (a pull that holds the
			// nodes' image pullers): fewer runs, or they take an hour.
			heal, twin = scaled(6), scaled(6)
		}
		out = append(out, soakFault{name: f.heal, scenario: f.heal, heals: true, runs: heal})
		if !slices.ContainsFunc(out, func(s soakFault) bool { return s.name == f.twin }) {
			out = append(out, soakFault{name: f.twin, scenario: f.twin, runs: twin, timeout: f.timeout})
		}
	}
	for _, c := range []struct{ name, component string }{
		{"scheduler", state.Scheduler},
		{"controller-manager", state.ControllerManager},
	} {
		out = append(out,
			soakFault{name: c.name + "-restart", scenario: "healthy", heals: true, runs: scaled(10), global: &globalFault{component: c.component, before: true, down: 20 * time.Second}},
			soakFault{name: c.name + "-down", scenario: "healthy", runs: scaled(10), global: &globalFault{component: c.component, before: true}})
	}
	// ready-after-delay: the rollout is still under way when the API
	// server goes (healthy's pods are ready in seconds).
	out = append(out, soakFault{name: "apiserver-restart", scenario: "ready-after-delay", heals: true, runs: scaled(10),
		global: &globalFault{component: state.APIServer, after: 5 * time.Second, down: 10 * time.Second}})
	// The simulated nodes' kubelet down for 90 s from before the rollout:
	// the node lifecycle controller marks the nodes NotReady after its
	// 50 s grace, for about 40 s, and the pods start once it is back. (Its
	// terminal twin would need a gate longer than the pods' 300 s
	// not-ready toleration, which kubectl chain waits out.)
	out = append(out, soakFault{name: "node-not-ready", scenario: "healthy", heals: true, runs: scaled(10),
		global: &globalFault{component: state.Kubelet, before: true, down: 90 * time.Second}})
	return out
}

// scaled is n times SOAK_SCALE (default 1; at least 1): a smaller soak
// to try the harness, SOAK_SCALE=0.1.
func scaled(n int) int {
	f, err := strconv.ParseFloat(os.Getenv("SOAK_SCALE"), 64)
	if err != nil || f <= 0 {
		return n
	}
	return max(1, int(float64(n)*f+0.5))
}

// start kills the component and returns what ends the fault for good.
func (g *globalFault) start(b *testing.B, l state.Layout) (release func()) {
	sup := labPid(b, l, state.Supervisor)
	if err := syscall.Kill(sup, syscall.SIGSTOP); err != nil {
		b.Fatal(err)
	}
	killComponent(b, l, g.component)
	var once sync.Once
	resume := func() {
		once.Do(func() {
			if err := syscall.Kill(sup, syscall.SIGCONT); err != nil {
				b.Error(err)
			}
		})
	}
	if g.down > 0 {
		time.AfterFunc(g.down, resume)
	}
	return resume
}

// gateRun is one gate's outcome on one rollout.
type gateRun struct {
	code     int
	timedOut bool
	took     time.Duration
}

// soakRun is one rollout and the three gates' outcomes.
type soakRun struct {
	fault     string
	completed bool
	gates     map[string]gateRun
}

// Gate names, in the table's order.
const (
	gateChain   = "kubectl chain --wait"
	gateRollout = "kubectl rollout status"
	gateKstatus = "kstatus wait"
)

// BenchmarkSoak runs the soak once (-benchtime 1x) on the e2e's lab and
// prints, per fault and gate, false failures (a non-zero exit on a
// rollout that then completed), missed failures (exit 0 or a timeout on
// one that never completed) and the time to the verdict (median, p95).
//
//	go -C lab test ./e2e -run '^$' -bench Soak -benchtime 1x -timeout 120m
//
// SOAK_SCALE=0.1 plays a tenth of the runs; SOAK_ONLY=NAME,NAME only those
// faults.
func BenchmarkSoak(b *testing.B) {
	layout := state.Layout{Dir: stateDir}
	var runs []soakRun
	var batch []soakFault
	flush := func(global *soakFault) {
		if len(batch) == 0 {
			return
		}
		runs = append(runs, soakBatch(b, layout, batch, global)...)
		batch = nil
	}
	var long []soakFault // runs whose gates wait longer: batched together
	only := map[string]bool{}
	for _, n := range strings.Split(os.Getenv("SOAK_ONLY"), ",") {
		if n != "" {
			only[n] = true
		}
	}
	for _, f := range soakFaults() {
		if len(only) > 0 && !only[f.name] {
			continue
		}
		if _, err := scenarios.Get(f.scenario); err != nil {
			fmt.Printf("soak: %s left out: %v\n", f.name, err)
			continue
		}
		if f.global != nil {
			flush(nil)
			batch = []soakFault{f}
			flush(&f)
			continue
		}
		if sc, _ := scenarios.Get(f.scenario); sc.Exclusive {
			// A scenario that holds the nodes (their image pullers, a
			// taint) is played alone, as the e2e plays it: 16 stalled
			// pulls at once on 3 nodes queue behind each other, and no
			// gate sees a failure repeat within its timeout.
			for i := 0; i < f.runs; i++ {
				flush(nil)
				batch = []soakFault{{name: f.name, scenario: f.scenario, heals: f.heals, runs: 1, timeout: f.timeout}}
				flush(nil)
			}
			continue
		}
		if f.timeout > 0 {
			long = append(long, f)
			continue
		}
		for i := 0; i < f.runs; i++ {
			batch = append(batch, soakFault{name: f.name, scenario: f.scenario, heals: f.heals, runs: 1})
			if len(batch) == soakBatchSize {
				flush(nil)
			}
		}
	}
	flush(nil)
	for _, f := range long {
		for i := 0; i < f.runs; i++ {
			batch = append(batch, soakFault{name: f.name, scenario: f.scenario, heals: f.heals, runs: 1, timeout: f.timeout})
			if len(batch) == soakBatchSize {
				flush(nil)
			}
		}
	}
	flush(nil)
	printSoak(runs, soakFaults())
}

// soakBatchSize is how many rollouts run at once: enough to finish in
// reasonable time, few enough that the lab and its 2 cores keep up.
const soakBatchSize = 40

// soakBatch applies each rollout of batch in a namespace of its own (a
// global fault's runs times), follows each with the three gates, applies
// the global fault meanwhile, and then watches whether each completes.
func soakBatch(b *testing.B, layout state.Layout, batch []soakFault, global *soakFault) []soakRun {
	ctx, cancel := context.WithTimeout(context.Background(), progressDeadline+time.Minute+soakAfter+5*time.Minute)
	defer cancel()
	if global != nil {
		batch = nil
		for i := 0; i < global.runs; i++ {
			batch = append(batch, *global)
		}
	}
	start := time.Now()
	names := make([]string, len(batch))
	for i := range batch {
		names[i] = fmt.Sprintf("soak-%s-%d-%d", batch[i].name, start.Unix()%100000, i)
	}
	out := make([]soakRun, len(batch))
	var wg sync.WaitGroup
	release := func() {}
	var opts scenarios.Options
	if global != nil && global.global.before {
		// The namespaces and their ServiceAccounts first: the controller
		// manager makes those.
		for _, ns := range names {
			createNamespace(ctx, b, ns)
		}
		opts.InNamespace = true
		release = global.global.start(b, layout)
	}
	for i, f := range batch {
		ns := names[i]
		sc, err := scenarios.Get(f.scenario)
		if err != nil {
			b.Fatal(err)
		}
		if err := scenarios.ApplyWith(ctx, client, sc, ns, opts); err != nil {
			release()
			b.Fatalf("%s: %v", ns, err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = followRun(ctx, b, f, sc, ns)
		}()
	}
	if global != nil && !global.global.before {
		time.Sleep(global.global.after)
		release = global.global.start(b, layout)
	}
	wg.Wait()
	release()
	if global != nil {
		waitServing(ctx, b)
	}
	for i, ns := range names {
		// The namespace, and what the scenario made outside it.
		if sc, err := scenarios.Get(batch[i].scenario); err == nil {
			_ = scenarios.Delete(context.Background(), client, sc, ns)
		}
	}
	fmt.Printf("soak: batch of %d (%s...) in %v\n", len(batch), batch[0].name, time.Since(start).Round(time.Second))
	return out
}

// followRun starts the scenario's later step, runs the three gates at
// once, then watches whether the rollout completes.
func followRun(ctx context.Context, b *testing.B, f soakFault, sc scenarios.Scenario, ns string) soakRun {
	if sc.Later > 0 {
		go func() { _ = scenarios.ApplyLater(ctx, client, sc, ns, scenarios.Options{}) }()
	}
	r := soakRun{fault: f.name, gates: map[string]gateRun{}}
	timeout := soakTimeout
	if f.timeout > 0 {
		timeout = f.timeout
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for name, gate := range map[string]func() gateRun{
		gateChain: func() gateRun {
			return runGate(ctx, "timed out after", chainBin, "deploy/web", "-n", ns, "--wait", "--timeout", timeout.String(), "-o", "json", "--kubeconfig", kubeconfig)
		},
		gateRollout: func() gateRun {
			return runGate(ctx, "timed out waiting", "kubectl", "rollout", "status", "deploy/web", "-n", ns, "--timeout", timeout.String(), "--kubeconfig", kubeconfig)
		},
		gateKstatus: func() gateRun { return kstatusWait(ctx, ns, "web", timeout) },
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := gate()
			mu.Lock()
			r.gates[name] = g
			mu.Unlock()
		}()
	}
	wg.Wait()
	deadline := time.Now().Add(soakAfter)
	for !r.completed && time.Now().Before(deadline) && ctx.Err() == nil {
		d, err := client.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
		r.completed = err == nil && available(d) && d.Status.UpdatedReplicas == *d.Spec.Replicas &&
			d.Status.ReadyReplicas == *d.Spec.Replicas && d.Status.ObservedGeneration >= d.Generation
		if !r.completed {
			time.Sleep(2 * time.Second)
		}
	}
	return r
}

// runGate runs one gate's command; timedOut says its stderr said it timed
// out (a non-zero exit that is not a verdict).
func runGate(ctx context.Context, timeoutWords string, name string, args ...string) gateRun {
	cmd := exec.CommandContext(ctx, name, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	g := gateRun{took: time.Since(start)}
	if ee, ok := err.(*exec.ExitError); ok {
		g.code = ee.ExitCode()
	} else if err != nil {
		g.code = -1
	}
	g.timedOut = g.code != 0 && strings.Contains(stderr.String(), timeoutWords)
	return g
}

// waitServing waits for the lab's control plane to answer again after a
// global fault, before the next batch.
func waitServing(ctx context.Context, b *testing.B) {
	poll(ctx, b, "the control plane after the fault", func() bool {
		_, err := client.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{})
		return err == nil
	})
	time.Sleep(5 * time.Second) // the restarted component's first sync
}
