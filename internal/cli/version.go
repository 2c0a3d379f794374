package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chain/kubectl-chain/internal/health"
)

// version and commit are stamped by the release build (-ldflags -X).
var (
	version = ""
	commit  = ""
)

// Version is the release version, or the module version a `go install` built.
func Version() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

func newVersionCommand(streams genericiooptions.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of kubectl chain",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c := commit
			if c == "" {
				c = "unknown"
			}
			_, err := fmt.Fprintf(streams.Out, "kubectl-chain %s (commit %s, %s, %s/%s)\nhealth checks: Argo CD's catalogue %s\n", Version(), c, runtime.Version(), runtime.GOOS, runtime.GOARCH, health.Version())
			return err
		},
	}
}
