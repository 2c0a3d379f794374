// Package e2e runs the real binaries against a real lab: TestMain builds
// kubectl-chain-lab, kubectl-chain, the lab's traffic controller
// (lab-traefik, module lab/trafficbin) and Argo Rollouts'
// controller (module lab/rolloutsbin), starts one lab with both
// in a temporary state directory, runs the tests and always tears the lab
// down.
package e2e

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-chain/kubectl-chain/lab/rollouts"
	"github.com/kubectl-chain/kubectl-chain/lab/state"
	"github.com/kubectl-chain/kubectl-chain/lab/traffic"
)

// The lab every test of the package shares.
var (
	labBin   string
	chainBin string
	stateDir string
	// faultsDir is the state directory of the second lab TestLabFaults
	// breaks; the reaper takes it down too.
	faultsDir string
	// realDir is the state directory of TestRealNode's lab, which has a
	// real node; the reaper takes it down too.
	realDir string
	// restartDir is the lab whose API server
	// TestWaitThroughAPIServerRestart kills.
	restartDir string
	// readmeDir is the lab TestReadmeInstallAndRun starts with the
	// README's line, in a labs' home of its own.
	readmeDir  string
	kubeconfig string
	client     kubernetes.Interface
)

func TestMain(m *testing.M) {
	if os.Getenv(spawnEnv) == "1" {
		os.Exit(spawn(os.Args[1:]))
	}
	flag.Parse()
	raiseParallel()
	os.Exit(run(m))
}

// raiseParallel lets every scenario run at once unless -parallel says
// otherwise: they spend their time waiting on the lab, and the default
// (GOMAXPROCS, 2 here) would run 30 of them two by two. Every top-level
// test is parallel too (turns), and one waiting for its turn holds a
// slot: of the 64, about 30 are free while every test waits, and all but
// two when the scenarios play. More scenarios at once than that starve
// the lab's kubelets on 2 cores (probe and crash timings slip).
func raiseParallel() {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", "64")
	}
}

// Turns. Every top-level test is parallel and waits for its turn:
//   - mainLab: a test that changes the shared lab as a whole, or needs it
//     quiet (taints, counted reads, the scenarios), has it alone (alone);
//     the others share it (shared);
//   - heavy: the tests that load the machine most (every scenario at once,
//     a thousand objects, an API server restart's counted re-lists, the
//     real node) take turns with each other.
//
// So the real node's lab, which is its own, plays beside the other tests
// of the shared lab instead of after them (its 13 minutes were half of the
// package's time): it takes its turn first (heavyFirst). heavy is always
// taken before mainLab.
var (
	mainLab sync.RWMutex
	heavy   sync.Mutex
)

// alone runs t when no other test uses the shared lab.
func alone(t *testing.T) {
	t.Parallel()
	mainLab.Lock()
	t.Cleanup(mainLab.Unlock)
}

// shared runs t beside the other tests that share the lab.
func shared(t *testing.T) {
	t.Parallel()
	mainLab.RLock()
	t.Cleanup(mainLab.RUnlock)
}

// heavyTurn runs t when no other heavy test runs, and, unless its lab is
// its own, alone on the shared lab.
func heavyTurn(t *testing.T, ownLab bool) {
	t.Parallel()
	heavy.Lock()
	t.Cleanup(heavy.Unlock)
	if !ownLab {
		mainLab.Lock()
		t.Cleanup(mainLab.Unlock)
	}
}

// heavyFirst is heavyTurn for the real node's test, whose lab is its own:
// it takes its turn before it pauses (while the tests are still started
// one by one), so it is the first heavy test and plays beside the
// others instead of after them all.
func heavyFirst(t *testing.T) {
	heavy.Lock()
	t.Cleanup(heavy.Unlock)
	t.Parallel()
}

func run(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "kubectl-chain-e2e-")
	if err != nil {
		return fail("creating a temporary directory: %v", err)
	}
	defer os.RemoveAll(tmp)
	labBin, chainBin = filepath.Join(tmp, "kubectl-chain-lab"), filepath.Join(tmp, "kubectl-chain")
	// The real node's lab runs beside the others' tests (turns): it
	// lives in a labs' home of its own, so a doc example that finds the
	// running lab finds only the main one.
	stateDir, faultsDir, realDir = filepath.Join(tmp, "lab"), filepath.Join(tmp, "faults"), filepath.Join(tmp, "real-labs", "real")
	restartDir = filepath.Join(tmp, "restart")
	readmeDir = filepath.Join(tmp, "readme-labs", "lab")
	trafficBin := filepath.Join(tmp, traffic.Program)
	trafficBuilt, rolloutsBuilt := make(chan error, 1), make(chan error, 1)
	go func() { trafficBuilt <- buildTrafficController(trafficBin) }()
	rolloutsBin := filepath.Join(tmp, rollouts.Program)
	go func() { rolloutsBuilt <- buildRolloutsController(rolloutsBin) }()
	if err := build(map[string]string{labBin: "./cmd/kubectl-chain-lab", chainBin: "../cmd/kubectl-chain"}); err != nil {
		return fail("%v", err)
	}
	if err := <-trafficBuilt; err != nil {
		return fail("%v", err)
	}
	if err := <-rolloutsBuilt; err != nil {
		return fail("%v", err)
	}
	// Components run detached from this process. The reaper tears the lab
	// down when this process is gone, however it ends (a panic in a test, a
	// -timeout, a kill); the deferred down covers the normal path.
	if err := startReaper(tmp, stateDir, faultsDir, realDir, restartDir, readmeDir); err != nil {
		return fail("starting the lab reaper: %v", err)
	}
	defer lab("down")
	// The second labs are their tests' to take down; one a failed test
	// left up is taken down here, while the lab binary the reaper would
	// use is still in tmp (the deferred RemoveAll deletes it).
	defer func() {
		for _, d := range []string{faultsDir, realDir, restartDir, readmeDir} {
			if _, err := os.Stat(d); err == nil {
				_, _ = labAt(d, "down")
			}
		}
	}()

	start := time.Now()
	if out, err := lab("up", "--nodes", "3", "--traffic-controller", trafficBin, "--rollouts-controller", rolloutsBin); err != nil {
		status, _ := lab("status")
		return fail("the lab did not start: %v\n%s\n%s\n%s", err, out, status, componentLogs())
	}
	fmt.Printf("e2e: lab up in %.1fs\n", time.Since(start).Seconds())
	out, err := lab("kubeconfig")
	if err != nil {
		return fail("kubeconfig: %v\n%s", err, out)
	}
	kubeconfig = strings.TrimSpace(out)
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fail("%v", err)
	}
	// Many tests poll at once: client-go's default 5 requests/s would
	// throttle them.
	cfg.QPS, cfg.Burst = 100, 200
	if client, err = kubernetes.NewForConfig(cfg); err != nil {
		return fail("%v", err)
	}
	return m.Run()
}

// moduleRoot is the lab module's directory; the plugin's module is its
// parent (the lab requires it through a replace).
func moduleRoot() (string, error) {
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("finding the module root: %w", err)
	}
	return filepath.Dir(strings.TrimSpace(string(gomod))), nil
}

// build compiles each package to its output path from the lab module's
// root. A package outside it (../cmd/kubectl-chain) is built in its own
// module, so the plugin under test links exactly what it ships with.
func build(targets map[string]string) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	for out, pkg := range targets {
		cmd := exec.Command("go", "build", "-o", out, pkg)
		cmd.Dir = root
		if rest, ok := strings.CutPrefix(pkg, "../"); ok {
			cmd.Dir, cmd.Args[len(cmd.Args)-1] = filepath.Dir(root), "./"+rest
		}
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
		}
	}
	return nil
}

// buildTrafficController builds lab-traefik, Traefik's Kubernetes
// providers, from its own module (lab/trafficbin) into out.
func buildTrafficController(out string) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	dir := filepath.Join(root, "trafficbin")
	cmd := exec.Command("go", "build", "-o", out, "./cmd/"+traffic.Program)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s in %s: %v\n%s", traffic.Program, dir, err, b)
	}
	return nil
}

// rolloutsToolchain is the Go release rolloutsbin needs (its go.mod says
// go 1.26.10); the go command fetches it from the module proxy.
const rolloutsToolchain = "GOTOOLCHAIN=go1.27.3"

// buildRolloutsController builds Argo Rollouts' controller from its own
// module (lab/rolloutsbin) into out, and copies its CRDs from
// the module's manifests/crds to rollouts.CRDDir beside it, as the
// README's build line does.
func buildRolloutsController(out string) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	dir := filepath.Join(root, "rolloutsbin")
	gocmd := func(args ...string) ([]byte, error) {
		cmd := exec.Command("go", args...)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), rolloutsToolchain)
		b, err := cmd.CombinedOutput()
		if err != nil {
			return nil, fmt.Errorf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, b)
		}
		return b, nil
	}
	if _, err := gocmd("build", "-o", out, "tool"); err != nil {
		return err
	}
	mod, err := gocmd("list", "-m", "-f", "{{.Dir}}", "github.com/argoproj/argo-rollouts")
	if err != nil {
		return err
	}
	crds, err := filepath.Glob(filepath.Join(strings.TrimSpace(string(mod)), "manifests", "crds", "*-crd.yaml"))
	if err != nil || len(crds) == 0 {
		return fmt.Errorf("no Argo Rollouts CRDs in %s: %v", mod, err)
	}
	into := filepath.Join(filepath.Dir(out), rollouts.CRDDir)
	if err := os.MkdirAll(into, 0o755); err != nil {
		return err
	}
	for _, p := range crds {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(into, filepath.Base(p)), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// lab runs the lab binary on the shared lab's state directory.
func lab(args ...string) (string, error) { return labAt(stateDir, args...) }

// labAt runs the lab binary on the lab in dir.
func labAt(dir string, args ...string) (string, error) {
	cmd := exec.Command(labBin, append(args, "--state-dir", dir)...)
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	err := cmd.Run()
	return b.String(), err
}

// startReaper starts a detached shell that waits for this process to exit,
// then runs `down` on each lab in dirs and removes tmp.
func startReaper(tmp string, dirs ...string) error {
	var quoted []string
	for _, d := range dirs {
		quoted = append(quoted, strconv.Quote(d))
	}
	script := fmt.Sprintf(`while kill -0 %d 2>/dev/null; do sleep 1; done; for d in %s; do %s down --state-dir "$d" >/dev/null 2>&1; done; rm -rf %s`,
		os.Getpid(), strings.Join(quoted, " "), strconv.Quote(labBin), strconv.Quote(tmp))
	cmd := exec.Command("/bin/sh", "-c", script)
	// Its own session, out of reach of the signals that end this process group.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}

// componentLogs is every component's log, for a lab that failed to start.
func componentLogs() string {
	var b strings.Builder
	for _, c := range state.Components {
		out, _ := lab("logs", c)
		lines := strings.Split(out, "\n")
		if len(lines) > 40 {
			lines = lines[len(lines)-40:]
		}
		fmt.Fprintf(&b, "--- %s (last 40 lines)\n%s\n", c, strings.Join(lines, "\n"))
	}
	return b.String()
}

// clientFor connects to the lab of kubeconfig kc with qps requests a
// second (burst twice that).
func clientFor(tb testing.TB, kc string, qps float32) kubernetes.Interface {
	tb.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kc)
	if err != nil {
		tb.Fatal(err)
	}
	cfg.QPS, cfg.Burst = qps, int(2*qps)
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func fail(format string, args ...any) int {
	fmt.Fprintf(os.Stderr, "e2e: "+format+"\n", args...)
	return 1
}
