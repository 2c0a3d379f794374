package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/kubectl-chain/kubectl-chain/internal/capture"
	"github.com/kubectl-chain/kubectl-chain/internal/connect"
	"github.com/kubectl-chain/kubectl-chain/internal/engine"
)

// captureOptions is `kubectl chain capture deploy/NAME`.
type captureOptions struct {
	file    string
	keepEnv bool
}

func newCaptureCommand(o *Options) *cobra.Command {
	c := &captureOptions{}
	cmd := &cobra.Command{
		Use:   "capture TYPE/NAME",
		Short: "Write a workload's chain (the workload, its ReplicaSets, revisions, claims or Jobs, Pods, events, and the claims, quotas and nodes they name) to one YAML file for offline analysis",
		Example: `  kubectl chain capture deploy/web --to web.yaml
  kubectl chain deploy/web -f web.yaml
  kubectl chain capture sts/db --to db.yaml`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			targets, err := engine.ParseTargets(args)
			if err != nil {
				return err
			}
			if len(targets) != 1 {
				return usageErrorf("capture one workload at a time")
			}
			req, err := o.request()
			if err != nil {
				return err
			}
			req.Targets = targets
			if req.Namespace, err = connect.Kubeconfig(o.ConfigFlags, o.ErrOut); err != nil {
				return err
			}
			return c.run(cmd.Context(), o, req)
		},
	}
	cmd.Flags().StringVar(&c.file, "to", "", "the file to write (default: standard output); an existing file is not overwritten")
	cmd.Flags().BoolVar(&c.keepEnv, "keep-env", false, "keep environment variable values (dropped by default: they often hold credentials)")
	return cmd
}

func (c *captureOptions) run(ctx context.Context, o *Options, req *engine.Request) error {
	snap, related, err := engine.New(*req, o.ErrOut).Capture(ctx)
	if err != nil {
		return err
	}
	data, err := capture.Encode(snap, related, c.keepEnv)
	if err != nil {
		return err
	}
	if c.file == "" {
		_, err := o.Out.Write(data)
		return err
	}
	// O_EXCL: a capture never replaces what the user already had.
	f, err := os.OpenFile(c.file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return usageErrorf("writing the capture: %v (choose another --to)", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return usageErrorf("writing the capture: %v", err)
	}
	if err := f.Close(); err != nil {
		return usageErrorf("writing the capture: %v", err)
	}
	fmt.Fprintf(o.ErrOut, "captured %s %s/%s (%d pods, %d events) to %s\n",
		snap.KindOf().Resource(), snap.Namespace, snap.Name, len(snap.Pods), len(snap.Events), c.file)
	return nil
}
