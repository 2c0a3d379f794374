package scenarios

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// The API server's readiness for a scenario's objects: its admission
// configuration loaded, the namespace's ServiceAccount made.

// waitDenied waits until the API server enforces a new admission policy or
// webhook in ns (it loads them in the background): until a dry-run pod is
// rejected (a policy's or webhook's denial, or a webhook that fails
// closed), at most 15 s. The webhooks of the scenarios have no side
// effects, so the API server calls them for a dry run.
func waitDenied(ctx context.Context, c kubernetes.Interface, ns string) error {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "admission-probe-"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "probe", Image: "registry.lab.internal/web:v1"}}},
	}
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		_, err := c.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if apierrors.IsForbidden(err) || apierrors.IsInvalid(err) || apierrors.IsInternalError(err) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-afterPoll():
		}
	}
	return fmt.Errorf("the admission policy of namespace %s is not enforced after 15s", ns)
}

// waitServiceAccount waits for the namespace's default ServiceAccount: until
// the controller creates it, the ServiceAccount admission plugin rejects
// pods, which would make every scenario start with a FailedCreate.
func waitServiceAccount(ctx context.Context, c kubernetes.Interface, ns string) error {
	for {
		_, err := c.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		if err == nil {
			return nil
		}
		if !apierrors.IsNotFound(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for ServiceAccount %s/default: %w", ns, ctx.Err())
		case <-afterPoll():
		}
	}
}
