package cli

import (
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kubectl-chain/kubectl-chain/internal/serve"
)

type serveManifestOptions struct {
	namespace, image string
	events           bool
}

func newServeManifestsCommand(o *Options) *cobra.Command {
	m := &serveManifestOptions{}
	cmd := &cobra.Command{
		Use:   "manifests --image IMAGE [--namespace kubectl-chain] [--events]",
		Short: "Print the manifests that run kubectl chain serve in the cluster",
		Long: `Print, as YAML for kubectl apply -f -, what runs kubectl chain serve -A in the
cluster: a ServiceAccount, the ClusterRole of kubectl chain rbac -A (get, list
and watch; never Secrets) and its binding, with --events a ClusterRole that
may create events, a Deployment of one replica (non-root, read-only root
filesystem, no privileges), a Service for its metrics, and a
PrometheusRule (the Prometheus Operator's) with the alert rules of serve
rules at their defaults. The namespace must exist.`,
		Example: `  kubectl create namespace kubectl-chain
  kubectl chain serve manifests --image registry.example.com/kubectl-chain:v1 | kubectl apply -f -`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if m.image == "" {
				return usageErrorf("--image is required: the kubectl-chain image in your registry (docs/serve.md says how it is built)")
			}
			if errs := validation.IsDNS1123Label(m.namespace); len(errs) > 0 {
				return usageErrorf("--namespace %q: %s", m.namespace, strings.Join(errs, "; "))
			}
			out, err := serveManifests(m)
			if err != nil {
				return err
			}
			_, err = o.Out.Write(out)
			return err
		},
	}
	cmd.Flags().StringVar(&m.namespace, "namespace", serve.Name, "the namespace to run it in")
	cmd.Flags().StringVar(&m.image, "image", "", "the kubectl-chain image (required)")
	cmd.Flags().BoolVar(&m.events, "events", false, "run it with --events, and grant create on events")
	return cmd
}

// serveManifests are the objects that run the watcher, then the read-only
// RBAC of its ServiceAccount, kubectl chain rbac -A's.
func serveManifests(m *serveManifestOptions) ([]byte, error) {
	out, err := serve.Manifests(serve.ManifestOptions{Namespace: m.namespace, Image: m.image, Events: m.events, Version: Version()})
	if err != nil {
		return nil, err
	}
	rbac, err := rbacManifests("", serve.ServiceAccount(m.namespace))
	return append(out, rbac...), err
}

func newServeRulesCommand(o *Options) *cobra.Command {
	r := serve.DefaultRuleOptions
	cmd := &cobra.Command{
		Use:   "rules [--for 5m] [--progressing 1h] [--down 5m] [--job kubectl-chain]",
		Short: "Print the alert rules over serve's metrics, as a Prometheus rule file",
		Long: `Print, as a Prometheus rule file (rule_files), the alerts over kubectl chain
serve's metrics: WorkloadBroken (a workload broken for --for, naming its
link and cause), WorkloadProgressingTooLong (progressing for more than
--progressing), KubectlChainDown (scrape job --job down or absent for
--down) and KubectlChainNotJudging (no judgement for twice --down). Every
label Prometheus gives the scrape but the instance and pod is kept, so in a
fleet each alert names its cluster. serve manifests' PrometheusRule holds
the same rules at their defaults.`,
		Example: `  kubectl chain serve rules > /etc/prometheus/kubectl-chain.rules.yml
  promtool check rules /etc/prometheus/kubectl-chain.rules.yml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, d := range []struct {
				flag string
				v    time.Duration
			}{{"--for", r.Broken}, {"--progressing", r.Progressing}, {"--down", r.Down}} {
				if d.v <= 0 {
					return usageErrorf("%s %v: give a positive duration (5m, 1h)", d.flag, d.v)
				}
			}
			if strings.TrimSpace(r.Job) == "" {
				return usageErrorf("--job: name the scrape job of serve's metrics")
			}
			out, err := serve.Rules(r, Version())
			if err != nil {
				return err
			}
			_, err = o.Out.Write(out)
			return err
		},
	}
	cmd.Flags().DurationVar(&r.Broken, "for", r.Broken, "how long a workload stays broken before WorkloadBroken fires")
	cmd.Flags().DurationVar(&r.Progressing, "progressing", r.Progressing, "how long a workload may progress before WorkloadProgressingTooLong fires")
	cmd.Flags().DurationVar(&r.Down, "down", r.Down, "how long the watcher may be down (or judge nothing) before its own alerts fire")
	cmd.Flags().StringVar(&r.Job, "job", r.Job, "the scrape job of serve's metrics, as your Prometheus names it")
	return cmd
}
