package e2e

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// A child's peak RSS as wait4 reports it (ru_maxrss) counts its parent's:
// Go starts a child on the parent's address space (CLONE_VM), and the
// kernel records that space's high-water mark as the child's when it
// executes the program. The benchmarks' own process holds hundreds of MB
// (the fill's lists), so every command measured from it read at least
// that. A command measured for its memory is started by a small process
// instead, this test binary started anew (TestMain: spawnEnv), which
// reports the command's peak and wall time on its fd 3.
const spawnEnv = "KUBECTL_CHAIN_E2E_SPAWN"

// spawn runs args, its stdio the spawner's, and writes "PEAK_KB WALL_NS"
// on fd 3; it returns the command's exit code.
func spawn(args []string) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, err)
		return 127
	}
	peak := int64(0)
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		peak = ru.Maxrss
	}
	report := os.NewFile(3, "report")
	fmt.Fprintf(report, "%d %d", peak, wall.Nanoseconds())
	report.Close()
	return cmd.ProcessState.ExitCode()
}

// spawned is args started through spawn: the command, and a read of its
// peak RSS (MB) and wall time to call after it ended.
func spawned(ctx context.Context, args []string) (*exec.Cmd, func() (float64, time.Duration, error)) {
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), spawnEnv+"=1")
	r, w, err := os.Pipe()
	if err != nil {
		return cmd, func() (float64, time.Duration, error) { return 0, 0, err }
	}
	cmd.ExtraFiles = []*os.File{w}
	return cmd, func() (float64, time.Duration, error) {
		w.Close()
		defer r.Close()
		b, err := io.ReadAll(r)
		if err != nil {
			return 0, 0, err
		}
		var kb, ns int64
		if _, err := fmt.Sscanf(strings.TrimSpace(string(b)), "%d %d", &kb, &ns); err != nil {
			return 0, 0, fmt.Errorf("the spawner's report %q: %v", b, err)
		}
		return float64(kb) / 1024, time.Duration(ns), nil
	}
}
