package cli

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/kubectl-chain/kubectl-chain/internal/connect"
	"github.com/kubectl-chain/kubectl-chain/internal/serve"
)

// serveOptions are `kubectl chain serve`'s own flags.
type serveOptions struct {
	listen     string
	namespaces []string
	events     bool
	resync     time.Duration
}

func newServeCommand(o *Options) *cobra.Command {
	s := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve [-n NAMESPACE | --namespaces A,B | -A] [--listen :8080] [--events]",
		Short: "Watch the workloads in the cluster and expose their verdicts as Prometheus metrics",
		Long: `kubectl chain serve follows the workloads of a namespace, of several, or of
all (-A) with the watches --wait -A uses (one read, then no re-list), judges
them again whenever their objects change (and every --resync while a
verdict may change with time alone), and serves:

  /metrics  kubectl_chain_workload_health (0 healthy, 1 broken, 2 progressing,
            3 unknown), kubectl_chain_workload_broken_info (link, cause),
            kubectl_chain_workload_verdict_changed_timestamp_seconds, the
            reader's requests and errors, Go and process metrics
  /healthz  the process answers
  /readyz   the workloads were read and judged once

With --events it also records a Kubernetes Event on a workload when its
verdict changes (this needs create on events; kubectl chain serve manifests
--events grants it). It only reads otherwise: get, list and watch.`,
		Example: `  kubectl chain serve -A
  kubectl chain serve --namespaces shop,payments --listen :9102
  kubectl chain serve manifests --image registry.example.com/kubectl-chain:v1 | kubectl apply -f -`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Output.complete(o.Out); err != nil {
				return err
			}
			if s.resync <= 0 {
				return usageErrorf("--resync must be positive, got %s", s.resync)
			}
			if o.AllNamespaces && len(s.namespaces) > 0 {
				return usageErrorf("choose -A or --namespaces, not both")
			}
			req, err := o.request()
			if err != nil {
				return err
			}
			ns, err := connect.Kubeconfig(o.ConfigFlags, o.ErrOut)
			if err != nil {
				return err
			}
			req.Namespace = ns
			return serve.Run(cmd.Context(), serve.Config{Listen: s.listen, Scopes: o.scopes(s, ns), Events: s.events, Resync: s.resync,
				Request: *req, Notes: o.ErrOut})
		},
	}
	cmd.Flags().StringVar(&s.listen, "listen", serve.DefaultListen, "address of the HTTP endpoints (/metrics, /healthz, /readyz)")
	cmd.Flags().StringSliceVar(&s.namespaces, "namespaces", nil, "follow these namespaces (default: -n, or the kubeconfig's namespace)")
	cmd.Flags().BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "follow every namespace")
	cmd.Flags().StringVarP(&o.Selector, "selector", "l", "", "follow only the workloads matching this label selector")
	cmd.Flags().BoolVar(&s.events, "events", false, "record a Kubernetes Event on a workload when its verdict changes (needs create on events)")
	cmd.Flags().DurationVar(&s.resync, "resync", 30*time.Second, "judge again at least this often, changes or not (a cause turns terminal with time)")
	cmd.Flags().DurationVar(&o.Grace, "grace", o.Grace, "how long a cause that real clusters show as a short blip must last before it counts as terminal")
	cmd.AddCommand(newServeManifestsCommand(o), newServeRulesCommand(o))
	return cmd
}

// scopes are the namespaces serve follows, "" for all; ns is -n's or the
// kubeconfig's.
func (o *Options) scopes(s *serveOptions, ns string) []string {
	switch {
	case o.AllNamespaces:
		return []string{""}
	case len(s.namespaces) > 0:
		return s.namespaces
	}
	return []string{ns}
}
