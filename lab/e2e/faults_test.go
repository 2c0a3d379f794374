package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

// TestLabFaults breaks a second lab of one node, in its own state
// directory, the ways a lab breaks, so that the shared lab and the scenarios
// stay untouched: a second up of the same lab; the scheduler killed (it
// comes back and schedules); etcd killed (it comes back on its data, and the
// objects are still there); a component whose port another process took
// (the supervisor gives up and status says what to do); then down, which
// must leave no process, and down again.
func TestLabFaults(t *testing.T) {
	alone(t)
	begin := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	run := func(args ...string) (string, error) { return labAt(faultsDir, args...) }
	layout := state.Layout{Dir: faultsDir}
	marker := []byte("\x00" + faultsDir + "\x00")
	t.Cleanup(func() { _, _ = run("down") })

	if out, err := run("up", "--nodes", "1"); err != nil {
		t.Fatalf("up: %v\n%s", err, out)
	}
	t.Logf("second lab up in %v", time.Since(begin).Round(100*time.Millisecond))
	pids := labPids(t, layout)

	// A second up of the same lab refuses and leaves it running.
	out, err := run("up", "--nodes", "1")
	if err == nil || !strings.Contains(out, "is already running") || !strings.Contains(out, "lab down --state-dir "+faultsDir) {
		t.Errorf("second up: err = %v, want an error naming the running lab and how to stop it:\n%s", err, out)
	}

	c := labClient(t, layout)
	if _, err := c.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "before"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// The scheduler, killed, is restarted and schedules again.
	killed := killComponent(t, layout, state.Scheduler)
	restarted := waitRestart(ctx, t, layout, state.Scheduler, 1)
	if restarted.Pid == killed {
		t.Errorf("the scheduler's pid did not change")
	}
	status, code := statusOf(t, run)
	for _, want := range []string{"kube-scheduler was restarted once; the last one was killed by SIGKILL"} {
		if !strings.Contains(status, want) {
			t.Errorf("status lacks %q:\n%s", want, status)
		}
	}
	if code != 0 {
		t.Errorf("status exited %d with every component running again, want 0:\n%s", code, status)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "after-restart"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "registry.lab.internal/web:v1"}}}}
	if _, err := c.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(ctx, t, "the pod scheduled by the restarted scheduler", func() bool {
		p, err := c.CoreV1().Pods("default").Get(ctx, pod.Name, metav1.GetOptions{})
		return err == nil && p.Spec.NodeName != ""
	})

	// etcd, killed, is restarted on its data: what was stored stays, and
	// the API server writes again.
	killComponent(t, layout, state.Etcd)
	waitRestart(ctx, t, layout, state.Etcd, 1)
	poll(ctx, t, "a write through the API server after etcd's restart", func() bool {
		_, err := c.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "after"}}, metav1.CreateOptions{})
		return err == nil
	})
	if _, err := c.CoreV1().ConfigMaps("default").Get(ctx, "before", metav1.GetOptions{}); err != nil {
		t.Errorf("the ConfigMap stored before etcd's restart: %v", err)
	}

	// Another process takes the scheduler's port while it is dead: the
	// supervisor (held still meanwhile, so the test wins the race) tries,
	// gives up, and status says why and what to do.
	spec, err := state.ReadSpec(layout)
	if err != nil {
		t.Fatal(err)
	}
	sup := labPid(t, layout, state.Supervisor)
	if err := syscall.Kill(sup, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	killComponent(t, layout, state.Scheduler)
	l := takePort(ctx, t, spec.Ports.Scheduler)
	defer l.Close()
	if err := syscall.Kill(sup, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	gaveUp := time.Now()
	poll(ctx, t, "the supervisor to give up on the scheduler", func() bool {
		sv, _ := state.ReadSupervision(layout)
		return sv.Find(state.Scheduler).GaveUp != ""
	})
	t.Logf("gave up after %v", time.Since(gaveUp).Round(100*time.Millisecond))
	status, code = statusOf(t, run)
	for _, want := range []string{
		"kube-scheduler is dead and the lab gave up restarting it: it died 3 times in a row within 10s of starting",
		"address already in use",
		"What to do: another process holds a port of the lab",
		"kubectl chain lab down --state-dir " + faultsDir + " && kubectl chain lab up --state-dir " + faultsDir,
	} {
		if !strings.Contains(status, want) {
			t.Errorf("status lacks %q:\n%s", want, status)
		}
	}
	if code != 1 {
		t.Errorf("status exited %d with a failed component, want 1", code)
	}

	// down leaves no process of the lab: neither the pids it ever had nor
	// any process whose command line names its state directory.
	pids = append(pids, labPids(t, layout)...)
	if out, err := run("down"); err != nil {
		t.Fatalf("down: %v\n%s", err, out)
	}
	for _, pid := range pids {
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil && bytes.Contains(b, marker) {
			t.Errorf("pid %d of the lab still runs after down: %q", pid, b)
		}
	}
	matches, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, m := range matches {
		if b, err := os.ReadFile(m); err == nil && bytes.Contains(b, marker) {
			t.Errorf("%s names the lab after down: %q", m, b)
		}
	}
	if _, err := os.Stat(faultsDir); !os.IsNotExist(err) {
		t.Errorf("state directory after down: %v", err)
	}
	out, err = run("down")
	if err != nil || !strings.Contains(out, "is not running") {
		t.Errorf("down of a lab that is gone: err = %v, output %q", err, out)
	}
	t.Logf("TestLabFaults took %v", time.Since(begin).Round(100*time.Millisecond))
}

// labPids are the pids in the lab's pid files.
func labPids(t *testing.T, l state.Layout) []int {
	var out []int
	for _, c := range append(append([]string(nil), state.Components...), state.Supervisor) {
		if pid := labPid(t, l, c); pid > 0 {
			out = append(out, pid)
		}
	}
	return out
}

func labPid(t testing.TB, l state.Layout, c string) int {
	t.Helper()
	b, err := os.ReadFile(l.Pid(c))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// killComponent sends SIGKILL to a component and returns its pid.
func killComponent(t testing.TB, l state.Layout, c string) int {
	t.Helper()
	pid := labPid(t, l, c)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("killing %s: %v", c, err)
	}
	return pid
}

// waitRestart waits until the supervisor has restarted c n times and the
// new process runs.
func waitRestart(ctx context.Context, t *testing.T, l state.Layout, c string, n int) state.Run {
	t.Helper()
	var r state.Run
	start := time.Now()
	poll(ctx, t, c+" restarted", func() bool {
		sv, _ := state.ReadSupervision(l)
		r = sv.Find(c)
		return r.Restarts() == n && r.Pid > 0
	})
	t.Logf("%s back in %v", c, time.Since(start).Round(100*time.Millisecond))
	if r.LastExit == nil || r.LastExit.Signal != "SIGKILL" {
		t.Errorf("%s's last exit = %+v, want killed by SIGKILL", c, r.LastExit)
	}
	return r
}

// takePort listens on the lab's port as soon as the killed process lets go.
func takePort(ctx context.Context, t *testing.T, port int) net.Listener {
	t.Helper()
	var l net.Listener
	poll(ctx, t, fmt.Sprintf("port %d to be free", port), func() bool {
		var err error
		l, err = net.Listen("tcp", net.JoinHostPort(state.Host, strconv.Itoa(port)))
		return err == nil
	})
	return l
}

func statusOf(t *testing.T, run func(...string) (string, error)) (string, int) {
	t.Helper()
	out, err := run("status")
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out, ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return out, 0
}

func labClient(t *testing.T, l state.Layout) kubernetes.Interface {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", l.Kubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Timeout = 5 * time.Second
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
