package labcmd

import (
	"github.com/spf13/cobra"

	"github.com/kubectl-chain/kubectl-chain/internal/lab/component"
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
