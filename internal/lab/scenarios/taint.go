package scenarios

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
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
			return fmt.Errorf("tainting node %s: %w", n.Name, err)
		}
	}
	return nil
}

func afterPoll() <-chan time.Time { return time.After(50 * time.Millisecond) }
