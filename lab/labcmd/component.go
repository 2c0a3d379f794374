package labcmd

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/kubectl-chain/kubectl-chain/lab"
	"github.com/kubectl-chain/kubectl-chain/lab/component"
)

// newComponent is the hidden subcommand `up` re-executes the binary with to
// run one component in its own process.
func newComponent() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:    "component NAME --state DIR",
		Short:  "Run one component of a lab (started by up)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return component.Run(cmd.Context(), args[0], dir)
		},
	}
	cmd.Flags().StringVar(&dir, "state", "", "state directory of the lab")
	_ = cmd.MarkFlagRequired("state")
	return cmd
}

// newSupervise is the hidden subcommand `up` starts once per lab: it runs
// the components as its children and restarts one that dies, until SIGTERM
// (from down).
func newSupervise() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:    "supervise --state DIR",
		Short:  "Run and restart the components of a lab (started by up)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			exe, err := os.Executable()
			if err != nil {
				return fmt.Errorf("finding this executable to start the components: %w", err)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, os.Interrupt)
			defer stop()
			return lab.AtDir(dir).Supervise(ctx, exe, lab.DefaultPolicy(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVar(&dir, "state", "", "state directory of the lab")
	_ = cmd.MarkFlagRequired("state")
	return cmd
}
