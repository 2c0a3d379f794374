package lab

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// pollInterval is how often `up` checks the cluster while it comes up.
const pollInterval = 100 * time.Millisecond

// exited is a component process that ended while `up` waited for it.
type exited struct {
	component string
	err       error
}

// check is one step of health: done reports whether it holds now.
type check struct {
	name string
	done func(ctx context.Context, c kubernetes.Interface) (bool, error)
}

// healthChecks are what "healthy" means for a lab of n nodes: the API server
// is ready; every node is registered, Ready and schedulable (the node
// lifecycle controller removed the not-ready taint, so the controller-manager
// works); and namespace "default" has its ServiceAccount and kube-root-ca.crt
// (the serviceaccount and root-ca-cert-publisher controllers ran), so a
// Deployment applied right away creates pods at once.
func healthChecks(n int) []check {
	return []check{
		{"API server ready", apiServerReady},
		{fmt.Sprintf("%d node(s) Ready", n), func(ctx context.Context, c kubernetes.Interface) (bool, error) {
			return nodesReady(ctx, c, n)
		}},
		{"default ServiceAccount and kube-root-ca.crt published", defaultNamespaceReady},
	}
}

func apiServerReady(ctx context.Context, c kubernetes.Interface) (bool, error) {
	body, err := c.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
	return err == nil && string(body) == "ok", nil
}

func nodesReady(ctx context.Context, c kubernetes.Interface, n int) (bool, error) {
	nodes, err := c.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return false, nil
	}
	ready := 0
	for i := range nodes.Items {
		if nodeSchedulable(&nodes.Items[i]) {
			ready++
		}
	}
	return ready >= n, nil
}

// nodeSchedulable is a node that is Ready and no longer carries the taints a
// new or unhealthy node gets.
func nodeSchedulable(node *corev1.Node) bool {
	for _, t := range node.Spec.Taints {
		if t.Key == corev1.TaintNodeNotReady || t.Key == corev1.TaintNodeUnreachable {
			return false
		}
	}
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func defaultNamespaceReady(ctx context.Context, c kubernetes.Interface) (bool, error) {
	if _, err := c.CoreV1().ServiceAccounts(metav1.NamespaceDefault).Get(ctx, "default", metav1.GetOptions{}); err != nil {
		return false, nil
	}
	if _, err := c.CoreV1().ConfigMaps(metav1.NamespaceDefault).Get(ctx, "kube-root-ca.crt", metav1.GetOptions{}); err != nil {
		return false, nil
	}
	return true, nil
}

// waitHealthy runs the checks in order, each until it holds, and fails as
// soon as a component exits or ctx ends. passed is called after each check.
func waitHealthy(ctx context.Context, c kubernetes.Interface, checks []check, exits <-chan exited, passed func(name string)) error {
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	for _, ch := range checks {
		for {
			reqCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
			ok, err := ch.done(reqCtx, c)
			cancel()
			if err != nil {
				return err
			}
			if ok {
				passed(ch.name)
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("waiting for %s: %w", ch.name, ctx.Err())
			case e := <-exits:
				return &componentExitError{component: e.component, err: e.err}
			case <-t.C:
			}
		}
	}
	return nil
}

// componentExitError is a component that died while the lab came up.
type componentExitError struct {
	component string
	err       error
}

func (e *componentExitError) Error() string {
	if e.err == nil {
		return e.component + " exited (status 0) while the lab was starting"
	}
	return fmt.Sprintf("%s exited while the lab was starting: %v", e.component, e.err)
}
