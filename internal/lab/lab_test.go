package lab

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
	if err := l.Down(&out); err != nil {
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
	if err := l.Down(&out); err != nil {
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
	if err := l.Down(&bytes.Buffer{}); err == nil {
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
