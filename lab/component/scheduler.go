package component

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"

	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

// Client limits of the scheduler and the controller-manager. Upstream's
// defaults (50 and 20 requests per second) bind and create pods at that
// rate, which makes a thousand-pod rollout take a minute on an otherwise
// idle lab; the limits change how fast, not what happens.
const (
	clientQPS   = 200
	clientBurst = 400
)

// schedulerConfigFile is the KubeSchedulerConfiguration of a lab: the
// default profile, the scheduler's kubeconfig and client limits, and no
// leader election (a lab has one replica, and a restarted one must not wait
// out a stale lease).
func schedulerConfigFile(l state.Layout) string {
	return fmt.Sprintf(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: %s
  qps: %d
  burst: %d
leaderElection:
  leaderElect: false
`, strconv.Quote(l.ComponentKubeconfig(state.Scheduler)), clientQPS, clientBurst)
}

// schedulerConfigPath is where the configuration is written.
func schedulerConfigPath(l state.Layout) string {
	return filepath.Join(l.Dir, "kubeconfigs", "kube-scheduler-config.yaml")
}

// schedulerArgs connects upstream's kube-scheduler as system:kube-scheduler.
func schedulerArgs(l state.Layout, s state.Spec) []string {
	kc := l.ComponentKubeconfig(state.Scheduler)
	return []string{
		"--config=" + schedulerConfigPath(l),
		"--authentication-kubeconfig=" + kc,
		"--authorization-kubeconfig=" + kc,
		"--bind-address=" + state.Host,
		"--secure-port=" + strconv.Itoa(s.Ports.Scheduler),
		"--profiling=false",
	}
}

// runScheduler runs upstream's unmodified kube-scheduler command.
func runScheduler(ctx context.Context, l state.Layout, s state.Spec) error {
	if err := os.WriteFile(schedulerConfigPath(l), []byte(schedulerConfigFile(l)), 0o600); err != nil {
		return err
	}
	cmd := scheduler.NewSchedulerCommand()
	if err := awaitAPIServer(ctx, l.ComponentKubeconfig(state.Scheduler)); err != nil {
		return err
	}
	cmd.SetArgs(schedulerArgs(l, s))
	return cmd.ExecuteContext(ctx)
}
