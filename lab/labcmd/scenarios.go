package labcmd

import (
	"context"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-chain/kubectl-chain/lab"
	"github.com/kubectl-chain/kubectl-chain/lab/kindlab"
	"github.com/kubectl-chain/kubectl-chain/lab/scenarios"
	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

func newScenarios(s Streams) *cobra.Command {
	return &cobra.Command{
		Use:   "scenarios",
		Short: "List the reproducible rollouts and the verdict each one gets",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			w := tabwriter.NewWriter(s.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "SCENARIO\tKIND\tLINK\tCAUSE\tENGINES\tWHAT")
			for _, sc := range scenarios.All() {
				link, cause := string(sc.Link), string(sc.Cause)
				if link == "" {
					link, cause = "-", string(sc.Health)
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", sc.Name, sc.KindOf(), link, cause, strings.Join(sc.Engines(), ","), sc.Summary)
			}
			return w.Flush()
		},
	}
}

func newApply(g *globals, s Streams) *cobra.Command {
	var ns, on string
	cmd := &cobra.Command{
		Use:   "apply SCENARIO [-n NAMESPACE]",
		Short: "Create a scenario's workload, and what it needs, in a new namespace",
		Long: `Create a scenario in a new namespace (default: the scenario's name): the
workload "web" (a Deployment, or the StatefulSet, DaemonSet, Job or CronJob
KIND in kubectl chain lab scenarios says; a scenario with a second step
applies it once the first has settled) and whatever the scenario needs (a ResourceQuota, namespace
labels, an admission policy or webhook, a StorageClass, node taints).
Cluster-scoped objects are named NAMESPACE-NAME and select the scenario's
namespace only. untolerated-taint taints every node of the lab; delete removes
the taint. On a kind lab, scenarios whose failure only the lab's own engine
plays are refused (ENGINES in kubectl chain lab scenarios), and the lab's
image is replaced by a pause image the kind nodes hold. On a lab with real
nodes (up --real-nodes), --on real pins the pods to them and --on simulated
to the simulated kubelet's nodes.`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: scenarioNames,
		RunE: func(cmd *cobra.Command, args []string) error {
			return onScenario(cmd.Context(), g, args[0], ns, func(ctx context.Context, client kubernetes.Interface, l lab.Lab, sc scenarios.Scenario, ns string) error {
				opts, err := applyOptions(ctx, l, client, sc)
				if err != nil {
					return err
				}
				if opts.Engine, err = pinTo(l, sc, on); err != nil {
					return err
				}
				if err := scenarios.ApplyWith(ctx, client, sc, ns, opts); err != nil {
					return err
				}
				fmt.Fprintf(s.Out, "Scenario %q applied in namespace %q.\n\nDiagnose it:\n  export KUBECONFIG=%s\n  kubectl chain %s -n %s --wait\n",
					sc.Name, ns, l.Layout.Kubeconfig(), sc.Target(), ns)
				if sc.Later == 0 {
					return nil
				}
				if !sc.LaterStep() {
					// The registry's outage ends by itself.
					fmt.Fprintf(s.Out, "\nThe fault heals by itself in %s.\n", sc.Later)
					return nil
				}
				// The fault heals in this process: it stays until then.
				fmt.Fprintf(s.Out, "\nThe fault heals in %s (the later step of %s): keep this command running until it says so.\n", sc.Later, sc.Name)
				if err := scenarios.ApplyLater(ctx, client, sc, ns, opts); err != nil {
					return err
				}
				fmt.Fprintf(s.Out, "Healed: the later step of %q is applied.\n", sc.Name)
				return nil
			})
		},
	}
	cmd.Flags().StringVarP(&ns, "namespace", "n", "", "namespace to create the scenario in (default: the scenario's name)")
	cmd.Flags().StringVar(&on, "on", "", "pin the pods to real or simulated nodes (a lab with --real-nodes; default: any node)")
	return cmd
}

// pinTo checks --on against the lab and the scenario and returns the node
// label value to pin to.
func pinTo(l lab.Lab, sc scenarios.Scenario, on string) (string, error) {
	switch on {
	case "":
		return "", nil
	case state.EngineReal, state.EngineSimulated:
	default:
		return "", fmt.Errorf("--on must be %s or %s, got %q", state.EngineReal, state.EngineSimulated, on)
	}
	spec, err := l.Spec()
	if err != nil {
		return "", fmt.Errorf("lab %q has no spec (is it up? state: %s)", l.Name, l.Layout.Dir)
	}
	if on == state.EngineReal {
		if len(spec.RealNodes) == 0 {
			return "", fmt.Errorf("lab %q has no real nodes: start it with `kubectl chain lab up --real-nodes 1`", l.Name)
		}
		if why := sc.RealNodeReason(); why != "" {
			return "", fmt.Errorf("scenario %q is not played on real nodes: %s", sc.Name, why)
		}
	}
	if on == state.EngineSimulated && spec.Nodes.Count == 0 {
		return "", fmt.Errorf("lab %q has no simulated nodes (it was started with --nodes 0)", l.Name)
	}
	return on, nil
}

func newDelete(g *globals, s Streams) *cobra.Command {
	var ns string
	cmd := &cobra.Command{
		Use:   "delete SCENARIO [-n NAMESPACE]",
		Short: "Delete a scenario: its namespace and the cluster-scoped objects apply created for it",
		Long: `Delete what apply created for a scenario: the namespace (default: the
scenario's name) and the admission policies and webhook configurations named
after it, and the node taint a scenario put on every node. Deleting only the
namespace would leave those behind, and they would apply again to a namespace
created later with the same name.`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: scenarioNames,
		RunE: func(cmd *cobra.Command, args []string) error {
			return onScenario(cmd.Context(), g, args[0], ns, func(ctx context.Context, client kubernetes.Interface, _ lab.Lab, sc scenarios.Scenario, ns string) error {
				if err := scenarios.Delete(ctx, client, sc, ns); err != nil {
					return err
				}
				if sc.TaintNodes != nil {
					if err := scenarios.UntaintNodes(ctx, client, *sc.TaintNodes); err != nil {
						return fmt.Errorf("removing the taint %s from the nodes: %w", sc.TaintNodes.Key, err)
					}
				}
				fmt.Fprintf(s.Out, "Scenario %q deleted from namespace %q (the namespace terminates in the background).\n", sc.Name, ns)
				return nil
			})
		},
	}
	cmd.Flags().StringVarP(&ns, "namespace", "n", "", "namespace the scenario was applied in (default: the scenario's name)")
	return cmd
}

// onScenario finds the scenario, connects to the lab as its admin and runs
// do with a minute to finish, in ns or the namespace named after the
// scenario.
func onScenario(ctx context.Context, g *globals, name, ns string, do func(context.Context, kubernetes.Interface, lab.Lab, scenarios.Scenario, string) error) error {
	sc, err := scenarios.Get(name)
	if err != nil {
		return err
	}
	if ns == "" {
		ns = sc.Name
	}
	l, err := lab.Open(g.name, g.stateDir, getenv)
	if err != nil {
		return err
	}
	client, err := adminClient(l)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	return do(ctx, client, l, sc, ns)
}

func scenarioNames(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	var names []string
	for _, sc := range scenarios.All() {
		names = append(names, sc.Name)
	}
	return names, cobra.ShellCompDirectiveNoFileComp
}

// applyOptions adapt a scenario to the lab's engine: on kind, lab-only
// scenarios are refused and the lab's image is replaced by one the nodes
// hold.
func applyOptions(ctx context.Context, l lab.Lab, client kubernetes.Interface, sc scenarios.Scenario) (scenarios.Options, error) {
	spec, err := l.Spec()
	if err != nil || spec.Engine != lab.EngineKind {
		return scenarios.Options{}, nil
	}
	o := scenarios.Options{RealKubelet: true}
	if sc.LabOnly != "" {
		return o, nil // ApplyWith refuses it with the reason
	}
	img, err := kindlab.StandInImage(ctx, client)
	if err != nil {
		return o, err
	}
	o.Images = map[string]string{scenarios.LabImage: img}
	return o, nil
}

// adminClient connects with the lab's admin kubeconfig.
func adminClient(l lab.Lab) (kubernetes.Interface, error) {
	kc := l.Layout.Kubeconfig()
	if _, err := os.Stat(kc); err != nil {
		return nil, fmt.Errorf("lab %q has no kubeconfig (is it up? state: %s)", l.Name, l.Layout.Dir)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kc)
	if err != nil {
		return nil, err
	}
	return kubernetes.NewForConfig(cfg)
}
