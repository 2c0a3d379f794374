package cli

import (
	"context"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kubectl-chain/kubectl-chain/internal/engine"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

// completeDeployments offers the namespace's Deployment names, or, after a
// pod or ReplicaSet type, its pods' or ReplicaSets' names. It reads the
// cluster through internal/kube, once, and only when the shell asks.
func (o *Options) completeDeployments(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	// One target at a time: complete "NAME", "TYPE/NAME" or "TYPE NAME".
	kind, prefix := engine.DefaultKind, ""
	switch {
	case len(args) > 1:
		return nil, cobra.ShellCompDirectiveNoFileComp
	case len(args) == 1:
		if kind = engine.KindOf(args[0]); kind == "" || strings.Contains(args[0], "/") {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
	}
	if typ, rest, ok := strings.Cut(toComplete, "/"); ok {
		if kind = engine.KindOf(typ); kind == "" || len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		prefix, toComplete = typ+"/", rest
	}
	ns, _, err := o.ConfigFlags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	client, err := o.NewClient()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	names, err := (&kube.Reader{Client: client}).Names(ctx, ns, kind)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	sort.Strings(names)
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, toComplete) {
			out = append(out, prefix+n)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
