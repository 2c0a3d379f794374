// Package labcmd is the command line of kubectl-chain-lab: up, down, status,
// logs and kubeconfig for people, and the hidden component subcommand the
// binary re-executes itself with.
package labcmd

import (
	"context"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kubectl-chain/kubectl-chain/lab"
	"github.com/kubectl-chain/kubectl-chain/lab/kindlab"
)

// DefaultName is the lab's name when --name is not given.
const DefaultName = lab.DefaultName

// Streams are where the commands read and write.
type Streams struct {
	Out, ErrOut io.Writer
}

// globals are the flags every subcommand shares.
type globals struct {
	name     string
	stateDir string
	// run runs docker for a kind lab; nil runs it on this machine (tests
	// set a fake).
	run kindlab.Runner
}

// NewRoot is the kubectl-chain-lab command.
func NewRoot(s Streams) *cobra.Command { return newRoot(s, &globals{}) }

func newRoot(s Streams, g *globals) *cobra.Command {
	root := &cobra.Command{
		Use:   "kubectl-chain-lab",
		Short: "A local Kubernetes control plane with virtual nodes, to reproduce every link of a Deployment's chain",
		Long: `kubectl chain lab runs a real control plane on this machine: embedded etcd and the
kube-apiserver, kube-controller-manager and kube-scheduler of Kubernetes v1.37.2,
each in its own process, with TLS, RBAC and Node authorization, plus a simulated
kubelet that plays virtual nodes. No Docker, no cloud. With Docker,
up --engine kind runs the same lab on a kind cluster with real kubelets.`,
		Annotations:   map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl chain lab"},
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// Upstream packages register flags on pflag.CommandLine at init (verflag's
	// --version), which cobra merges into every command; they mean nothing to
	// people, so they stay out of help.
	pflag.CommandLine.VisitAll(func(f *pflag.Flag) { f.Hidden = true })
	root.SetOut(s.Out)
	root.SetErr(s.ErrOut)
	f := root.PersistentFlags()
	f.StringVar(&g.name, "name", DefaultName, "name of the lab")
	f.StringVar(&g.stateDir, "state-dir", "", "state directory of the lab (default $"+
		"KUBECTL_CHAIN_LAB_HOME/NAME, else $XDG_STATE_HOME/kubectl-chain/labs/NAME, else ~/.local/state/kubectl-chain/labs/NAME)")
	root.AddCommand(newUp(g, s), newDown(g, s), newStatus(g, s), newLogs(g, s), newKubeconfig(g, s), newScenarios(s), newApply(g, s), newDelete(g, s), newFill(g, s), newComponent(), newSupervise())
	return root
}

// Execute runs the command line args.
func Execute(ctx context.Context, args []string, s Streams) error {
	root := NewRoot(s)
	root.SetArgs(args)
	return root.ExecuteContext(ctx)
}

func getenv(k string) string { return os.Getenv(k) }
