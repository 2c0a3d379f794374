package serve

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-chain/kubectl-chain/diagnose"
	"github.com/kubectl-chain/kubectl-chain/internal/capture"
	"github.com/kubectl-chain/kubectl-chain/internal/engine"
	"github.com/kubectl-chain/kubectl-chain/internal/golden"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

// TestRun: serve reads the scope, serves the verdict as metrics once it
// judged it, judges again when an object changes (the Deployment is
// paused), records the change as an Event, and ends with its context.
func TestRun(t *testing.T) {
	objs, at := fixture(t, "image-pulling.yaml")
	client := fake.NewClientset(objs...)
	notes := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Config{Listen: "127.0.0.1:0", Scopes: []string{"shop"}, Events: true, Resync: time.Second, Notes: notes,
			Request: engine.Request{Grace: diagnose.DefaultGrace, Now: func() time.Time { return at },
				NewClient: func() (kube.Client, error) { return client, nil }}})
	}()
	addr := eventually(t, "the address served", func() string {
		m := regexp.MustCompile(`on (127\.0\.0\.1:\d+); following namespaces shop\n`).FindStringSubmatch(notes.String())
		if m == nil {
			return ""
		}
		return m[1]
	})
	health := `kubectl_chain_workload_health{kind="Deployment",name="web",namespace="shop"} `
	eventually(t, "progressing", func() string { return find(metrics(t, addr), health+"2") })
	dep, err := client.AppsV1().Deployments("shop").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dep.Spec.Paused = true
	if _, err := client.AppsV1().Deployments("shop").Update(ctx, dep, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "broken once paused", func() string {
		return find(metrics(t, addr), `kubectl_chain_workload_broken_info{cause="DeploymentPaused",kind="Deployment",link="stored",name="web",namespace="shop"} 1`)
	})
	eventually(t, "the Event of the change", func() string {
		evs, err := client.CoreV1().Events("shop").List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs.Items {
			if e.Reason == "ChainBroken" && e.InvolvedObject.Name == "web" && strings.HasPrefix(e.Message, "kubectl chain: broken at stored: DeploymentPaused") && strings.HasSuffix(e.Message, "; was progressing") {
				return e.Message
			}
		}
		return ""
	})
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not end with its context")
	}
}

// eventually polls f until it says something, for up to 10 seconds.
func eventually(t *testing.T, what string, f func() string) string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if s := f(); s != "" {
			return s
		}
	}
	t.Fatalf("never saw %s", what)
	return ""
}

func metrics(t *testing.T, addr string) string {
	t.Helper()
	res, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// find is line when text holds it, else "".
func find(text, line string) string {
	if strings.Contains(text, line) {
		return line
	}
	return ""
}

// syncBuffer is a buffer written by serve and read by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// fixture reads a testdata snapshot into typed objects for a fake
// clientset, and the time it was taken at.
func fixture(t *testing.T, name string) ([]runtime.Object, time.Time) {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "snapshots", name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := capture.Load(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	s, err := b.Snapshot("", "")
	if err != nil {
		t.Fatal(err)
	}
	return golden.ListObjects(t, path), s.Now
}
