package lab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kubectl-chain/kubectl-chain/lab/proc"
	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

func testLab(t *testing.T) Lab {
	l, err := Open("lab", filepath.Join(t.TempDir(), "lab"), os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestDownWhenNothingRuns(t *testing.T) {
	l := testLab(t)
	var out bytes.Buffer
	if err := l.Down(&out, nil); err != nil {
		t.Fatal(err)
	}
	if want := "Lab \"lab\" is not running (no state in " + l.Layout.Dir + ").\n"; out.String() != want {
		t.Errorf("Down printed %q, want %q", out.String(), want)
	}
}

func TestDownRemovesStaleState(t *testing.T) {
	l := testLab(t)
	if err := os.MkdirAll(l.Layout.Pids(), 0o700); err != nil {
		t.Fatal(err)
	}
	// A pid that cannot be ours: the kernel's init.
	if err := os.WriteFile(l.Layout.Pid("etcd"), []byte("1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := l.Down(&out, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "was not running; removed its stale state") {
		t.Errorf("Down printed %q", out.String())
	}
	if _, err := os.Stat(l.Layout.Dir); !os.IsNotExist(err) {
		t.Errorf("state directory still there: %v", err)
	}
}

func TestRefusesForeignDirectory(t *testing.T) {
	l := testLab(t)
	if err := os.MkdirAll(l.Layout.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(l.Layout.Dir, "notes.txt"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := l.Down(&bytes.Buffer{}, nil); err == nil {
		t.Error("Down removed a directory that is not a lab's")
	}
	if err := l.clearStale(&bytes.Buffer{}); err == nil {
		t.Error("up would reuse a directory that is not a lab's")
	}
}

func TestValidate(t *testing.T) {
	ok := UpOptions{Nodes: 3, NodeCPU: "4", NodeMemory: "8Gi", NodePods: 110}
	bad := []UpOptions{
		{Nodes: 0, NodeCPU: "4", NodeMemory: "8Gi", NodePods: 110},
		{Nodes: MaxNodes + 1, NodeCPU: "4", NodeMemory: "8Gi", NodePods: 110},
		{Nodes: 3, NodeCPU: "four", NodeMemory: "8Gi", NodePods: 110},
		{Nodes: 3, NodeCPU: "4", NodeMemory: "-1", NodePods: 110},
		{Nodes: 3, NodeCPU: "4", NodeMemory: "8Gi", NodePods: 0},
	}
	if err := ok.Validate(); err != nil {
		t.Errorf("Validate(%+v) = %v", ok, err)
	}
	for _, o := range bad {
		if err := o.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil, want an error", o)
		}
	}
}

// TestValidateTrafficController checks --traffic-controller: an executable
// file, on the lab's own engine, not frozen; each refusal says what to do.
func TestValidateTrafficController(t *testing.T) {
	dir := t.TempDir()
	prog, plain := filepath.Join(dir, "lab-traefik"), filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plain, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ok := UpOptions{Nodes: 3, NodeCPU: "4", NodeMemory: "8Gi", NodePods: 110, TrafficController: prog}
	if err := ok.Validate(); err != nil {
		t.Errorf("Validate(%+v) = %v", ok, err)
	}
	for _, c := range []struct {
		change func(*UpOptions)
		want   string
	}{
		{func(o *UpOptions) { o.TrafficController = filepath.Join(dir, "missing") }, "go build -C lab/trafficbin"},
		{func(o *UpOptions) { o.TrafficController = plain }, "not an executable file"},
		{func(o *UpOptions) { o.TrafficController = dir }, "not an executable file"},
		{func(o *UpOptions) { o.Engine = EngineKind }, "neither --engine kind nor --frozen"},
		{func(o *UpOptions) { o.Frozen, o.Nodes = true, 0 }, "neither --engine kind nor --frozen"},
	} {
		o := ok
		c.change(&o)
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate(%+v) = %v, want an error saying %q", o, err, c.want)
		}
	}
}

func TestLastLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.log")
	if err := os.WriteFile(path, []byte("a\nb\nc\nd\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := lastLines(path, 2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"c", "d"}, got); diff != "" {
		t.Errorf("lastLines (-want +got):\n%s", diff)
	}
}

func TestComponentExitError(t *testing.T) {
	err := error(&componentExitError{component: "kube-apiserver", err: errors.New("exit status 1")})
	if want := "kube-apiserver exited while the lab was starting: exit status 1"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
}

func TestExplainNamesTheComponentAndAPortInUse(t *testing.T) {
	l := testLab(t)
	if err := os.MkdirAll(l.Layout.Logs(), 0o700); err != nil {
		t.Fatal(err)
	}
	log := "I1202 starting\nE1202 failed to create listener: failed to listen on 127.0.0.1:6443: listen tcp 127.0.0.1:6443: bind: address already in use\n"
	if err := os.WriteFile(l.Layout.Log("kube-apiserver"), []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	got := l.explain(&componentExitError{component: "kube-apiserver", err: errors.New("exit status 1")}).Error()
	for _, want := range []string{
		"kube-apiserver exited while the lab was starting: exit status 1",
		"bind: address already in use",
		"run `up` again to choose new ports",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("explanation lacks %q:\n%s", want, got)
		}
	}
}

// spawnMarked starts a process whose command line carries the lab's state
// directory, as the lab's own processes do, and records it as component c.
func spawnMarked(t *testing.T, l Lab, c string) int {
	t.Helper()
	cmd, err := proc.Spawn("/bin/sh", []string{"-c", "while :; do sleep 1; done", "sh", l.Layout.Dir}, l.Layout.Log(c), l.Layout.Pid(c))
	if err != nil {
		t.Fatal(err)
	}
	go cmd.Wait()
	t.Cleanup(func() { proc.Stop([]int{cmd.Process.Pid}, l.marker(), 5*time.Second) })
	// Until the child has exec'd, its command line is still this test's.
	for end := time.Now().Add(5 * time.Second); !proc.Alive(cmd.Process.Pid, l.marker()); {
		if time.Now().After(end) {
			t.Fatalf("process %d never showed the lab's marker", cmd.Process.Pid)
		}
		time.Sleep(time.Millisecond)
	}
	return cmd.Process.Pid
}

func TestSecondUpOfARunningLab(t *testing.T) {
	l := testLab(t)
	if err := os.MkdirAll(l.Layout.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := state.WriteSpec(l.Layout, state.Spec{Name: "lab"}); err != nil {
		t.Fatal(err)
	}
	// Only the supervisor lives: the lab still counts as running.
	spawnMarked(t, l, state.Supervisor)
	_, err := l.Up(context.Background(), UpOptions{Nodes: 1, NodeCPU: "1", NodeMemory: "1Gi", NodePods: 10, Timeout: time.Second, Progress: io.Discard})
	var re *RunningError
	if !errors.As(err, &re) {
		t.Fatalf("second up: err = %v, want a RunningError", err)
	}
	want := `lab "lab" is already running (kubeconfig ` + l.Layout.Kubeconfig() + "); use it (`kubectl chain lab status --state-dir " +
		l.Layout.Dir + "` shows its health), or stop it first with `kubectl chain lab down --state-dir " + l.Layout.Dir + "`"
	if err.Error() != want {
		t.Errorf("error:\n%s\nwant:\n%s", err, want)
	}
	if _, err := os.Stat(l.Layout.Spec()); err != nil {
		t.Errorf("the running lab's state was touched: %v", err)
	}
}

func TestUpClearsTheStateACrashLeft(t *testing.T) {
	l := testLab(t)
	for _, d := range []string{l.Layout.Pids(), l.Layout.Logs(), l.Layout.EtcdData()} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// A pid that was a process of the lab and is gone, a corrupt pid file,
	// and files a crash leaves: a log, etcd's data, a half-written record.
	dead := exec.Command("/bin/true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		l.Layout.Spec():                                  `{"name":"lab"}`,
		l.Layout.Pid(state.APIServer):                    fmt.Sprintf("%d\n", dead.Process.Pid),
		l.Layout.Pid(state.Supervisor):                   "garbage",
		l.Layout.Log(state.Etcd):                         "etcd is ready\n",
		filepath.Join(l.Layout.EtcdData(), "member"):     "",
		l.Layout.Supervision() + ".tmp":                  "{",
		filepath.Join(l.Layout.Dir, "kubeconfigs.stale"): "",
	}
	for p, c := range files {
		if err := os.WriteFile(p, []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	if err := l.clearStale(&out); err != nil {
		t.Fatal(err)
	}
	if want := "Removing the stale state of lab \"lab\" (no process alive: it crashed or the machine restarted).\n"; out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
	if _, err := os.Stat(l.Layout.Dir); !os.IsNotExist(err) {
		t.Errorf("stale state still there: %v", err)
	}
}

func TestStatusOfALabWithoutSupervisor(t *testing.T) {
	l := testLab(t)
	if err := os.MkdirAll(l.Layout.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, c := range state.Components {
		spawnMarked(t, l, c)
	}
	r := l.Status(time.Now(), nil)
	if r.Running() {
		t.Error("Running() with the supervisor dead")
	}
	var b strings.Builder
	if err := r.Print(&b); err != nil {
		t.Fatal(err)
	}
	if want := "The supervisor is not running: a component that dies now stays dead."; !strings.Contains(b.String(), want) {
		t.Errorf("status lacks %q:\n%s", want, b.String())
	}
}

// TestStopStagesCoverComponents: a component down does not stop would
// outlive its lab.
func TestStopStagesCoverComponents(t *testing.T) {
	spec := state.Spec{RealNodes: []state.RealNode{{Name: state.RealNodeName(0)}, {Name: state.RealNodeName(1)}},
		TrafficController: "/bin/lab-traefik", RolloutsController: "/bin/rollouts-controller"}
	for _, c := range spec.ComponentNames() {
		n := 0
		for _, stage := range stopStages {
			if inStage(stage, c) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("down stops %s in %d stages: put it in exactly one of stopStages", c, n)
		}
	}
}
