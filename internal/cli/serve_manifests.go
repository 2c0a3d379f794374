package cli

import (
	"strings"

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
filesystem, no privileges), a Service for its metrics, and an example
PrometheusRule (the Prometheus Operator's) that alerts on a workload broken
for 5 minutes. The namespace must exist.`,
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
