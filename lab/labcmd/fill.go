package labcmd

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-chain/kubectl-chain/lab"
	"github.com/kubectl-chain/kubectl-chain/lab/fill"
)

// DefaultFill is the cluster `lab fill` writes by default: the size the
// scale budgets of docs/benchmarks.md are measured on.
var DefaultFill = fill.Spec{Seed: 1, Namespaces: 5, Deployments: 2000, Broken: 12, Pods: 20000, Events: 100000, Big: 500, BigBroken: 50}

func newFill(g *globals, s Streams) *cobra.Command {
	spec := DefaultFill
	templates := ""
	cmd := &cobra.Command{
		Use:   "fill",
		Short: "Write a big, realistic cluster straight into a frozen lab",
		Long: `Write nodes, namespaces, Deployments of every size with their ReplicaSets and
pods, and events into a lab started with up --frozen, each object a copy of a
scenario's capture with its statuses as the controllers and the kubelet left
them. Broken Deployments (bad image, crash loop, failing readiness, missing
ConfigMap, unschedulable, quota) are planted among healthy ones; the same flags
and seed write the same cluster. Run it from a checkout of kubectl-chain: the
templates are its testdata/captures.`,
		Example: `  kubectl chain lab up --frozen
  kubectl chain lab fill --deployments 2000 --pods 20000 --events 100000`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			plan, err := fill.NewPlan(spec)
			if err != nil {
				return err
			}
			l, err := lab.Open(g.name, g.stateDir, getenv)
			if err != nil {
				return err
			}
			st, err := l.Spec()
			if err != nil {
				return fmt.Errorf("lab %q is not up: start one for fill with `%s`", l.Name, l.Command("up --frozen"))
			}
			if !st.Frozen {
				return fmt.Errorf("lab %q runs the controllers and kubelet, which would rewrite what fill writes: start a lab for it with `%s` (another name keeps this one: --name big)", l.Name, l.Command("up --frozen"))
			}
			tpl, err := fill.LoadTemplates(os.DirFS(templates), fill.Templates())
			if err != nil {
				if errors.Is(err, os.ErrNotExist) {
					return fmt.Errorf("%w: fill copies the captures of a kubectl-chain checkout; run it from one or point --templates at its testdata/captures", err)
				}
				return err
			}
			cfg, err := clientcmd.BuildConfigFromFlags("", l.Layout.Kubeconfig())
			if err != nil {
				return err
			}
			cfg.QPS, cfg.Burst = -1, 0 // the fill is the API server's only client
			client, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				return err
			}
			w, err := fill.Write(cmd.Context(), client, plan, tpl, time.Now(), s.ErrOut)
			if err != nil {
				return err
			}
			fmt.Fprintf(s.Out, "Wrote %s.\nBroken Deployments planted:\n", w)
			for _, b := range plan.BrokenWorkloads() {
				fmt.Fprintf(s.Out, "  %s/%s (%s, %d pods)\n", b.Namespace, b.Name, b.Template, b.Replicas)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.Uint64Var(&spec.Seed, "seed", spec.Seed, "seed of the plan: the same flags and seed write the same cluster")
	f.IntVar(&spec.Namespaces, "namespaces", spec.Namespaces, "namespaces, sharing the Deployments round-robin")
	f.IntVar(&spec.Deployments, "deployments", spec.Deployments, "Deployments in all")
	f.IntVar(&spec.Broken, "broken", spec.Broken, "of which broken")
	f.IntVar(&spec.Pods, "pods", spec.Pods, "pods of all the Deployments")
	f.IntVar(&spec.Events, "events", spec.Events, "events in all")
	f.IntVar(&spec.Big, "big", spec.Big, "pods of the healthy Deployment \"big\" in the first namespace (0: none)")
	f.IntVar(&spec.BigBroken, "big-broken", spec.BigBroken, "pods of the crash-looping Deployment \"big-broken\" in the first namespace (0: none)")
	f.StringVar(&templates, "templates", "testdata/captures", "directory of the captures copied")
	return cmd
}
