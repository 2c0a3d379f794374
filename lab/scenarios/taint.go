package scenarios

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"

	"github.com/kubectl-chain/kubectl-chain/lab/kubelet"
)

// TaintNodes puts t on every node (kubectl taint nodes --all KEY=VALUE:EFFECT).
func TaintNodes(ctx context.Context, c kubernetes.Interface, t corev1.Taint) error {
	return eachNode(ctx, c, func(n *corev1.Node) bool {
		for _, have := range n.Spec.Taints {
			if have.Key == t.Key && have.Effect == t.Effect {
				return false
			}
		}
		n.Spec.Taints = append(n.Spec.Taints, t)
		return true
	})
}

// UntaintNodes removes t from every node (kubectl taint nodes --all KEY-).
func UntaintNodes(ctx context.Context, c kubernetes.Interface, t corev1.Taint) error {
	return eachNode(ctx, c, func(n *corev1.Node) bool {
		var kept []corev1.Taint
		for _, have := range n.Spec.Taints {
			if have.Key != t.Key || have.Effect != t.Effect {
				kept = append(kept, have)
			}
		}
		changed := len(kept) != len(n.Spec.Taints)
		n.Spec.Taints = kept
		return changed
	})
}

// eachNode applies change to every node, updating those it changed.
func eachNode(ctx context.Context, c kubernetes.Interface, change func(*corev1.Node) bool) error {
	nodes, err := c.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing nodes: %w", err)
	}
	for _, n := range nodes.Items {
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			cur, err := c.CoreV1().Nodes().Get(ctx, n.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if !change(cur) {
				return nil
			}
			_, err = c.CoreV1().Nodes().Update(ctx, cur, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			return fmt.Errorf("updating node %s: %w", n.Name, err)
		}
	}
	return nil
}

func afterPoll() <-chan time.Time { return time.After(50 * time.Millisecond) }

// StopKubelets waits until the scenario's workload runs all its pods ready,
// then stops the simulated kubelet of each node they run on (the node
// annotation kubelet.AnnotationStopped): it no longer renews its Lease nor
// posts a status, as a kubelet that died.
func StopKubelets(ctx context.Context, c kubernetes.Interface, s Scenario, ns string) error {
	if err := waitFirstStep(ctx, c, s, ns, true, "stopping the kubelets of its nodes"); err != nil {
		return err
	}
	pods, err := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	nodes := map[string]bool{}
	for _, p := range pods.Items {
		if p.Spec.NodeName != "" {
			nodes[p.Spec.NodeName] = true
		}
	}
	return eachNode(ctx, c, func(n *corev1.Node) bool {
		if !nodes[n.Name] {
			return false
		}
		if n.Annotations == nil {
			n.Annotations = map[string]string{}
		}
		n.Annotations[kubelet.AnnotationStopped] = "true"
		return true
	})
}

// StartKubelets removes kubelet.AnnotationStopped from every node: their
// simulated kubelets renew their Leases and post again.
func StartKubelets(ctx context.Context, c kubernetes.Interface) error {
	return eachNode(ctx, c, func(n *corev1.Node) bool {
		if _, ok := n.Annotations[kubelet.AnnotationStopped]; !ok {
			return false
		}
		delete(n.Annotations, kubelet.AnnotationStopped)
		return true
	})
}
