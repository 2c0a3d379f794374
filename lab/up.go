package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-chain/kubectl-chain/lab/kindlab"
	"github.com/kubectl-chain/kubectl-chain/lab/pki"
	"github.com/kubectl-chain/kubectl-chain/lab/proc"
	"github.com/kubectl-chain/kubectl-chain/lab/realnode"
	"github.com/kubectl-chain/kubectl-chain/lab/rollouts"
	"github.com/kubectl-chain/kubectl-chain/lab/state"
	"github.com/kubectl-chain/kubectl-chain/lab/traffic"
	"github.com/kubectl-chain/kubectl-chain/lab/webhook"
)

// Bounds of the lab's shape: each node gets a /24 of 10.244.0.0/16 for its
// pods (.2 to .254).
const (
	MaxNodes    = 250
	MaxNodePods = 253
)

// UpOptions shape the lab `up` creates.
type UpOptions struct {
	Nodes      int
	NodeCPU    string
	NodeMemory string
	NodePods   int
	// Timeout bounds the wait for the lab to become healthy.
	Timeout time.Duration
	// Executable is the lab binary, re-executed once per component.
	Executable string
	// Progress receives one line per step (stderr in the command).
	Progress io.Writer
	// Engine is "" (the lab's own control plane) or EngineKind.
	Engine string
	// NodeImage is the kind node image (EngineKind only; kind's default
	// when empty).
	NodeImage string
	// Run runs docker for the kind engine; nil runs it on this machine.
	Run kindlab.Runner
	// RealNodes is how many real nodes (the real kubelet, containerd and
	// runc on this machine) run beside the Nodes simulated ones.
	RealNodes int
	// NodeBin is the directory of the real nodes' programs.
	NodeBin string
	// Frozen leaves off the controllers that would rewrite what `lab fill`
	// writes: the workload controllers, the node lifecycle controller (the
	// filled nodes have no kubelet), pod and object garbage collection. A
	// frozen lab has no simulated nodes: fill writes its own.
	Frozen bool
	// TrafficController is the path of lab-traefik, the lab's Ingress and
	// Gateway API controller (lab/traffic); empty runs none.
	TrafficController string
	// RolloutsController is the path of Argo Rollouts' controller, with
	// its CRDs beside it (lab/rollouts); empty runs none.
	RolloutsController string
}

// MaxRealNodes bounds --real-nodes: each is a kubelet and a containerd on
// this machine.
const MaxRealNodes = 8

// Validate rejects shapes the lab cannot run.
func (o UpOptions) Validate() error {
	if _, err := ParseEngine(o.Engine); err != nil {
		return err
	}
	if o.RealNodes < 0 || o.RealNodes > MaxRealNodes {
		return fmt.Errorf("--real-nodes must be between 0 and %d, got %d", MaxRealNodes, o.RealNodes)
	}
	if o.TrafficController != "" {
		if o.Engine == EngineKind || o.Frozen {
			return errors.New("--traffic-controller runs beside the lab's own control plane: it takes neither --engine kind nor --frozen")
		}
		if err := traffic.CheckProgram(o.TrafficController); err != nil {
			return err
		}
	}
	if o.RolloutsController != "" {
		if o.Engine == EngineKind || o.Frozen {
			return errors.New("--rollouts-controller runs beside the lab's own control plane: it takes neither --engine kind nor --frozen")
		}
		if err := rollouts.CheckProgram(o.RolloutsController); err != nil {
			return err
		}
	}
	if o.Frozen {
		if o.Engine == EngineKind || o.Nodes+o.RealNodes > 0 {
			return errors.New("--frozen starts a control plane with no nodes, whose cluster `lab fill` writes: it takes neither --nodes, --real-nodes nor --engine kind")
		}
		return nil
	}
	if o.Nodes < 0 || o.Nodes > MaxNodes || o.Nodes+o.RealNodes < 1 {
		return fmt.Errorf("--nodes must be between 1 and %d (0 with --real-nodes), got %d", MaxNodes, o.Nodes)
	}
	if o.Engine == EngineKind {
		if o.RealNodes > 0 {
			return fmt.Errorf("--real-nodes runs nodes on this machine beside the lab's own control plane: it does not apply to --engine %s, whose nodes are all real", EngineKind)
		}
		return nil
	}
	if o.RealNodes > 0 {
		if err := realnode.CheckHost(o.NodeBin); err != nil {
			return err
		}
	}
	if o.NodeImage != "" {
		return fmt.Errorf("--node-image is a kind node image: it needs --engine %s", EngineKind)
	}
	for flag, q := range map[string]string{"--node-cpu": o.NodeCPU, "--node-memory": o.NodeMemory} {
		v, err := resource.ParseQuantity(q)
		if err != nil || v.Sign() <= 0 {
			return fmt.Errorf("%s must be a positive quantity, got %q", flag, q)
		}
	}
	if o.NodePods < 1 || o.NodePods > MaxNodePods {
		return fmt.Errorf("--node-pods must be between 1 and %d (a node's pod range is a /24), got %d", MaxNodePods, o.NodePods)
	}
	return nil
}

// RunningError is a second `up` for a lab that runs.
type RunningError struct{ Lab Lab }

func (e *RunningError) Error() string {
	return fmt.Sprintf("lab %q is already running (kubeconfig %s); use it (`%s` shows its health), or stop it first with `%s`",
		e.Lab.Name, e.Lab.Layout.Kubeconfig(), e.Lab.Command("status"), e.Lab.Command("down"))
}

// Up creates and starts the lab and returns once it is healthy. It returns
// how long that took. On failure the processes are stopped; the state stays
// for `status` and `logs` unless ctx was cancelled.
func (l Lab) Up(ctx context.Context, o UpOptions) (time.Duration, error) {
	begin := time.Now()
	if err := o.Validate(); err != nil {
		return 0, err
	}
	if o.Engine == EngineKind {
		return l.upKind(ctx, o)
	}
	release, err := l.claim(o.Progress)
	if err != nil {
		return 0, err
	}
	defer release()

	for attempt := 1; ; attempt++ {
		err := l.start(ctx, o, begin)
		if err == nil {
			return time.Since(begin), nil
		}
		if ctx.Err() != nil {
			_ = os.RemoveAll(l.Layout.Dir)
			return 0, fmt.Errorf("interrupted; lab %q stopped and removed", l.Name)
		}
		component, lines := l.failure(err)
		if taken := portTakenLine(lines); taken != "" && attempt < portAttempts {
			fmt.Fprintf(o.Progress, "%s (%s: %s); starting again with new ports\n", portTakenWords, component, taken)
			if err := l.clearForRetry(); err != nil {
				return 0, err
			}
			continue
		}
		return 0, l.explain(err)
	}
}

// start writes the lab's state and starts it; on failure its processes are
// stopped.
func (l Lab) start(ctx context.Context, o UpOptions, begin time.Time) error {
	spec, err := l.writeState(o, begin)
	if err != nil {
		return err
	}
	watch, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	exits, err := l.startSupervisor(watch, o.Executable)
	if err != nil {
		return err
	}
	err = l.waitHealthy(ctx, spec, o, exits)
	if err == nil {
		return nil
	}
	stopWatch()
	l.stopAll()
	return err
}

// claim makes the lab's directory ready for a new lab, whatever engine:
// a stale one is cleared (a running lab is refused), the directory exists,
// and the returned release frees the lock `up` holds meanwhile.
func (l Lab) claim(progress io.Writer) (release func(), err error) {
	if err := l.clearStale(progress); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(l.Layout.Dir, 0o700); err != nil {
		return nil, err
	}
	return lock(l.Layout.Lock())
}

// clearStale refuses a running lab and removes the state a crashed one left.
func (l Lab) clearStale(progress io.Writer) error {
	if !l.exists() {
		return nil
	}
	if !l.isLab() {
		entries, err := os.ReadDir(l.Layout.Dir)
		if err != nil {
			return err
		}
		if len(entries) > 0 {
			return fmt.Errorf("%s exists and is not a lab's state directory; choose another --state-dir", l.Layout.Dir)
		}
		return nil
	}
	if anyAlive(append(l.Processes(), l.Supervisor())) || l.isKind() {
		return &RunningError{Lab: l}
	}
	fmt.Fprintf(progress, "Removing the stale state of lab %q (no process alive: it crashed or the machine restarted).\n", l.Name)
	if left := l.cleanupRealNodes(); len(left) > 0 {
		return fmt.Errorf("the stale lab's real nodes left this on the machine; remove it, then run up again:%s", joinLines(left))
	}
	return os.RemoveAll(l.Layout.Dir)
}

// writeState chooses ports and writes lab.json, the PKI and kubeconfigs.
func (l Lab) writeState(o UpOptions, now time.Time) (state.Spec, error) {
	picker := NewPortPicker()
	defer picker.Close()
	ports, err := allocatePorts(picker)
	if err != nil {
		return state.Spec{}, err
	}
	spec := state.Spec{
		Name:    l.Name,
		Created: now.UTC().Truncate(time.Second),
		Nodes:   state.NodeShape{Count: o.Nodes, CPU: o.NodeCPU, Memory: o.NodeMemory, Pods: o.NodePods},
		Ports:   ports,
		Frozen:  o.Frozen,
	}
	if o.TrafficController != "" {
		if spec.TrafficController, err = filepath.Abs(o.TrafficController); err != nil {
			return spec, err
		}
	}
	if o.RolloutsController != "" {
		if spec.RolloutsController, err = filepath.Abs(o.RolloutsController); err != nil {
			return spec, err
		}
	}
	if o.RealNodes > 0 {
		if err := l.planRealNodes(&spec, o, picker); err != nil {
			return spec, err
		}
	}
	if err := state.WriteSpec(l.Layout, spec); err != nil {
		return spec, err
	}
	if err := pki.Generate(l.Layout, spec, now); err != nil {
		return spec, fmt.Errorf("generating certificates: %w", err)
	}
	return spec, nil
}

// startSupervisor spawns the supervisor, which starts every component at
// once (each retries until the ones it needs answer). The channel reports
// the first component that exits (from supervisor.json, polled until ctx
// ends) or the supervisor itself exiting.
func (l Lab) startSupervisor(ctx context.Context, exe string) (<-chan exited, error) {
	cmd, err := proc.Spawn(exe, l.supervisorArgs(), l.Layout.Log(state.Supervisor), l.Layout.Pid(state.Supervisor))
	if err != nil {
		return nil, err
	}
	exits := make(chan exited, 2)
	go func() {
		err := cmd.Wait()
		exits <- exited{component: state.Supervisor, err: err}
	}()
	go func() {
		t := time.NewTicker(pollInterval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			sv, _ := state.ReadSupervision(l.Layout)
			for _, r := range sv.Components {
				if r.LastExit != nil {
					exits <- exited{component: r.Component, err: errors.New(r.LastExit.String())}
					return
				}
			}
		}
	}()
	return exits, nil
}

// waitHealthy waits for the checks with the admin credentials.
func (l Lab) waitHealthy(ctx context.Context, spec state.Spec, o UpOptions, exits <-chan exited) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", l.Layout.Kubeconfig())
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = 100, 200
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ca, err := os.ReadFile(l.Layout.Cert("ca"))
	if err != nil {
		return err
	}
	hook := webhook.Endpoint{URL: spec.AdmissionWebhookURL(), CABundle: ca}
	wctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	start := time.Now()
	checks := healthChecks(spec.Nodes.Count+len(spec.RealNodes), hook)
	if spec.TrafficController != "" {
		checks = append(checks, check{"traffic controller (Traefik) accepted GatewayClass " + traffic.Class, func(ctx context.Context, c kubernetes.Interface) (bool, error) {
			return traffic.Install(ctx, c, pki.TrafficControllerUser)
		}})
	}
	if spec.RolloutsController != "" {
		checks = append(checks, check{"Argo Rollouts' CRDs established", func(ctx context.Context, c kubernetes.Interface) (bool, error) {
			return rollouts.Install(ctx, c, spec.RolloutsController, pki.RolloutsControllerUser)
		}})
	}
	return waitHealthy(wctx, client, checks, exits, func(name string) {
		fmt.Fprintf(o.Progress, " ✓ %s (%.1fs)\n", name, time.Since(start).Seconds())
	})
}
