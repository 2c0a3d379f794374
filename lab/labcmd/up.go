package labcmd

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/kubectl-chain/kubectl-chain/lab"
	"github.com/kubectl-chain/kubectl-chain/lab/rollouts"
	"github.com/kubectl-chain/kubectl-chain/lab/traffic"
)

func newUp(g *globals, s Streams) *cobra.Command {
	o := lab.UpOptions{}
	cmd := &cobra.Command{
		Use:   "up",
		Short: "Start a lab and wait until it is healthy",
		Long: `Start a lab in the background and return once the API server is ready and every
node is Ready. Its certificates, kubeconfig, logs and pids stay in the lab's state
directory until down.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			engine, err := lab.ParseEngine(o.Engine)
			if err != nil {
				return err
			}
			o.Engine = engine
			if o.Frozen && !cmd.Flags().Changed("nodes") {
				o.Nodes = 0
			}
			if o.Frozen {
				if err := o.Validate(); err != nil {
					return err
				}
			}
			if engine == lab.EngineKind {
				for _, f := range []string{"node-cpu", "node-memory", "node-pods"} {
					if cmd.Flags().Changed(f) {
						return fmt.Errorf("--%s shapes the lab's virtual nodes and does not apply to --engine kind, whose nodes offer this machine's resources", f)
					}
				}
			}
			l, err := lab.Open(g.name, g.stateDir, getenv)
			if err != nil {
				return err
			}
			exe, err := os.Executable()
			if err != nil {
				return fmt.Errorf("finding this executable to start the components: %w", err)
			}
			o.Executable, o.Progress, o.Run = exe, s.ErrOut, g.run
			if o.NodeBin == "" {
				o.NodeBin = filepath.Dir(exe)
			}
			how := ""
			if engine == lab.EngineKind {
				how = " on kind"
			}
			real := ""
			if o.RealNodes > 0 {
				real = fmt.Sprintf(" and %d real node(s)", o.RealNodes)
			}
			if o.TrafficController != "" {
				real += " and a traffic controller (Traefik)"
			}
			if o.RolloutsController != "" {
				real += " and Argo Rollouts' controller"
			}
			fmt.Fprintf(s.ErrOut, "Starting lab %q%s with %d node(s)%s (state: %s)\n", l.Name, how, o.Nodes, real, l.Layout.Dir)
			took, err := l.Up(cmd.Context(), o)
			if err != nil {
				return err
			}
			printReady(s, l, o, took)
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.Nodes, "nodes", 3, "number of virtual nodes")
	f.StringVar(&o.NodeCPU, "node-cpu", "4", "cpu capacity of each node")
	f.StringVar(&o.NodeMemory, "node-memory", "8Gi", "memory capacity of each node")
	f.IntVar(&o.NodePods, "node-pods", 110, "pod capacity of each node")
	f.DurationVar(&o.Timeout, "timeout", 3*time.Minute, "how long to wait for the lab to become healthy")
	f.StringVar(&o.Engine, "engine", lab.EngineLab, "lab: the lab's own control plane and simulated kubelet (no Docker); kind: a kind cluster in Docker, with real kubelets")
	f.StringVar(&o.NodeImage, "node-image", "", "kind node image (--engine kind; default kind's own for its version)")
	f.IntVar(&o.RealNodes, "real-nodes", 0, "number of real nodes beside the virtual ones: the real kubelet, containerd and runc on this machine (needs root)")
	f.BoolVar(&o.Frozen, "frozen", false, "a control plane whose controllers leave written statuses alone and no nodes: for `lab fill`, which writes a big cluster straight into it")
	f.StringVar(&o.TrafficController, "traffic-controller", "", "path of lab-traefik, an Ingress and Gateway API controller (Traefik's providers) that writes their statuses; build it "+traffic.BuildHint)
	f.StringVar(&o.RolloutsController, "rollouts-controller", "", "path of Argo Rollouts' controller (rollouts-controller), with its CRDs in "+rollouts.CRDDir+"/ beside it; build it "+rollouts.BuildHint)
	f.StringVar(&o.NodeBin, "node-bin", "", "directory of the real nodes' programs: containerd, containerd-shim-runc-v2, runc, bridge, host-local, loopback, chain-workload (default: this executable's directory)")
	return cmd
}

func printReady(s Streams, l lab.Lab, o lab.UpOptions, took time.Duration) {
	kc := l.Layout.Kubeconfig()
	workers := ""
	if o.Engine == lab.EngineKind {
		workers = " worker"
	}
	fmt.Fprintf(s.Out, `Lab %q is ready in %.1fs with %d%s node(s).

Kubeconfig: %s

Use it:
  export KUBECONFIG=%s
  kubectl get nodes
  kubectl chain deploy/NAME

Stop it:
  %s
`, l.Name, took.Seconds(), o.Nodes, workers, kc, kc, l.Command("down"))
}
