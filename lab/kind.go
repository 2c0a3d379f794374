package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-chain/kubectl-chain/lab/kindlab"
	"github.com/kubectl-chain/kubectl-chain/lab/kubelet"
	"github.com/kubectl-chain/kubectl-chain/lab/state"
	"github.com/kubectl-chain/kubectl-chain/lab/storage"
)

// The values of --engine.
const (
	// EngineLab is the lab's own control plane with the simulated kubelet.
	EngineLab = "lab"
	// EngineKind is a kind cluster in Docker, with real kubelets.
	EngineKind = state.EngineKind
)

// ParseEngine checks an --engine value and returns it as lab.json stores
// it: "" for the lab's own engine.
func ParseEngine(s string) (string, error) {
	switch s {
	case "", EngineLab:
		return "", nil
	case EngineKind:
		return EngineKind, nil
	}
	return "", fmt.Errorf("unknown --engine %q: choose %s (the default: the lab's own control plane and simulated kubelet, no Docker needed) or %s (a kind cluster in Docker, with real kubelets)",
		s, EngineLab, EngineKind)
}

// Spec reads the lab's lab.json.
func (l Lab) Spec() (state.Spec, error) { return state.ReadSpec(l.Layout) }

// isKind reports a lab whose lab.json says it runs on kind.
func (l Lab) isKind() bool {
	s, err := l.Spec()
	return err == nil && s.Engine == EngineKind
}

// run is the command runner of the kind engine.
func (o UpOptions) run() kindlab.Runner {
	if o.Run != nil {
		return o.Run
	}
	return kindlab.Exec
}

// upKind creates the lab on a kind cluster: Docker must answer first, so
// that nothing is written for a lab that cannot start.
func (l Lab) upKind(ctx context.Context, o UpOptions) (time.Duration, error) {
	begin := time.Now()
	if err := kindlab.CheckDocker(ctx, o.run()); err != nil {
		return 0, err
	}
	release, err := l.claim(o.Progress)
	if err != nil {
		return 0, err
	}
	defer release()
	spec := state.Spec{
		Name:        l.Name,
		Created:     begin.UTC().Truncate(time.Second),
		Engine:      EngineKind,
		KindCluster: kindlab.ClusterName(l.Name),
		Nodes:       state.NodeShape{Count: o.Nodes},
	}
	if err := state.WriteSpec(l.Layout, spec); err != nil {
		return 0, err
	}
	fmt.Fprintf(o.Progress, "Creating kind cluster %q: 1 control-plane node and %d worker(s)\n", spec.KindCluster, o.Nodes)
	err = kindlab.Create(kindlab.Params{
		Cluster: spec.KindCluster, Workers: o.Nodes, Zone: kubelet.Zone, NodeImage: o.NodeImage,
		Kubeconfig: l.Layout.Kubeconfig(), Wait: o.Timeout, Progress: o.Progress,
	})
	if ctx.Err() != nil {
		_ = kindlab.Delete(spec.KindCluster, l.Layout.Kubeconfig())
		_ = os.RemoveAll(l.Layout.Dir)
		return 0, fmt.Errorf("interrupted; kind cluster %q deleted and lab %q removed", spec.KindCluster, l.Name)
	}
	if err != nil {
		// kind removed the node containers of the failed cluster.
		_ = os.RemoveAll(l.Layout.Dir)
		return 0, err
	}
	if err := l.waitKind(ctx, o); err != nil {
		return 0, fmt.Errorf("kind cluster %q did not become healthy: %w\nit stays for inspection (kubeconfig %s); `kubectl chain lab down --name %s` deletes it",
			spec.KindCluster, err, l.Layout.Kubeconfig(), l.Name)
	}
	return time.Since(begin), nil
}

// waitKind waits for what a kind lab needs before scenarios apply: every
// worker Ready, the default ServiceAccount, and kind's default StorageClass.
func (l Lab) waitKind(ctx context.Context, o UpOptions) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", l.Layout.Kubeconfig())
	if err != nil {
		return err
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	start := time.Now()
	checks := []check{
		{"API server ready", apiServerReady},
		{fmt.Sprintf("%d node(s) Ready", o.Nodes+1), func(ctx context.Context, c kubernetes.Interface) (bool, error) {
			return nodesReady(ctx, c, o.Nodes+1)
		}},
		{"default ServiceAccount and kube-root-ca.crt published", defaultNamespaceReady},
		{"a default StorageClass", defaultStorageClass},
	}
	return waitHealthy(wctx, client, checks, nil, func(name string) {
		fmt.Fprintf(o.Progress, " ✓ %s (%.1fs)\n", name, time.Since(start).Seconds())
	})
}

// defaultStorageClass holds once a StorageClass is marked default.
func defaultStorageClass(ctx context.Context, c kubernetes.Interface) (bool, error) {
	scs, err := c.StorageV1().StorageClasses().List(ctx, metav1.ListOptions{})
	if err != nil {
		return false, nil
	}
	for _, sc := range scs.Items {
		if sc.Annotations[storage.DefaultClassAnnotation] == "true" {
			return true, nil
		}
	}
	return false, nil
}

// downKind deletes the lab's kind cluster; the state stays when that fails,
// so that a later down can try again.
func (l Lab) downKind(out io.Writer, spec state.Spec, run kindlab.Runner) error {
	if err := kindlab.CheckDocker(context.Background(), run); err != nil {
		return fmt.Errorf("cannot delete kind cluster %q of lab %q: %w\nthe lab's state stays in %s", spec.KindCluster, l.Name, err, l.Layout.Dir)
	}
	if err := kindlab.Delete(spec.KindCluster, l.Layout.Kubeconfig()); err != nil {
		return fmt.Errorf("%w\nthe lab's state stays in %s", err, l.Layout.Dir)
	}
	if err := os.RemoveAll(l.Layout.Dir); err != nil {
		return fmt.Errorf("removing %s: %w", l.Layout.Dir, err)
	}
	fmt.Fprintf(out, "Lab %q stopped: kind cluster %q deleted and the state removed.\n", l.Name, spec.KindCluster)
	return nil
}

// statusKind reports the node containers of a kind lab.
func (l Lab) statusKind(r Report, spec state.Spec, run kindlab.Runner) Report {
	r.Engine, r.KindCluster = EngineKind, spec.KindCluster
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := kindlab.CheckDocker(ctx, run); err != nil {
		r.Err = err.Error()
		return r
	}
	nodes, err := kindlab.Nodes(ctx, run, spec.KindCluster)
	if err != nil {
		r.Err = err.Error()
		return r
	}
	if len(nodes) == 0 {
		r.Err = fmt.Sprintf("kind cluster %q has no node containers (deleted outside the lab?); `kubectl chain lab down --name %s` removes the lab's state", spec.KindCluster, l.Name)
	}
	for _, n := range nodes {
		r.Components = append(r.Components, ComponentStatus{Process: Process{Component: n.Name, Alive: n.State == "running"}, Role: n.Role, DockerState: n.State})
	}
	return r
}

// ErrKindLogs is `logs` on a kind lab, whose components run in its nodes.
var ErrKindLogs = errors.New("a kind lab's components run inside its node containers: read them with `kubectl logs -n kube-system POD`, or collect every log with `kind export logs --name chain-lab-NAME`")
