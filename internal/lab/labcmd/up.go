package labcmd

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/kubectl-chain/kubectl-chain/internal/lab"
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
			l, err := lab.Open(g.name, g.stateDir, getenv)
			if err != nil {
				return err
			}
			exe, err := os.Executable()
			if err != nil {
				return fmt.Errorf("finding this executable to start the components: %w", err)
			}
			o.Executable, o.Progress = exe, s.ErrOut
			fmt.Fprintf(s.ErrOut, "Starting lab %q with %d node(s) (state: %s)\n", l.Name, o.Nodes, l.Layout.Dir)
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
	return cmd
}

func printReady(s Streams, l lab.Lab, o lab.UpOptions, took time.Duration) {
	kc := l.Layout.Kubeconfig()
	fmt.Fprintf(s.Out, `Lab %q is ready in %.1fs with %d node(s).

Kubeconfig: %s

Use it:
  export KUBECONFIG=%s
  kubectl get nodes
  kubectl chain deploy/NAME

Stop it:
  %s
`, l.Name, took.Seconds(), o.Nodes, kc, kc, l.Command("down"))
}
