// Package lab is the reference control plane's lifecycle: `up` writes a lab's
// certificates and spec, starts one detached process per component and waits
// until the cluster is healthy; `down` stops them and removes the state;
// `status` and `logs` inspect them. The components themselves live in
// lab/component, the simulated kubelet in lab/kubelet.
package lab

import (
	"os"

	"github.com/kubectl-chain/kubectl-chain/internal/labhome"
	"github.com/kubectl-chain/kubectl-chain/lab/proc"
	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

// Lab is one named lab and its state directory.
type Lab struct {
	Name   string
	Layout state.Layout
	// flags are the command-line flags that name this lab, for the
	// commands the messages suggest.
	flags string
}

// Open finds the lab called name (or the one in stateDir) without touching it.
func Open(name, stateDir string, getenv func(string) string) (Lab, error) {
	dir, err := labhome.Dir(name, stateDir, getenv)
	if err != nil {
		return Lab{}, err
	}
	l := Lab{Name: name, Layout: state.Layout{Dir: dir}}
	switch {
	case stateDir != "":
		l.flags = " --state-dir " + dir
	case name != DefaultName:
		l.flags = " --name " + name
	}
	return l, nil
}

// AtDir is the lab whose state directory is dir, for the processes a lab
// runs, which get only that directory.
func AtDir(dir string) Lab {
	l := Lab{Layout: state.Layout{Dir: dir}}
	if s, err := state.ReadSpec(l.Layout); err == nil {
		l.Name = s.Name
	}
	return l
}

// DefaultName is the lab's name when --name is not given.
const DefaultName = "lab"

// Command is the kubectl chain lab command line of sub, with the flags that
// name this lab.
func (l Lab) Command(sub string) string { return "kubectl chain lab " + sub + l.flags }

// Process is one component (or the supervisor) as its pid file and the
// kernel see it.
type Process struct {
	Component string
	Pid       int
	Alive     bool
}

// Processes reports every component of the lab, in start order.
func (l Lab) Processes() []Process {
	names := l.componentNames()
	out := make([]Process, 0, len(names))
	for _, c := range names {
		pid, _ := proc.ReadPid(l.Layout.Pid(c))
		out = append(out, Process{Component: c, Pid: pid, Alive: proc.Alive(pid, l.marker())})
	}
	return out
}

// componentNames are the lab's components as its spec says (real nodes add
// theirs), the fixed ones when the spec cannot be read.
func (l Lab) componentNames() []string {
	s, err := state.ReadSpec(l.Layout)
	if err != nil {
		return append([]string(nil), state.Components...)
	}
	return s.ComponentNames()
}

// Supervisor reports the lab's supervisor process.
func (l Lab) Supervisor() Process {
	pid, _ := proc.ReadPid(l.Layout.Pid(state.Supervisor))
	return Process{Component: state.Supervisor, Pid: pid, Alive: proc.Alive(pid, l.marker())}
}

// marker is how a component's command line names its lab: the state
// directory as a whole NUL-separated argument, so /labs/a never matches
// /labs/ab.
func (l Lab) marker() string { return "\x00" + l.Layout.Dir + "\x00" }

// componentArgs are the arguments the lab binary re-executes itself with to
// run one component; the state directory comes last (see marker).
func (l Lab) componentArgs(component string) []string {
	return []string{"component", component, "--state", l.Layout.Dir}
}

// exists reports whether the lab has state on disk.
func (l Lab) exists() bool {
	_, err := os.Stat(l.Layout.Dir)
	return err == nil
}

// isLab reports whether the state directory was written by a lab (so it may
// be removed): it has lab.json or pid files.
func (l Lab) isLab() bool {
	for _, p := range []string{l.Layout.Spec(), l.Layout.Pids()} {
		if _, err := os.Stat(p); err == nil {
			return true
		}
	}
	return false
}

// anyAlive reports whether any component process lives.
func anyAlive(ps []Process) bool {
	for _, p := range ps {
		if p.Alive {
			return true
		}
	}
	return false
}
