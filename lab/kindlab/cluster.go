package kindlab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/kind/pkg/apis/config/defaults"
	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
	"sigs.k8s.io/kind/pkg/cluster"
	kindexec "sigs.k8s.io/kind/pkg/exec"
	kindlog "sigs.k8s.io/kind/pkg/log"
)

// DefaultNodeImage is the node image kind v0.33.0 creates nodes from when
// --node-image is not given.
const DefaultNodeImage = defaults.Image

// ClusterName is the kind cluster of lab name, like the lab's kubeconfig
// context (chain-lab-NAME).
func ClusterName(lab string) string { return "chain-lab-" + lab }

// Params shape the kind cluster of a lab.
type Params struct {
	Cluster string
	// Workers is the number of worker nodes; one control-plane node runs
	// beside them, tainted as kubeadm taints it.
	Workers int
	// Zone names the zone of the i-th worker (topology.kubernetes.io/zone),
	// as the simulated nodes are zoned, for the scenarios that spread pods.
	Zone func(i int) string
	// NodeImage is the node image, DefaultNodeImage when empty.
	NodeImage  string
	Kubeconfig string
	Wait       time.Duration
	Progress   io.Writer
}

// Config is the kind cluster configuration of p.
func Config(p Params) *v1alpha4.Cluster {
	c := &v1alpha4.Cluster{
		TypeMeta: v1alpha4.TypeMeta{Kind: "Cluster", APIVersion: "kind.x-k8s.io/v1alpha4"},
		Nodes:    []v1alpha4.Node{{Role: v1alpha4.ControlPlaneRole, Image: p.NodeImage}},
	}
	for i := range p.Workers {
		n := v1alpha4.Node{Role: v1alpha4.WorkerRole, Image: p.NodeImage}
		if p.Zone != nil {
			n.Labels = map[string]string{corev1.LabelTopologyZone: p.Zone(i)}
		}
		c.Nodes = append(c.Nodes, n)
	}
	return c
}

// Create creates the cluster and writes its kubeconfig. kind removes the
// node containers of a cluster that fails to come up.
func Create(p Params) error {
	provider := cluster.NewProvider(cluster.ProviderWithDocker(), cluster.ProviderWithLogger(logger{p.Progress}))
	err := provider.Create(p.Cluster,
		cluster.CreateWithV1Alpha4Config(Config(p)),
		cluster.CreateWithKubeconfigPath(p.Kubeconfig),
		cluster.CreateWithWaitForReady(p.Wait),
		cluster.CreateWithDisplayUsage(false),
		cluster.CreateWithDisplaySalutation(false),
	)
	return explain("creating kind cluster "+p.Cluster, err)
}

// Delete removes the cluster's node containers and its entry in kubeconfig.
func Delete(name, kubeconfig string) error {
	provider := cluster.NewProvider(cluster.ProviderWithDocker(), cluster.ProviderWithLogger(logger{io.Discard}))
	return explain("deleting kind cluster "+name, provider.Delete(name, kubeconfig))
}

// Node is one node container of a kind cluster and its Docker state.
type Node struct {
	Name, Role, State string
}

// Nodes lists the cluster's node containers with their state (running,
// exited, ...), in name order.
func Nodes(ctx context.Context, run Runner, name string) ([]Node, error) {
	provider := cluster.NewProvider(cluster.ProviderWithDocker(), cluster.ProviderWithLogger(logger{io.Discard}))
	ns, err := provider.ListNodes(name)
	if err != nil {
		return nil, explain("listing the nodes of kind cluster "+name, err)
	}
	out := make([]Node, 0, len(ns))
	for _, n := range ns {
		role, _ := n.Role()
		st, err := run(ctx, "docker", "inspect", "--format", "{{.State.Status}}", n.String())
		state := strings.TrimSpace(string(st))
		if err != nil {
			state = "unknown"
		}
		out = append(out, Node{Name: n.String(), Role: role, State: state})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// StandInImage is an image every schedulable node already holds, for the
// lab catalogue's healthy image, which a real node cannot pull: kind's node
// image ships the pause image preloaded, and a pause container runs until
// it is stopped, as the lab's healthy container does.
func StandInImage(ctx context.Context, c kubernetes.Interface) (string, error) {
	nodes, err := c.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", fmt.Errorf("listing nodes: %w", err)
	}
	counts := map[string]int{}
	schedulable := 0
	for _, n := range nodes.Items {
		if hasNoSchedule(n) {
			continue
		}
		schedulable++
		for _, img := range n.Status.Images {
			for _, name := range img.Names {
				if strings.Contains(name, "/pause:") && !strings.Contains(name, "@") {
					counts[name]++
				}
			}
		}
	}
	var names []string
	for name, c := range counts {
		if c == schedulable {
			names = append(names, name)
		}
	}
	if schedulable == 0 || len(names) == 0 {
		return "", errors.New("no image is preloaded on every worker node to stand in for the lab's images (kind's node image ships the pause image): check `kubectl get nodes -o yaml` for status.images, or use kind's default node image")
	}
	sort.Strings(names)
	return names[len(names)-1], nil
}

func hasNoSchedule(n corev1.Node) bool {
	for _, t := range n.Spec.Taints {
		if t.Effect == corev1.TaintEffectNoSchedule {
			return true
		}
	}
	return false
}

// explain adds the failed command's output to an error of kind (which
// keeps it apart, in a RunError) and drops kind's stack traces, which only
// %+v prints.
func explain(what string, err error) error {
	if err == nil {
		return nil
	}
	msg := fmt.Sprintf("%s: %v", what, err)
	if re := kindexec.RunErrorForError(err); re != nil && len(re.Output) > 0 {
		lines := strings.Split(strings.TrimSpace(string(re.Output)), "\n")
		if len(lines) > 10 {
			lines = lines[len(lines)-10:]
		}
		msg += "\n  " + strings.Join(lines, "\n  ")
	}
	return errors.New(msg)
}

// logger is kind's logger on the progress writer: warnings, errors and
// kind's status lines (level 0); its debug levels stay quiet.
type logger struct{ w io.Writer }

var _ kindlog.Logger = logger{}

func (l logger) Warn(m string)                        { fmt.Fprintln(l.w, "WARNING:", m) }
func (l logger) Warnf(f string, a ...any)             { l.Warn(fmt.Sprintf(f, a...)) }
func (l logger) Error(m string)                       { fmt.Fprintln(l.w, "ERROR:", m) }
func (l logger) Errorf(f string, a ...any)            { l.Error(fmt.Sprintf(f, a...)) }
func (l logger) V(v kindlog.Level) kindlog.InfoLogger { return infoLogger{w: l.w, on: v <= 0} }

type infoLogger struct {
	w  io.Writer
	on bool
}

func (i infoLogger) Info(m string) {
	if i.on {
		fmt.Fprintln(i.w, m)
	}
}
func (i infoLogger) Infof(f string, a ...any) { i.Info(fmt.Sprintf(f, a...)) }
func (i infoLogger) Enabled() bool            { return i.on }
