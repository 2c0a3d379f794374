package labcmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kubectl-chain/kubectl-chain/lab"
	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

func newDown(g *globals, s Streams) *cobra.Command {
	return &cobra.Command{
		Use:   "down",
		Short: "Stop every process of a lab and remove its state",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			l, err := lab.Open(g.name, g.stateDir, getenv)
			if err != nil {
				return err
			}
			return l.Down(s.Out, g.run)
		},
	}
}

// ErrSilent is an error already reported to the user: main only sets the
// exit code.
var ErrSilent = errors.New("already reported")

func newStatus(g *globals, s Streams) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Show each component's pid, state and restarts; a dead or restarted one's last log lines",
		Long: `Show each component's pid, whether it runs, how often the lab's supervisor restarted
it and how it last exited, with the last log lines of a dead or restarted one, and
what to do when the supervisor gave up on it. Exits 1 unless every component and
the supervisor run.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			l, err := lab.Open(g.name, g.stateDir, getenv)
			if err != nil {
				return err
			}
			r := l.Status(time.Now(), g.run)
			if err := r.Print(s.Out); err != nil {
				return err
			}
			if !r.Running() {
				return ErrSilent
			}
			return nil
		},
	}
}

// logNames are the logs `logs` prints: each component's and the supervisor's
// (a lab with real nodes adds the registry's and each node's containerd and
// kubelet, containerd-real-node-1 and kubelet-real-node-1 for the first).
var logNames = append(append([]string(nil), state.Components...), state.Supervisor, state.Audit)

func newLogs(g *globals, s Streams) *cobra.Command {
	return &cobra.Command{
		Use:       "logs COMPONENT",
		Short:     "Print a component's log (" + strings.Join(logNames, ", ") + "; with real nodes also " + state.Registry + ", " + state.Containerd(state.RealNodeName(0)) + ", " + state.RealKubelet(state.RealNodeName(0)) + ", ...)",
		Args:      cobra.ExactArgs(1),
		ValidArgs: logNames,
		RunE: func(_ *cobra.Command, args []string) error {
			if !state.IsComponent(args[0]) && args[0] != state.Supervisor && args[0] != state.Audit {
				return fmt.Errorf("unknown component %q: choose one of %s", args[0], strings.Join(logNames, ", "))
			}
			l, err := lab.Open(g.name, g.stateDir, getenv)
			if err != nil {
				return err
			}
			if spec, err := l.Spec(); err == nil && spec.Engine == lab.EngineKind {
				return lab.ErrKindLogs
			}
			f, err := os.Open(l.Layout.Log(args[0]))
			if os.IsNotExist(err) {
				return fmt.Errorf("lab %q has no log of %s (is it up? state: %s)", l.Name, args[0], l.Layout.Dir)
			}
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = io.Copy(s.Out, f)
			return err
		},
	}
}

func newKubeconfig(g *globals, s Streams) *cobra.Command {
	return &cobra.Command{
		Use:   "kubeconfig",
		Short: "Print the path of the lab's admin kubeconfig",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			l, err := lab.Open(g.name, g.stateDir, getenv)
			if err != nil {
				return err
			}
			if _, err := os.Stat(l.Layout.Kubeconfig()); err != nil {
				return fmt.Errorf("lab %q has no kubeconfig (is it up? state: %s)", l.Name, l.Layout.Dir)
			}
			_, err = fmt.Fprintln(s.Out, l.Layout.Kubeconfig())
			return err
		},
	}
}
