package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// TestHealthyDeployment applies a healthy 3-replica Deployment, waits until
// it is Available, and checks that kubectl-chain calls it healthy.
func TestHealthyDeployment(t *testing.T) {
	alone(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ns := createNamespace(ctx, t, "e2e-healthy")

	start := time.Now()
	createDeployment(ctx, t, ns, healthyDeployment("web", 3))
	waitAvailable(ctx, t, ns, "web")
	t.Logf("apply to Available: %v (budget 2s)", time.Since(start).Round(time.Millisecond))

	out, err := exec.CommandContext(ctx, chainBin, "deploy/web", "-n", ns, "-o", "json", "--kubeconfig", kubeconfig).Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		t.Fatalf("kubectl-chain exited %d, want 0\nstdout:\n%s\nstderr:\n%s", ee.ExitCode(), out, ee.Stderr)
	}
	if err != nil {
		t.Fatal(err)
	}
	var report struct {
		Verdict struct {
			Health string `json:"health"`
		} `json:"verdict"`
	}
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("decoding the report: %v\n%s", err, out)
	}
	if report.Verdict.Health != "healthy" {
		t.Errorf("verdict.health = %q, want healthy\n%s", report.Verdict.Health, out)
	}
}

func healthyDeployment(name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name:  name,
					Image: "registry.lab.internal/" + name + ":v1",
				}}},
			},
		},
	}
}

// createNamespace creates a namespace on the shared lab for one test and
// deletes it after.
func createNamespace(ctx context.Context, t testing.TB, name string) string {
	return createNamespaceIn(ctx, t, client, name)
}

// createNamespaceIn creates a namespace with c, deletes it after the test,
// and waits for its default ServiceAccount, which the ServiceAccount
// admission plugin requires before any pod is created.
func createNamespaceIn(ctx context.Context, t testing.TB, c kubernetes.Interface, name string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := c.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	poll(ctx, t, "ServiceAccount "+name+"/default", func() bool {
		_, err := c.CoreV1().ServiceAccounts(name).Get(ctx, "default", metav1.GetOptions{})
		return err == nil
	})
	return name
}

// waitAvailable waits until the Deployment on the shared lab is Available
// with every replica.
func waitAvailable(ctx context.Context, t testing.TB, ns, name string) {
	waitAvailableIn(ctx, t, client, ns, name)
}

func waitAvailableIn(ctx context.Context, t testing.TB, c kubernetes.Interface, ns, name string) {
	t.Helper()
	poll(ctx, t, "Deployment "+ns+"/"+name+" Available", func() bool {
		d, err := c.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		return err == nil && available(d) && d.Status.AvailableReplicas == *d.Spec.Replicas
	})
}

func poll(ctx context.Context, t testing.TB, what string, ok func() bool) {
	t.Helper()
	for !ok() {
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
