package fill

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// retry runs a write until the API server takes it: a busy one answers
// 429 or times out now and then.
func retry(ctx context.Context, write func() error) error {
	return wait.ExponentialBackoffWithContext(ctx, wait.Backoff{Duration: 50 * time.Millisecond, Factor: 2, Steps: 8, Cap: 5 * time.Second}, func(context.Context) (bool, error) {
		err := write()
		switch {
		case err == nil:
			return true, nil
		case apierrors.IsConflict(err), apierrors.IsTooManyRequests(err), apierrors.IsServerTimeout(err), apierrors.IsTimeout(err), apierrors.IsServiceUnavailable(err):
			return false, nil
		}
		return false, err
	})
}

// statusClient is a typed client of a resource with a status.
type statusClient[T metav1.Object] interface {
	Create(context.Context, T, metav1.CreateOptions) (T, error)
	Get(context.Context, string, metav1.GetOptions) (T, error)
	UpdateStatus(context.Context, T, metav1.UpdateOptions) (T, error)
}

// createWithStatus creates obj (or takes the one an earlier try created),
// then, when set is not nil, writes the status set puts on it, as the
// object's controller would: the API server drops a status sent with a
// create. It retries what a busy API server refuses.
func createWithStatus[T metav1.Object](ctx context.Context, c statusClient[T], obj T, set func(T)) (T, error) {
	out := obj
	err := retry(ctx, func() error {
		created, err := c.Create(ctx, obj, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			created, err = c.Get(ctx, obj.GetName(), metav1.GetOptions{})
		}
		if err != nil {
			return err
		}
		out = created
		if set == nil {
			return nil
		}
		set(created)
		out, err = c.UpdateStatus(ctx, created, metav1.UpdateOptions{})
		return err
	})
	return out, err
}

func writeNodes(ctx context.Context, c kubernetes.Interface, names []string, tpl corev1.Node, now time.Time) error {
	for i, name := range names {
		n := tpl.DeepCopy()
		old := n.Name
		fresh(&n.ObjectMeta, "", name)
		n.Labels["kubernetes.io/hostname"] = name
		n.Spec.PodCIDR, n.Spec.PodCIDRs = "", nil
		n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: nodeIP(i)}, {Type: corev1.NodeHostName, Address: name}}
		for j := range n.Status.Conditions {
			n.Status.Conditions[j].LastHeartbeatTime = metav1.NewTime(now)
			n.Status.Conditions[j].Message = strings.ReplaceAll(n.Status.Conditions[j].Message, old, name)
		}
		n.Status.Capacity[corev1.ResourcePods] = *resourcePods(podsPerNode)
		n.Status.Allocatable[corev1.ResourcePods] = *resourcePods(podsPerNode)
		status := n.Status
		created, err := createWithStatus(ctx, c.CoreV1().Nodes(), n, func(n *corev1.Node) { n.Status = status })
		if err == nil {
			// The API server taints a new node not-ready (admission's
			// TaintNodesByCondition); the node lifecycle controller lifts
			// the taint once the node is Ready, as it is here.
			created.Spec.Taints = tpl.Spec.Taints
			err = retry(ctx, func() error {
				_, err := c.CoreV1().Nodes().Update(ctx, created, metav1.UpdateOptions{})
				return err
			})
		}
		if err != nil {
			return fmt.Errorf("node %s: %w", name, err)
		}
	}
	return nil
}

func resourcePods(n int64) *resource.Quantity { return resource.NewQuantity(n, resource.DecimalSI) }

// nodeIP is the InternalIP of the fill's node i (a range no lab node uses).
func nodeIP(i int) string { return fmt.Sprintf("10.%d.%d.%d", 200+i/65536, i/256%256, i%256) }

func writeNamespaces(ctx context.Context, c kubernetes.Interface, names []string) error {
	for _, name := range names {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if err := retry(ctx, func() error {
			_, err := c.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
			return err
		}); err != nil {
			return fmt.Errorf("namespace %s: %w", name, err)
		}
	}
	// Pods need their namespace's default ServiceAccount, which the
	// serviceaccount controller creates.
	for _, name := range names {
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			_, err := c.CoreV1().ServiceAccounts(name).Get(ctx, "default", metav1.GetOptions{})
			return err == nil, nil
		})
		if err != nil {
			return fmt.Errorf("namespace %s has no default ServiceAccount after a minute: is the lab's controller manager running? %w", name, err)
		}
	}
	return nil
}
