package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/lab/scenarios"
)

// The --wait contract on a real control plane: each test creates its
// Deployment, starts `kubectl-chain deploy/web --wait` at once, and checks
// the exit code, the verdict and how the wait ended. They run in parallel
// with each other, after the scenario tests.

// missingImage is an image the lab's registry does not have.
const missingImage = "registry.lab.internal/web:missing"

// waitResult is how one `kubectl-chain --wait -o json` ended.
type waitResult struct {
	verdict verdict
	code    int
	took    time.Duration
	stdout  string
	stderr  string
}

func (r waitResult) String() string {
	return fmt.Sprintf("exit %d after %v\nstdout:\n%s\nstderr:\n%s", r.code, r.took.Round(100*time.Millisecond), r.stdout, r.stderr)
}

// chainWait runs kubectl-chain deploy/NAME --wait --timeout TIMEOUT -o json.
func chainWait(ctx context.Context, t *testing.T, ns, name string, timeout time.Duration) waitResult {
	t.Helper()
	return chainWaitFor(ctx, t, ns, "deploy/"+name, timeout)
}

// chainWaitFor runs kubectl-chain TARGET --wait --timeout TIMEOUT -o json.
func chainWaitFor(ctx context.Context, t *testing.T, ns, target string, timeout time.Duration) waitResult {
	t.Helper()
	r := startWait(ctx, t, kubeconfig, ns, target, timeout).result(t)
	if r.stdout == "" {
		t.Fatalf("decoding the report: no report on stdout\n%s", r)
	}
	t.Logf("--wait: %s %s %s, exit %d after %v", r.verdict.Health, r.verdict.Link, r.verdict.Cause, r.code, r.took.Round(100*time.Millisecond))
	return r
}

// runningWait is a kubectl-chain --wait started in the background.
type runningWait struct {
	cmd            *exec.Cmd
	start          time.Time
	stdout, stderr bytes.Buffer
}

// startWait starts kubectl-chain TARGET --wait -o json on the lab of
// kubeconfig kc.
func startWait(ctx context.Context, t *testing.T, kc, ns, target string, timeout time.Duration) *runningWait {
	t.Helper()
	w := &runningWait{start: time.Now()}
	w.cmd = exec.CommandContext(ctx, chainBin, target, "-n", ns, "--wait", "--timeout", timeout.String(),
		"-o", "json", "--kubeconfig", kc)
	w.cmd.Stdout, w.cmd.Stderr = &w.stdout, &w.stderr
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return w
}

// result waits for the wait to end and decodes its report, if any.
func (w *runningWait) result(t *testing.T) waitResult {
	t.Helper()
	err := w.cmd.Wait()
	r := waitResult{took: time.Since(w.start), stdout: w.stdout.String(), stderr: w.stderr.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	if r.stdout != "" {
		var report struct {
			Verdict verdict `json:"verdict"`
		}
		if err := json.Unmarshal(w.stdout.Bytes(), &report); err != nil {
			t.Fatalf("decoding the report: %v\n%s", err, r)
		}
		r.verdict = report.Verdict
	}
	return r
}

// expectWait checks the verdict and exit code, and that the wait ended on
// its own (not at the timeout) unless timedOut is wanted.
func expectWait(t *testing.T, r waitResult, want verdict, code int, timedOut bool) {
	t.Helper()
	if r.verdict != want || r.code != code {
		t.Errorf("got %+v exit %d, want %+v exit %d\n%s", r.verdict, r.code, want, code, r)
	}
	if got := strings.Contains(r.stderr, "timed out after"); got != timedOut {
		t.Errorf("timed out = %v, want %v\n%s", got, timedOut, r)
	}
}

// TestWaitKinds: --wait on each other kind, started at once: a Job exits 0
// as soon as it is Complete and 1 as soon as it is Failed, with the reason
// (where kubectl wait --for=condition=complete would wait for its
// timeout); a StatefulSet exits 0 once its ordinals are ready; a DaemonSet
// that no node should run exits 1 once the grace has passed; a suspended
// CronJob exits 1 at once. (A DaemonSet whose containers crash after they
// turned ready is, like a Deployment's, complete for a moment: past the
// horizon of a rollout wait, see docs/ci.md "Waiting for a rollout".) A
// Service or an Ingress is followed the same way.
func TestWaitKinds(t *testing.T) {
	shared(t)
	for _, tt := range []struct {
		scenario string
		want     verdict
		code     int
	}{
		{"job-complete", verdict{Health: chain.Healthy}, 0},
		{"job-backoff-limit", verdict{Health: chain.Broken, Link: chain.LinkCompletion, Cause: "BackoffLimitExceeded"}, 1},
		{"sts-healthy", verdict{Health: chain.Healthy}, 0},
		{"ds-no-eligible-nodes", verdict{Health: chain.Broken, Link: chain.LinkNodes, Cause: "NoEligibleNodes"}, 1},
		{"cj-suspended", verdict{Health: chain.Broken, Link: chain.LinkStored, Cause: "CronJobSuspended"}, 1},
		// Traffic targets: svc/web fails as soon as the Deployment it
		// selects is certain to fail; ing/web once the grace has passed
		// with no controller acting.
		{"svc-no-ready-endpoint", verdict{Health: chain.Broken, Link: chain.LinkWorkloads, Cause: "ImageNotFound"}, 1},
		{"ing-class-no-controller", verdict{Health: chain.Broken, Link: chain.LinkClass, Cause: "IngressClassNoController"}, 1},
		{"httproute-class-no-controller", verdict{Health: chain.Broken, Link: chain.LinkClass, Cause: "GatewayClassNoController"}, 1},
	} {
		t.Run(tt.scenario, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			sc, err := scenarios.Get(tt.scenario)
			if err != nil {
				t.Fatal(err)
			}
			ns := "wait-" + tt.scenario
			t.Cleanup(func() { _, _ = lab("delete", sc.Name, "-n", ns) })
			if err := scenarios.Apply(ctx, client, sc, ns); err != nil {
				t.Fatal(err)
			}
			r := chainWaitFor(ctx, t, ns, sc.Target(), 90*time.Second)
			expectWait(t, r, tt.want, tt.code, false)
		})
	}
}

func TestWaitHealthyRollout(t *testing.T) {
	shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ns := createNamespace(ctx, t, "wait-healthy")
	createDeployment(ctx, t, ns, healthyDeployment("web", 3))
	r := chainWait(ctx, t, ns, "web", time.Minute)
	expectWait(t, r, verdict{Health: chain.Healthy}, 0, false)
}

func TestWaitBadImageFailsFast(t *testing.T) {
	shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	ns := createNamespace(ctx, t, "wait-bad-image")
	d := healthyDeployment("web", 2)
	d.Spec.Template.Spec.Containers[0].Image = missingImage
	createDeployment(ctx, t, ns, d)
	r := chainWait(ctx, t, ns, "web", 3*time.Minute)
	expectWait(t, r, verdict{Health: chain.Broken, Link: chain.LinkContainers, Cause: "ImageNotFound"}, 1, false)
}

// TestWaitBrokenRollingUpdate updates a serving Deployment to an image that
// does not exist: the old ReplicaSet keeps it Available (kubectl wait
// --for=condition=Available passes), and --wait fails with the new
// ReplicaSet's cause.
func TestWaitBrokenRollingUpdate(t *testing.T) {
	shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	ns := createNamespace(ctx, t, "wait-rolling")
	createDeployment(ctx, t, ns, healthyDeployment("web", 3))
	waitAvailable(ctx, t, ns, "web")
	patch := `{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"` + missingImage + `"}]}}}}`
	if _, err := client.AppsV1().Deployments(ns).Patch(ctx, "web", types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	r := chainWait(ctx, t, ns, "web", 3*time.Minute)
	expectWait(t, r, verdict{Health: chain.Broken, Link: chain.LinkContainers, Cause: "ImageNotFound"}, 1, false)
	d, err := client.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !available(d) {
		t.Errorf("the Deployment is not Available: the old ReplicaSet should still serve it\n%+v", d.Status)
	}
}

func TestWaitPausedFailsAtOnce(t *testing.T) {
	shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ns := createNamespace(ctx, t, "wait-paused")
	d := healthyDeployment("web", 2)
	d.Spec.Paused = true
	createDeployment(ctx, t, ns, d)
	r := chainWait(ctx, t, ns, "web", time.Minute)
	expectWait(t, r, verdict{Health: chain.Broken, Link: chain.LinkStored, Cause: "DeploymentPaused"}, 1, false)
}

// TestWaitSlowReadiness is a healthy rollout whose pods turn ready only
// after their readiness probe's initial delay: no false failure, and no
// healthy verdict before the pods are ready.
func TestWaitSlowReadiness(t *testing.T) {
	shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ns := createNamespace(ctx, t, "wait-slow")
	const delay = 8
	createDeployment(ctx, t, ns, slowReadiness(healthyDeployment("web", 3), delay))
	r := chainWait(ctx, t, ns, "web", time.Minute)
	expectWait(t, r, verdict{Health: chain.Healthy}, 0, false)
	if r.took < delay*time.Second {
		t.Errorf("healthy after %v, before the readiness probe's %d s initial delay", r.took, delay)
	}
}

// TestWaitTimeout waits less than the pods need to turn ready: the wait
// ends at the timeout with the progressing code and says so.
func TestWaitTimeout(t *testing.T) {
	shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ns := createNamespace(ctx, t, "wait-timeout")
	createDeployment(ctx, t, ns, slowReadiness(healthyDeployment("web", 2), 600))
	r := chainWait(ctx, t, ns, "web", 8*time.Second)
	if r.verdict.Health != chain.Progressing || r.code != 2 {
		t.Errorf("got %+v exit %d, want progressing exit 2\n%s", r.verdict, r.code, r)
	}
	if !strings.Contains(r.stderr, "timed out after 8s") {
		t.Errorf("stderr does not say the wait timed out\n%s", r)
	}
}

// slowReadiness gives each container a readiness probe that first runs
// after delay seconds (and then passes).
func slowReadiness(d *appsv1.Deployment, delay int32) *appsv1.Deployment {
	c := &d.Spec.Template.Spec.Containers[0]
	c.ReadinessProbe = &corev1.Probe{
		ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt32(8080)}},
		InitialDelaySeconds: delay,
		PeriodSeconds:       2,
	}
	return d
}

func createDeployment(ctx context.Context, t testing.TB, ns string, d *appsv1.Deployment) {
	t.Helper()
	if _, err := client.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func available(d *appsv1.Deployment) bool {
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentAvailable {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
