package lab

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/kubectl-chain/kubectl-chain/lab/kindlab"
	"github.com/kubectl-chain/kubectl-chain/lab/proc"
	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

// stopGrace is how long components get to exit on SIGTERM before SIGKILL.
const stopGrace = 10 * time.Second

// Down stops every process of the lab and removes its state directory; run
// runs docker for a kind lab (nil: this machine's docker). A lab that does
// not run is not an error: Down says so and returns nil.
func (l Lab) Down(out io.Writer, run kindlab.Runner) error {
	if !l.exists() {
		fmt.Fprintf(out, "Lab %q is not running (no state in %s).\n", l.Name, l.Layout.Dir)
		return nil
	}
	if !l.isLab() {
		return fmt.Errorf("%s is not a lab's state directory (no lab.json or pids): not removing it", l.Layout.Dir)
	}
	release, err := lock(l.Layout.Lock())
	if err != nil {
		return err
	}
	defer release()
	if spec, err := l.Spec(); err == nil && spec.Engine == EngineKind {
		return l.downKind(out, spec, UpOptions{Run: run}.run())
	}
	wasRunning := anyAlive(append(l.Processes(), l.Supervisor()))
	killed := l.stopAll()
	if spec, err := l.Spec(); err == nil {
		if left := RealNodeLeftovers(spec, l.Layout); len(left) > 0 {
			return fmt.Errorf("lab %q stopped, but its real nodes left this on the machine (the state stays in %s; run down again, or remove them by hand):%s",
				l.Name, l.Layout.Dir, joinLines(left))
		}
	}
	if err := os.RemoveAll(l.Layout.Dir); err != nil {
		return fmt.Errorf("removing %s: %w", l.Layout.Dir, err)
	}
	switch {
	case !wasRunning:
		fmt.Fprintf(out, "Lab %q was not running; removed its stale state %s.\n", l.Name, l.Layout.Dir)
	case len(killed) > 0:
		fmt.Fprintf(out, "Lab %q stopped (%d process(es) needed SIGKILL) and its state removed.\n", l.Name, len(killed))
	default:
		fmt.Fprintf(out, "Lab %q stopped and its state removed.\n", l.Name)
	}
	return nil
}

// stopStages is the order of shutdown: the API server's clients (and the
// webhook server it calls), then the real nodes' containerd (after their
// kubelets, which talk to it) and the registry, then the API server, then
// etcd. Stopped together, the API server can hang on its storage going away
// under it until SIGKILL. Every component is in a stage
// (TestStopStagesCoverComponents); a real node's are matched by stageOf.
var stopStages = [][]string{
	{state.Kubelet, state.Scheduler, state.ControllerManager, state.AdmissionWebhook, state.StorageProvisioner, state.Operator, state.TrafficController, state.RolloutsController, state.RealKubelet("*")},
	{state.Containerd("*"), state.Registry},
	{state.APIServer},
	{state.Etcd},
}

// inStage reports whether component c is stopped in stage: by name, or, for
// a real node's component, by its kind (containerd-*, kubelet-*).
func inStage(stage []string, c string) bool {
	if node, real := state.RealNodeOf(c); real {
		c = strings.Replace(c, node, "*", 1)
	}
	return slices.Contains(stage, c)
}

// stopAll stops the supervisor first, so that it restarts nothing, then
// every component; it returns the pids that needed SIGKILL.
func (l Lab) stopAll() []int {
	var killed []int
	if sup := l.Supervisor(); sup.Alive {
		killed = proc.Stop([]int{sup.Pid}, l.marker(), stopGrace)
	}
	killed = append(killed, l.stop(l.Processes())...)
	l.cleanupRealNodes()
	return killed
}

// stop terminates the given processes of the lab stage by stage; it returns
// the pids that needed SIGKILL.
func (l Lab) stop(ps []Process) []int {
	var killed []int
	for _, stage := range stopStages {
		var stagePids []int
		for _, p := range ps {
			if inStage(stage, p.Component) && p.Pid > 0 {
				stagePids = append(stagePids, p.Pid)
			}
		}
		killed = append(killed, proc.Stop(stagePids, l.marker(), stopGrace)...)
	}
	return killed
}
