package lab

import (
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kubectl-chain/kubectl-chain/lab/kindlab"
	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

// deadLogLines is how much of a dead component's log status shows.
const deadLogLines = 10

// ComponentStatus is one component, what the supervisor knows of it, and
// its last log lines when it is dead or died before.
type ComponentStatus struct {
	Process
	// Run is the supervisor's record: restarts, last exit, whether it
	// gave up. Zero when the supervisor never wrote one.
	Run       state.Run
	LastLines []string
	// Role and DockerState are a kind node container's role and state.
	Role, DockerState string
}

// State is one word for the component: running, restarting (dead, the
// supervisor starts it again soon), failed (dead, the supervisor gave up)
// or dead (no supervisor to restart it).
func (c ComponentStatus) State() string {
	switch {
	case c.Alive:
		return "running"
	case c.Run.GaveUp != "":
		return "failed"
	case !c.Run.RestartAt.IsZero():
		return "restarting"
	}
	return "dead"
}

// Report is what `status` prints.
type Report struct {
	Name       string
	Dir        string
	Server     string
	Kubeconfig string
	Now        time.Time
	Supervisor Process
	Components []ComponentStatus
	// flags name this lab on the command line.
	flags string
	// Engine is EngineKind for a kind lab, whose Components are its node
	// containers; Err says why they could not be listed.
	Engine, KindCluster, Err string
}

// command is a kubectl chain lab command line for this lab.
func (r Report) command(sub string) string { return "kubectl chain lab " + sub + r.flags }

// recreate is the command line that recreates this lab.
func (r Report) recreate() string { return r.command("down") + " && " + r.command("up") }

// Running reports a lab whose every component and supervisor lives.
func (r Report) Running() bool {
	if len(r.Components) == 0 || r.Err != "" || (r.Engine != EngineKind && !r.Supervisor.Alive) {
		return false
	}
	for _, c := range r.Components {
		if !c.Alive {
			return false
		}
	}
	return true
}

// Status inspects the lab; a lab without state has no components. run runs
// docker for a kind lab (nil: this machine's docker).
func (l Lab) Status(now time.Time, run kindlab.Runner) Report {
	r := Report{Name: l.Name, Dir: l.Layout.Dir, Now: now, flags: l.flags}
	if !l.exists() {
		return r
	}
	if _, err := os.Stat(l.Layout.Kubeconfig()); err == nil {
		r.Kubeconfig = l.Layout.Kubeconfig()
	}
	s, err := state.ReadSpec(l.Layout)
	if err == nil && s.Engine == EngineKind {
		return l.statusKind(r, s, UpOptions{Run: run}.run())
	}
	if err == nil {
		r.Server = s.APIServerURL()
	}
	r.Supervisor = l.Supervisor()
	sv, _ := state.ReadSupervision(l.Layout)
	for _, p := range l.Processes() {
		cs := ComponentStatus{Process: p, Run: sv.Find(p.Component)}
		switch {
		case !p.Alive:
			cs.LastLines, _ = lastLines(l.Layout.Log(p.Component), deadLogLines)
		case cs.Run.LastExit != nil:
			cs.LastLines = cs.Run.LastExit.LogTail
		}
		r.Components = append(r.Components, cs)
	}
	return r
}

// Print writes the report for a person.
func (r Report) Print(w io.Writer) error {
	if r.Engine == EngineKind {
		return r.printKind(w)
	}
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
	fmt.Fprintln(tw, "COMPONENT\tPID\tSTATE\tRESTARTS\tLAST EXIT")
	for _, c := range r.Components {
		last := "-"
		if e := c.Run.LastExit; e != nil {
			last = fmt.Sprintf("%s, %s ago", e, ago(r.Now.Sub(e.At)))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", c.Component, pidText(c.Process), c.State(), c.Run.Restarts(), last)
	}
	sup := "running"
	if !r.Supervisor.Alive {
		sup = "dead"
	}
	fmt.Fprintf(tw, "%s\t%s\t%s\t-\t-\n", state.Supervisor, pidText(r.Supervisor), sup)
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, c := range r.Components {
		r.printComponent(w, c)
	}
	if !r.Supervisor.Alive {
		fmt.Fprintf(w, "\nThe supervisor is not running: a component that dies now stays dead. Its log: %s.\n"+
			"Recreate the lab to get it back (the lab's objects are lost): %s\n",
			strings.TrimSuffix(r.Dir, "/")+"/logs/supervisor.log", r.recreate())
	}
	return nil
}

// printComponent explains a component that is dead or was restarted.
func (r Report) printComponent(w io.Writer, c ComponentStatus) {
	e := c.Run.LastExit
	logs := r.command("logs " + c.Component)
	switch c.State() {
	case "running":
		if e == nil {
			return
		}
		fmt.Fprintf(w, "\n%s was restarted %s; the last one was %s %s ago after running %s. Its last log lines then (%s):\n",
			c.Component, times(c.Run.Restarts()), e, ago(r.Now.Sub(e.At)), ago(e.Ran), logs)
	case "restarting":
		fmt.Fprintf(w, "\n%s is dead (%s %s ago); the supervisor restarts it in %s. Its last log lines (%s):\n",
			c.Component, e, ago(r.Now.Sub(e.At)), ago(max(c.Run.RestartAt.Sub(r.Now), 0)), logs)
	case "failed":
		fmt.Fprintf(w, "\n%s is dead and the lab gave up restarting it: %s (last: %s, %s ago). Its last log lines (%s):\n",
			c.Component, c.Run.GaveUp, e, ago(r.Now.Sub(e.At)), logs)
	default:
		fmt.Fprintf(w, "\n%s is dead; the last lines of its log (%s):\n", c.Component, logs)
	}
	if len(c.LastLines) == 0 {
		fmt.Fprintln(w, "  (empty)")
	}
	for _, line := range c.LastLines {
		fmt.Fprintf(w, "  %s\n", line)
	}
	if c.State() == "failed" {
		fmt.Fprintf(w, "What to do: %s\n", r.giveUpHint(c))
	}
}

// giveUpHint says what to do about a component the supervisor gave up on.
func (r Report) giveUpHint(c ComponentStatus) string {
	if portTakenLine(c.LastLines) != "" {
		return fmt.Sprintf("another process holds a port of the lab (its ports are in %s/lab.json; `ss -ltnp` names the process). "+
			"Recreate the lab, which chooses free ports: %s", r.Dir, r.recreate())
	}
	if c.Component == state.Etcd {
		return fmt.Sprintf("etcd cannot start on its data directory %s/etcd, so the API server has no storage; "+
			"the lab must be recreated (its objects are lost): %s", r.Dir, r.recreate())
	}
	return fmt.Sprintf("read why in its log (%s); the lab does not heal from this: recreate it: %s",
		r.command("logs "+c.Component), r.recreate())
}

func pidText(p Process) string {
	if p.Pid > 0 {
		return fmt.Sprint(p.Pid)
	}
	return "-"
}

func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

// ago rounds a duration for people: tenths of a second under a minute.
func ago(d time.Duration) string {
	if d < time.Minute {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// printKind writes a kind lab's report: its node containers.
func (r Report) printKind(w io.Writer) error {
	fmt.Fprintf(w, "Lab %q on kind cluster %q (state: %s)\n", r.Name, r.KindCluster, r.Dir)
	if r.Kubeconfig != "" {
		fmt.Fprintf(w, "Kubeconfig: %s\n", r.Kubeconfig)
	}
	if r.Err != "" {
		fmt.Fprintf(w, "\n%s\n", r.Err)
	}
	if len(r.Components) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 3, ' ', 0)
	fmt.Fprintln(tw, "NODE CONTAINER\tROLE\tSTATE")
	for _, c := range r.Components {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c.Component, c.Role, c.DockerState)
	}
	return tw.Flush()
}
