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
	"k8s.io/utils/ptr"
)

// TestHealthyDeployment applies a healthy 3-replica Deployment, waits until
// it is Available, and checks that kubectl-chain calls it healthy.
func TestHealthyDeployment(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ns := createNamespace(ctx, t, "e2e-healthy")

	start := time.Now()
	if _, err := client.AppsV1().Deployments(ns).Create(ctx, healthyDeployment("web", 3), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
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

// createNamespace creates a namespace for one test and deletes it after.
func createNamespace(ctx context.Context, t *testing.T, name string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	waitServiceAccount(ctx, t, name)
	return name
}

// waitServiceAccount waits for the namespace's default ServiceAccount, which
// the ServiceAccount admission plugin requires before any pod is created.
func waitServiceAccount(ctx context.Context, t *testing.T, ns string) {
	t.Helper()
	poll(ctx, t, "ServiceAccount "+ns+"/default", func() bool {
		_, err := client.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		return err == nil
	})
}

func waitAvailable(ctx context.Context, t *testing.T, ns, name string) {
	t.Helper()
	poll(ctx, t, "Deployment "+ns+"/"+name+" Available", func() bool {
		d, err := client.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false
		}
		for _, c := range d.Status.Conditions {
			if c.Type == appsv1.DeploymentAvailable && c.Status == corev1.ConditionTrue {
				return d.Status.AvailableReplicas == *d.Spec.Replicas
			}
		}
		return false
	})
}

func poll(ctx context.Context, t *testing.T, what string, ok func() bool) {
	t.Helper()
	for !ok() {
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
