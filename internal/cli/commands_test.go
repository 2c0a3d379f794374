package cli

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

func TestVersionCommand(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "default")
	r := runWith(t, nil, "version")
	if r.code != ExitHealthy || !strings.HasPrefix(r.stdout, "kubectl-chain dev (commit unknown, go") {
		t.Errorf("code %d, stdout %q", r.code, r.stdout)
	}
}

// TestCompletion asks for completions the way the shell scripts (and
// kubectl's kubectl_complete-chain hook) do.
func TestCompletion(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "shop")
	c := fake.NewClientset(
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}},
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "worker"}},
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "api"}},
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "web-other"}},
		&appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-7d4b9c6f5"}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-7d4b9c6f5-x2x7q"}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "api-5c6d7f8b9-k2m9x"}},
		&appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "db"}},
		&appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "node-agent"}},
		&batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "migrate"}},
		&batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "nightly"}},
		&batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "nightly-other"}},
	)
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "w"}, []string{"web", "worker"}},
		{[]string{"__complete", "deploy/w"}, []string{"deploy/web", "deploy/worker"}},
		{[]string{"__complete", "deployment", ""}, []string{"api", "web", "worker"}},
		{[]string{"__complete", "deploy", "web", ""}, []string{}},
		{[]string{"__complete", "web", ""}, []string{}},
		{[]string{"__complete", "pods/w"}, []string{"pods/web-7d4b9c6f5-x2x7q"}},
		{[]string{"__complete", "pod", ""}, []string{"api-5c6d7f8b9-k2m9x", "web-7d4b9c6f5-x2x7q"}},
		{[]string{"__complete", "rs/"}, []string{"rs/web-7d4b9c6f5"}},
		{[]string{"__complete", "svc/w"}, []string{}},
		{[]string{"__complete", "sts/"}, []string{"sts/db"}},
		{[]string{"__complete", "daemonsets.apps/n"}, []string{"daemonsets.apps/node-agent"}},
		{[]string{"__complete", "job", ""}, []string{"migrate"}},
		{[]string{"__complete", "cj/n"}, []string{"cj/nightly"}},
		{[]string{"__complete", "pod/web-7d4b9c6f5-x2x7q", ""}, []string{}},
	}
	for _, tt := range tests {
		r := runWith(t, c, tt.args...)
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		got := append([]string{}, lines[:len(lines)-1]...) // the last line is cobra's directive
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%v (-want +got):\n%s", tt.args, diff)
		}
	}
}

func TestLabWithoutLabBinary(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "default")
	t.Setenv("PATH", t.TempDir())
	r := runWith(t, nil, "lab", "up")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "kubectl-chain-lab is not installed") {
		t.Errorf("code %d, stderr %q", r.code, r.stderr)
	}
}
