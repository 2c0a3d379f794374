package cli

import (
	"github.com/spf13/cobra"

	"github.com/kubectl-chain/kubectl-chain/internal/engine"
	"github.com/kubectl-chain/kubectl-chain/internal/mcp"
)

func newMCPCommand(o *Options) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve the chain as MCP tools over stdio, for AI assistants",
		Long: `kubectl chain mcp is a Model Context Protocol server on standard input and
output. An assistant (an MCP client) starts it and calls its tools:

  diagnose        walk a workload's chain: the same report as kubectl chain TARGET -o json
  explain         decode one raw scheduler, kubelet or controller message
  list_unhealthy  the workloads of a namespace (or all) that are not healthy
  list_causes     every cause kubectl chain can name

It reads the cluster exactly as the command line does: the same kubeconfig
and context rules (--kubeconfig, --context and -n given here are the
defaults of every call; a call may name its own context and namespace), the
same read-only requests. Standard output carries only the protocol.`,
		Example: `  kubectl chain mcp
  kubectl chain mcp --context prod
  {"mcpServers": {"kubectl-chain": {"command": "kubectl", "args": ["chain", "mcp"]}}}`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.HealthChecks != "" {
				// Every call takes them; a bad file is told now, once.
				if _, err := engine.LoadHealth(o.HealthChecks); err != nil {
					return err
				}
			}
			return mcp.Run(cmd.Context(), o.mcpConfig())
		},
	}
}

// mcpConfig is what every MCP call starts from: the mcp command's
// kubeconfig flags as defaults, and its --health-checks.
func (o *Options) mcpConfig() mcp.Config {
	c := mcp.Config{HealthChecks: o.HealthChecks, Version: Version(), Now: o.Now}
	if f := o.ConfigFlags; f != nil {
		c.Kubeconfig, c.Context, c.Namespace = deref(f.KubeConfig), deref(f.Context), deref(f.Namespace)
	}
	return c
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
