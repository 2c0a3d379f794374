package component

import (
	"context"

	"k8s.io/component-base/cli"
	kubelet "k8s.io/kubernetes/cmd/kubelet/app"
)

// runUpstreamKubelet runs upstream's unmodified kubelet command with args.
func runUpstreamKubelet(ctx context.Context, args []string) int {
	cmd := kubelet.NewKubeletCommand(ctx)
	cmd.SetArgs(args)
	return cli.Run(cmd)
}
