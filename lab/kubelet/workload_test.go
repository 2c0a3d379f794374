package kubelet

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// TestProgramOutcome plays chain-workload's flags as the real program
// behaves under a real node.
func TestProgramOutcome(t *testing.T) {
	limit := corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("128Mi")}}
	tests := []struct {
		name string
		c    corev1.Container
		want RunOutcome
		ok   bool
	}{
		{"no flags: annotations decide", corev1.Container{Image: "registry.lab.internal/web:v1"}, RunOutcome{}, false},
		{"another image", corev1.Container{Image: "nginx:1", Args: []string{"--exit", "1"}}, RunOutcome{}, false},
		{"exit 1", corev1.Container{Image: "registry.lab.internal/web:v1", Args: []string{"--exit", "1", "--after", "1s"}},
			RunOutcome{Ready: true, Exit: &Exit{After: time.Second, Code: 1, Reason: reasonError}}, true},
		{"exit 0", corev1.Container{Image: "registry.lab.internal/web:v1", Args: []string{"--exit", "0"}},
			RunOutcome{Ready: true, Exit: &Exit{Code: 0, Reason: reasonCompleted}}, true},
		{"64Mi a second into 128Mi: killed with the second allocation", corev1.Container{Image: "registry.lab.internal/web:v1", Args: []string{"--alloc-mb", "64"}, Resources: limit},
			RunOutcome{Ready: true, Exit: &Exit{After: time.Second, Code: 137, Reason: reasonOOMKilled}}, true},
		{"probes", corev1.Container{Image: "registry.lab.internal/web:v1", Env: []corev1.EnvVar{{Name: "CHAIN_UNHEALTHY", Value: "true"}, {Name: "CHAIN_READY_AFTER", Value: "1h"}}},
			RunOutcome{Ready: true, LivenessFails: true, ReadinessFails: true, ReadyAfter: time.Hour}, true},
		{"a flag the program refuses", corev1.Container{Image: "registry.lab.internal/web:v1", Args: []string{"serve"}},
			RunOutcome{Ready: true, Exit: &Exit{Code: 2, Reason: reasonError}}, true},
	}
	for _, tt := range tests {
		got, ok := programOutcome(&tt.c)
		if ok != tt.ok || (ok && !sameOutcome(got, tt.want)) {
			t.Errorf("%s: got %+v %v (exit %+v), want %+v %v", tt.name, got, ok, got.Exit, tt.want, tt.ok)
		}
	}
}

func sameOutcome(a, b RunOutcome) bool {
	if (a.Exit == nil) != (b.Exit == nil) || a.Exit != nil && *a.Exit != *b.Exit {
		return false
	}
	a.Exit, b.Exit = nil, nil
	return a.Ready == b.Ready && a.LivenessFails == b.LivenessFails && a.ReadinessFails == b.ReadinessFails && a.ReadyAfter == b.ReadyAfter && a.Stop == b.Stop
}

func TestPostStartFails(t *testing.T) {
	hook := func(h corev1.LifecycleHandler) corev1.Container {
		return corev1.Container{Image: "registry.lab.internal/web:v1", Lifecycle: &corev1.Lifecycle{PostStart: &h}}
	}
	exec := func(cmd ...string) corev1.Container {
		return hook(corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: cmd}})
	}
	for _, tt := range []struct {
		name string
		c    corev1.Container
		want bool
	}{
		{"no hook", corev1.Container{Image: "registry.lab.internal/web:v1"}, false},
		{"the program exits 1", exec("/chain-workload", "--exit", "1", "--http", ""), true},
		{"the program exits 0", exec("/chain-workload", "--exit", "0", "--http", ""), false},
		{"a command the image lacks: not played", exec("/bin/sh", "-c", "true"), false},
		{"a sleep", hook(corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 1}}), false},
	} {
		if _, got := postStartExit(&tt.c); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestStartError(t *testing.T) {
	for _, tt := range []struct {
		c    corev1.Container
		want string
	}{
		{corev1.Container{Image: "registry.lab.internal/web:v1"}, ""},
		{corev1.Container{Image: "registry.lab.internal/web:v1", Command: []string{"/chain-workload"}}, ""},
		{corev1.Container{Image: "nginx:1", Command: []string{"/bin/sh"}}, ""},
		{corev1.Container{Image: "registry.lab.internal/web:no-entrypoint"},
			`failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: exec: "/no-such-program": stat /no-such-program: no such file or directory`},
		{corev1.Container{Image: "registry.lab.internal/web:v1", Command: []string{"sh", "-c", "true"}},
			`failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: exec: "sh": executable file not found in $PATH`},
	} {
		if got := startError(&tt.c); got != tt.want {
			t.Errorf("%s %v: %q, want %q", tt.c.Image, tt.c.Command, got, tt.want)
		}
	}
}
