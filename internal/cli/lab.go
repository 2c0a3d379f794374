package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// labBinary is the reference control plane's executable. It is separate so
// this binary stays small; kubectl's plugin lookup sends `kubectl chain lab`
// straight to it, and `kubectl-chain lab` run directly hands over here.
const labBinary = "kubectl-chain-lab"

func newLabCommand(streams genericiooptions.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:                "lab",
		Short:              "Run the reference control plane (hands over to kubectl-chain-lab)",
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := findLab()
			if err != nil {
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf(
					"%s is not installed: put it on your PATH from the release's %s_VERSION_linux_amd64.tar.gz (or _arm64) archive at https://github.com/kubectl-chain/kubectl-chain/releases (the lab runs on Linux), or go install github.com/kubectl-chain/kubectl-chain/cmd/%s@latest", labBinary, labBinary, labBinary)}
			}
			c := exec.CommandContext(cmd.Context(), path, args...)
			c.Stdin, c.Stdout, c.Stderr = streams.In, streams.Out, streams.ErrOut
			err = c.Run()
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				return &ExitError{Code: ee.ExitCode(), Err: err, Silent: true}
			}
			return err
		},
	}
}

// findLab looks next to this executable first, then on PATH.
func findLab() (string, error) {
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), labBinary)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return exec.LookPath(labBinary)
}
