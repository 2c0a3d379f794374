package lab

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/kubectl-chain/kubectl-chain/lab/proc"
	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

// Policy is when the supervisor restarts a component that died and when it
// stops trying. A component that ran a while and died (killed, a crash, the
// OOM killer) is restarted after Backoff. One that keeps dying at once is
// waited for longer each time, doubling, and given up on after
// MaxQuickExits in a row: restarting it again would only fill its log, and
// status then says what to do.
type Policy struct {
	Backoff, MaxBackoff time.Duration
	// QuickExit: a process that ran less than this died "at once".
	QuickExit     time.Duration
	MaxQuickExits int
	// MaxRestarts within Window also end the restarts: a component that
	// runs a while and dies, over and over.
	MaxRestarts int
	Window      time.Duration
}

// DefaultPolicy restarts within half a second of a death, and gives up after
// 3 deaths in a row within 10 s of starting, or 10 restarts in 10 minutes.
func DefaultPolicy() Policy {
	return Policy{Backoff: 500 * time.Millisecond, MaxBackoff: 30 * time.Second, QuickExit: 10 * time.Second,
		MaxQuickExits: 3, MaxRestarts: 10, Window: 10 * time.Minute}
}

// supervisorArgs start the supervisor of the lab; the state directory comes
// last (see marker).
func (l Lab) supervisorArgs() []string {
	return []string{"supervise", "--state", l.Layout.Dir}
}

// Supervise runs the lab's components as its children until ctx ends (the
// hidden `supervise` command, started by `up` in its own session): it starts
// each one, waits for it, and restarts one that dies under the policy,
// recording every start and exit in supervisor.json. It leaves the
// components running when it stops: `down` stops them, stage by stage.
func (l Lab) Supervise(ctx context.Context, exe string, p Policy, log io.Writer) error {
	s := newSupervisor(l, p, l.componentNames(), log, func(c string) (*exec.Cmd, error) {
		return proc.Spawn(exe, l.componentArgs(c), l.Layout.Log(c), l.Layout.Pid(c))
	})
	return s.run(ctx)
}

// supervisor is the state of Supervise; spawn starts one component.
type supervisor struct {
	l          Lab
	p          Policy
	components []string
	spawn      func(component string) (*exec.Cmd, error)
	log        io.Writer
	now        func() time.Time

	runs     map[string]*state.Run
	quick    map[string]int         // deaths at once in a row
	restarts map[string][]time.Time // restarts within the window
	exits    chan procExit
	due      chan string
}

// procExit is a child that ended.
type procExit struct {
	component string
	pid       int
	state     *os.ProcessState
}

func newSupervisor(l Lab, p Policy, components []string, log io.Writer, spawn func(string) (*exec.Cmd, error)) *supervisor {
	s := &supervisor{l: l, p: p, components: components, spawn: spawn, log: log, now: time.Now,
		runs: map[string]*state.Run{}, quick: map[string]int{}, restarts: map[string][]time.Time{},
		exits: make(chan procExit, len(components)), due: make(chan string, len(components))}
	for _, c := range components {
		s.runs[c] = &state.Run{Component: c}
	}
	return s
}

func (s *supervisor) run(ctx context.Context) error {
	for _, c := range s.components {
		if err := s.start(ctx, c); err != nil {
			return err
		}
	}
	if err := s.write(); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			fmt.Fprintln(s.log, "supervisor stopping; the components keep running until down stops them")
			return nil
		case e := <-s.exits:
			s.exited(ctx, e)
		case c := <-s.due:
			if ctx.Err() != nil {
				continue
			}
			if err := s.start(ctx, c); err != nil {
				r := s.runs[c]
				r.RestartAt, r.GaveUp = time.Time{}, "it could not be started: "+err.Error()
				fmt.Fprintf(s.log, "%s: %v; not restarting it\n", c, err)
			}
		}
		if err := s.write(); err != nil {
			fmt.Fprintf(s.log, "writing %s: %v\n", s.l.Layout.Supervision(), err)
		}
	}
}

// start spawns component c and waits for it in the background.
func (s *supervisor) start(ctx context.Context, c string) error {
	cmd, err := s.spawn(c)
	if err != nil {
		return err
	}
	r := s.runs[c]
	r.Pid, r.Started, r.RestartAt = cmd.Process.Pid, s.now(), time.Time{}
	r.Starts++
	if r.Starts > 1 {
		fmt.Fprintf(s.log, "%s restarted (restart %d, pid %d)\n", c, r.Restarts(), r.Pid)
	}
	go func() {
		_ = cmd.Wait()
		select {
		case s.exits <- procExit{component: c, pid: cmd.Process.Pid, state: cmd.ProcessState}:
		case <-ctx.Done():
		}
	}()
	return nil
}

// exited records how a component ended and restarts it after its back-off,
// or gives up on it.
func (s *supervisor) exited(ctx context.Context, e procExit) {
	r := s.runs[e.component]
	now := s.now()
	ex := exitOf(e.state)
	ex.At, ex.Ran = now, now.Sub(r.Started).Round(time.Millisecond)
	ex.LogTail, _ = lastLines(s.l.Layout.Log(e.component), deadLogLines)
	r.Pid, r.LastExit = 0, &ex
	if ex.Ran < s.p.QuickExit {
		s.quick[e.component]++
	} else {
		s.quick[e.component] = 0
	}
	recent := s.restarts[e.component][:0]
	for _, t := range s.restarts[e.component] {
		if now.Sub(t) < s.p.Window {
			recent = append(recent, t)
		}
	}
	s.restarts[e.component] = recent
	switch n := s.quick[e.component]; {
	case n >= s.p.MaxQuickExits:
		r.GaveUp = fmt.Sprintf("it died %d times in a row within %v of starting", n, s.p.QuickExit)
	case len(recent) >= s.p.MaxRestarts:
		r.GaveUp = fmt.Sprintf("it was restarted %d times within %v", len(recent), s.p.Window)
	}
	if r.GaveUp != "" {
		fmt.Fprintf(s.log, "%s %s after %v; giving up: %s\n", e.component, ex, ex.Ran, r.GaveUp)
		return
	}
	delay := s.p.Backoff
	for i := 1; i < s.quick[e.component] && delay < s.p.MaxBackoff; i++ {
		delay *= 2
	}
	delay = min(delay, s.p.MaxBackoff)
	r.RestartAt = now.Add(delay)
	s.restarts[e.component] = append(recent, r.RestartAt)
	fmt.Fprintf(s.log, "%s %s after %v; restarting it in %v\n", e.component, ex, ex.Ran, delay)
	appendLine(s.l.Layout.Log(e.component), fmt.Sprintf("--- kubectl-chain-lab: %s %s after %v; restart %d in %v ---",
		e.component, ex, ex.Ran, r.Starts, delay))
	time.AfterFunc(delay, func() {
		select {
		case s.due <- e.component:
		case <-ctx.Done():
		}
	})
}

func (s *supervisor) write() error {
	var sv state.Supervision
	for _, c := range s.components {
		sv.Components = append(sv.Components, *s.runs[c])
	}
	return state.WriteSupervision(s.l.Layout, sv)
}

// exitOf reads a process's end from the kernel's wait status.
func exitOf(ps *os.ProcessState) state.Exit {
	if ps == nil {
		return state.Exit{Code: -1}
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return state.Exit{Code: -1, Signal: unix.SignalName(ws.Signal())}
	}
	return state.Exit{Code: ps.ExitCode()}
}

// appendLine adds a line to a component's log, so that `logs` shows where
// one process ended and the next began.
func appendLine(path, line string) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}
