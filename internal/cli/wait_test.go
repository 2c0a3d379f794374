package cli

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

func TestWaitEndsAtOnce(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "shop")
	tests := []struct {
		fixture string
		code    int
	}{
		{"healthy.yaml", ExitHealthy},
		{"image-not-found.yaml", ExitBroken}, // terminal: the pull failed 2 times already
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			start := time.Now()
			r := runFixture(t, tt.fixture, nil, "deploy/web", "--wait", "--timeout", "20s", "-o", "json")
			if r.code != tt.code {
				t.Errorf("code %d, want %d; stderr %q", r.code, tt.code, r.stderr)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %s: --wait must end as soon as the verdict is final", d)
			}
		})
	}
}

func TestWaitTimeout(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "shop")
	r := runFixture(t, "image-pulling.yaml", nil, "deploy/web", "--wait", "--timeout", "1500ms")
	if r.code != ExitProgressing {
		t.Errorf("code %d, want %d", r.code, ExitProgressing)
	}
	if !strings.Contains(r.stderr, "timed out after 1.5s waiting for the rollout") {
		t.Errorf("stderr %q", r.stderr)
	}
	// Not a terminal: one plain progress line, then the report.
	if !strings.HasPrefix(r.stdout, "[0s] shop/web progressing at containers:") || strings.Contains(r.stdout, "\x1b") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
}

// TestWaitFollowsChanges: a change made while waiting (the Deployment is
// paused) reaches the wait through the watch and ends it with its verdict.
func TestWaitFollowsChanges(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "shop")
	c := fakeClient(t, "image-pulling.yaml")
	lists := 0
	c.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		lists++
		return false, nil, nil
	})
	go pauseAfter(t, c, 300*time.Millisecond)
	r := runFixture(t, "image-pulling.yaml", c, "deploy/web", "--wait", "--timeout", "20s", "-o", "json")
	// The watches start where the first read left off: they do not replay
	// the objects it read, which would cost a second read for nothing.
	if lists != 2 {
		t.Errorf("pods listed %d times, want 2: the first read and one after the change", lists)
	}
	var rep chain.Report
	decodeJSON(t, r.stdout, &rep)
	if r.code != ExitBroken || rep.Verdict.Cause != "DeploymentPaused" {
		t.Errorf("code %d, cause %s; want %d, DeploymentPaused", r.code, rep.Verdict.Cause, ExitBroken)
	}
	if !strings.Contains(r.stderr, "progressing at containers") {
		t.Errorf("progress lines go to stderr with -o json; stderr %q", r.stderr)
	}
}

// TestWaitWithoutWatch: with a get/list-only Role every watch is forbidden;
// the wait says so once and re-reads on a timer instead, so it still sees
// the change.
func TestWaitWithoutWatch(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "shop")
	c := fakeClient(t, "image-pulling.yaml")
	c.PrependWatchReactor("*", func(a k8stesting.Action) (bool, watch.Interface, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: a.GetResource().Resource}, "", errString("RBAC: no watch"))
	})
	go pauseAfter(t, c, 300*time.Millisecond)
	r := runFixture(t, "image-pulling.yaml", c, "deploy/web", "--wait", "--timeout", "20s", "-o", "json")
	if r.code != ExitBroken {
		t.Errorf("code %d, want %d; stderr %q", r.code, ExitBroken, r.stderr)
	}
	if !strings.Contains(r.stderr, "cannot watch") || !strings.Contains(r.stderr, "kubectl auth can-i watch") || !strings.Contains(r.stderr, "re-reading every 2s instead") {
		t.Errorf("stderr %q", r.stderr)
	}
}

// TestWaitSurvivesAFailedRead: one failed re-read (an API server restarting)
// is reported and retried, not fatal.
func TestWaitSurvivesAFailedRead(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "shop")
	c := fakeClient(t, "image-pulling.yaml")
	gets := 0
	c.PrependReactor("get", "deployments", func(k8stesting.Action) (bool, runtime.Object, error) {
		// 1: the first read; 2: pauseAfter's; 3: the re-read the change
		// triggers, which fails; 4: the retry.
		gets++
		if gets == 3 {
			return true, nil, errors.New("http2: server sent GOAWAY and closed the connection")
		}
		return false, nil, nil
	})
	go pauseAfter(t, c, 300*time.Millisecond)
	r := runFixture(t, "image-pulling.yaml", c, "deploy/web", "--wait", "--timeout", "20s", "-o", "json")
	if r.code != ExitBroken || !strings.Contains(r.stderr, "re-reading failed, retrying") {
		t.Errorf("code %d, stderr %q; want %d after a retried read", r.code, r.stderr, ExitBroken)
	}
}

func pauseAfter(t *testing.T, c *fake.Clientset, d time.Duration) {
	// The wait's first read is done when it starts watching (or tries
	// to): a pause written before it would be the first verdict, on a
	// machine busy enough to take longer than d to get there.
	for start := time.Now(); !watched(c) && time.Since(start) < 10*time.Second; {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(d)
	ctx := context.Background()
	dep, err := c.AppsV1().Deployments("shop").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Error(err)
		return
	}
	dep.Spec.Paused = true
	if _, err := c.AppsV1().Deployments("shop").Update(ctx, dep, metav1.UpdateOptions{}); err != nil {
		t.Error(err)
	}
}

// watched says the fake client has been asked for a watch.
func watched(c *fake.Clientset) bool {
	for _, a := range c.Actions() {
		if a.GetVerb() == "watch" {
			return true
		}
	}
	return false
}
