package proc

import (
	"syscall"
	"time"
)

// Stop sends SIGTERM to every live pid, waits up to grace for them to exit,
// then SIGKILLs the rest and waits for them to go. It returns the pids that
// needed SIGKILL.
func Stop(pids []int, marker string, grace time.Duration) []int {
	var live []int
	for _, pid := range pids {
		if Alive(pid, marker) {
			_ = syscall.Kill(pid, syscall.SIGTERM)
			live = append(live, pid)
		}
	}
	live = waitGone(live, marker, grace)
	for _, pid := range live {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	waitGone(live, marker, 5*time.Second)
	return live
}

// waitGone polls until every pid is gone or timeout passes, and returns the
// ones still alive.
func waitGone(pids []int, marker string, timeout time.Duration) []int {
	deadline := time.Now().Add(timeout)
	for {
		var still []int
		for _, pid := range pids {
			if Alive(pid, marker) {
				still = append(still, pid)
			}
		}
		if len(still) == 0 || time.Now().After(deadline) {
			return still
		}
		pids = still
		time.Sleep(25 * time.Millisecond)
	}
}
