package cli

import (
	"context"
	"strings"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// completeDeployments offers the namespace's Deployment names. It is the one
// place that lists Deployments, and only when the shell asks.
func (o *Options) completeDeployments(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	// One Deployment at a time: complete "NAME", "TYPE/NAME" or "TYPE NAME".
	if len(args) > 1 || len(args) == 1 && kindOf(args[0]) != kindDeployment {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	prefix := ""
	if typ, rest, ok := strings.Cut(toComplete, "/"); ok {
		if kindOf(typ) != kindDeployment || len(args) > 0 {
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
	list, err := client.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, d := range list.Items {
		if strings.HasPrefix(d.Name, toComplete) {
			out = append(out, prefix+d.Name)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
