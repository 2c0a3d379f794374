package lab

import (
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubectl-chain/kubectl-chain/lab/proc"
	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

// shComponents runs each component as a shell script; the state directory
// is an argument, so the lab's marker finds the processes.
func shComponents(l Lab, scripts map[string]string) func(string) (*exec.Cmd, error) {
	return func(c string) (*exec.Cmd, error) {
		return proc.Spawn("/bin/sh", []string{"-c", scripts[c], "sh", l.Layout.Dir}, l.Layout.Log(c), l.Layout.Pid(c))
	}
}

// superviseForTest runs a supervisor of shell scripts until the test ends,
// then stops it and every process it started.
func superviseForTest(t *testing.T, p Policy, scripts map[string]string) Lab {
	t.Helper()
	l := testLab(t)
	if err := os.MkdirAll(l.Layout.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range state.Components {
		if _, ok := scripts[c]; ok {
			names = append(names, c)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	s := newSupervisor(l, p, names, io.Discard, shComponents(l, scripts))
	go func() { done <- s.run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("supervisor: %v", err)
		}
		l.stop(l.Processes())
	})
	return l
}

// waitRun polls supervisor.json until ok holds for component c.
func waitRun(t *testing.T, l Lab, c string, ok func(state.Run) bool) state.Run {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		sv, err := state.ReadSupervision(l.Layout)
		if err != nil {
			t.Fatal(err)
		}
		r := sv.Find(c)
		if ok(r) {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never reached the state; last %+v", c, r)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func testPolicy() Policy {
	return Policy{Backoff: 10 * time.Millisecond, MaxBackoff: 100 * time.Millisecond, QuickExit: 2 * time.Second,
		MaxQuickExits: 3, MaxRestarts: 10, Window: time.Minute}
}

func TestSuperviseRestartsAKilledComponent(t *testing.T) {
	l := superviseForTest(t, testPolicy(), map[string]string{
		state.Scheduler: "echo serving; while :; do sleep 1; done",
		state.Etcd:      "while :; do sleep 1; done",
	})
	first := waitRun(t, l, state.Scheduler, func(r state.Run) bool { return r.Pid > 0 })
	// Let it print before it dies: its last words are what status shows.
	waitLog(t, l, state.Scheduler, "serving")
	if err := syscall.Kill(first.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	r := waitRun(t, l, state.Scheduler, func(r state.Run) bool { return r.Starts == 2 && r.Pid > 0 })
	if r.Pid == first.Pid || !proc.Alive(r.Pid, l.marker()) {
		t.Errorf("restarted pid %d (first %d) is not a live process of the lab", r.Pid, first.Pid)
	}
	if r.Restarts() != 1 || r.LastExit == nil || r.LastExit.Signal != "SIGKILL" || r.LastExit.Code != -1 || r.GaveUp != "" {
		t.Fatalf("run = %+v (last exit %+v), want 1 restart after SIGKILL", r, r.LastExit)
	}
	if got := strings.Join(r.LastExit.LogTail, "\n"); !strings.Contains(got, "serving") {
		t.Errorf("log tail at exit = %q, want the line it printed", got)
	}
	if pid, _ := proc.ReadPid(l.Layout.Pid(state.Scheduler)); pid != r.Pid {
		t.Errorf("pid file says %d, supervisor %d", pid, r.Pid)
	}
	if e := waitRun(t, l, state.Etcd, func(state.Run) bool { return true }); e.Starts != 1 {
		t.Errorf("etcd started %d times, want 1: only the dead component restarts", e.Starts)
	}

	// status names it, its restart and its last exit.
	var b strings.Builder
	if err := l.Status(time.Now(), nil).Print(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"kube-scheduler was restarted once; the last one was killed by SIGKILL", "  serving"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, b.String())
		}
	}
}

func TestSuperviseGivesUpOnACrashAtOnce(t *testing.T) {
	l := superviseForTest(t, testPolicy(), map[string]string{
		state.APIServer: "echo 'E1202 failed to listen on 127.0.0.1:6443: bind: address already in use'; exit 3",
	})
	r := waitRun(t, l, state.APIServer, func(r state.Run) bool { return r.GaveUp != "" })
	if r.Starts != 3 || r.LastExit == nil || r.LastExit.Code != 3 || !r.RestartAt.IsZero() {
		t.Fatalf("run = %+v (last exit %+v), want 3 starts, exit code 3, no restart due", r, r.LastExit)
	}
	if want := "it died 3 times in a row within 2s of starting"; r.GaveUp != want {
		t.Errorf("gave up %q, want %q", r.GaveUp, want)
	}
	time.Sleep(100 * time.Millisecond)
	if again := waitRun(t, l, state.APIServer, func(state.Run) bool { return true }); again.Starts != 3 {
		t.Errorf("started again after giving up: %d starts", again.Starts)
	}
	var b strings.Builder
	rep := l.Status(time.Now(), nil)
	if rep.Running() {
		t.Error("a lab with a failed component reports Running")
	}
	if err := rep.Print(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"kube-apiserver is dead and the lab gave up restarting it: it died 3 times in a row within 2s of starting (last: exit code 3",
		"bind: address already in use",
		"What to do: another process holds a port of the lab",
		"kubectl chain lab down --state-dir " + l.Layout.Dir + " && kubectl chain lab up --state-dir " + l.Layout.Dir,
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, b.String())
		}
	}
}

func waitLog(t *testing.T, l Lab, c, want string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if b, _ := os.ReadFile(l.Layout.Log(c)); strings.Contains(string(b), want) {
			return
		}
	}
	t.Fatalf("%s never logged %q", c, want)
}
