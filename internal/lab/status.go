package lab

import (
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/kubectl-chain/kubectl-chain/internal/lab/state"
)

// deadLogLines is how much of a dead component's log status shows.
const deadLogLines = 10

// ComponentStatus is one component and, when it is dead, why.
type ComponentStatus struct {
	Process
	LastLines []string
}

// Report is what `status` prints.
type Report struct {
	Name       string
	Dir        string
	Server     string
	Kubeconfig string
	Components []ComponentStatus
}

// Running reports a lab whose every component lives.
func (r Report) Running() bool {
	if len(r.Components) == 0 {
		return false
	}
	for _, c := range r.Components {
		if !c.Alive {
			return false
		}
	}
	return true
}

// Status inspects the lab; a lab without state has no components.
func (l Lab) Status() Report {
	r := Report{Name: l.Name, Dir: l.Layout.Dir}
	if !l.exists() {
		return r
	}
	if s, err := state.ReadSpec(l.Layout); err == nil {
		r.Server = s.APIServerURL()
	}
	if _, err := os.Stat(l.Layout.Kubeconfig()); err == nil {
		r.Kubeconfig = l.Layout.Kubeconfig()
	}
	for _, p := range l.Processes() {
		cs := ComponentStatus{Process: p}
		if !p.Alive {
			cs.LastLines, _ = lastLines(l.Layout.Log(p.Component), deadLogLines)
		}
		r.Components = append(r.Components, cs)
	}
	return r
}

// Print writes the report for a person.
func (r Report) Print(w io.Writer) error {
	if len(r.Components) == 0 {
		_, err := fmt.Fprintf(w, "Lab %q is not running (no state in %s).\n", r.Name, r.Dir)
		return err
	}
	fmt.Fprintf(w, "Lab %q (state: %s)\n", r.Name, r.Dir)
	if r.Server != "" {
		fmt.Fprintf(w, "API server: %s\n", r.Server)
	}
	if r.Kubeconfig != "" {
		fmt.Fprintf(w, "Kubeconfig: %s\n", r.Kubeconfig)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 3, ' ', 0)
	fmt.Fprintln(tw, "COMPONENT\tPID\tSTATE")
	for _, c := range r.Components {
		pid, st := "-", "dead"
		if c.Pid > 0 {
			pid = fmt.Sprint(c.Pid)
		}
		if c.Alive {
			st = "running"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c.Component, pid, st)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, c := range r.Components {
		if c.Alive {
			continue
		}
		fmt.Fprintf(w, "\n%s is dead; the last lines of its log (%s):\n", c.Component, "kubectl chain lab logs "+c.Component)
		if len(c.LastLines) == 0 {
			fmt.Fprintln(w, "  (empty)")
		}
		for _, line := range c.LastLines {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
	return nil
}
