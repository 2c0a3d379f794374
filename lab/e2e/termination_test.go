package e2e

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
)

// TestPodTermination deletes a pod whose container ends on SIGTERM with 143
// and watches it leave as on a real node: the kubelet's Killing event, a
// terminal status (terminated 143 Error, phase Failed, Ready False PodFailed)
// and only then the pod's removal.
func TestPodTermination(t *testing.T) {
	alone(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ns := createNamespace(ctx, t, "e2e-termination")
	d := healthyDeployment("web", 1)
	d.Spec.Template.Annotations = map[string]string{"lab.kubectl-chain.io/stop-exit-code": "143"}
	d.Spec.Template.Spec.TerminationGracePeriodSeconds = ptr.To[int64](5)
	if _, err := client.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitAvailable(ctx, t, ns, "web")
	pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil || len(pods.Items) != 1 {
		t.Fatalf("pods: %v, %d", err, len(pods.Items))
	}
	pod := pods.Items[0]
	w, err := client.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("metadata.name", pod.Name).String(), ResourceVersion: pod.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	start := time.Now()
	if err := client.CoreV1().Pods(ns).Delete(ctx, pod.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	var terminal *corev1.Pod
	for ev := range w.ResultChan() {
		if ev.Type == watch.Deleted {
			break
		}
		if p, ok := ev.Object.(*corev1.Pod); ok && (p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded) {
			terminal = p.DeepCopy()
		}
	}
	t.Logf("delete to removal: %v", time.Since(start).Round(time.Millisecond))
	if terminal == nil {
		t.Fatal("the pod was removed without a terminal status")
	}
	cs := terminal.Status.ContainerStatuses[0]
	if tt := cs.State.Terminated; tt == nil || tt.ExitCode != 143 || tt.Reason != "Error" || cs.Ready {
		t.Errorf("container status = %+v, want terminated 143 Error and not ready", cs)
	}
	if terminal.Status.Phase != corev1.PodFailed {
		t.Errorf("phase %s, want Failed", terminal.Status.Phase)
	}
	for _, c := range terminal.Status.Conditions {
		if c.Type == corev1.PodReady && (c.Status != corev1.ConditionFalse || c.Reason != "PodFailed") {
			t.Errorf("Ready = %s %s, want False PodFailed", c.Status, c.Reason)
		}
	}
	poll(ctx, t, "the Killing event", func() bool {
		evs, err := client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("involvedObject.name", pod.Name).String()})
		if err != nil {
			return false
		}
		for _, e := range evs.Items {
			if e.Reason == "Killing" && e.Message == "Stopping container web" && e.Source.Component == "kubelet" {
				return true
			}
		}
		return false
	})
	checkKubeletEvents(ctx, t, ns)
}
