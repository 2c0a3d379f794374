package capture

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadShapes reads the shapes real captures come in: a v1 List as
// kubectl get -o yaml prints it, several documents, JSON, and both event APIs.
func TestLoadShapes(t *testing.T) {
	in := `apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: shop, uid: d1}
  spec:
    selector: {matchLabels: {app: web}}
- apiVersion: v1
  kind: Service
  metadata: {name: web, namespace: shop}
---
apiVersion: v1
kind: Pod
metadata: {name: web-1, namespace: shop, labels: {app: web}}
---
{"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "e1", "namespace": "shop"},
 "regarding": {"kind": "Pod", "name": "web-1"}, "reason": "FailedScheduling", "note": "0/3 nodes are available: 3 Insufficient cpu."}
---
apiVersion: v1
kind: Event
metadata: {name: e2, namespace: shop}
involvedObject: {kind: Pod, name: other-1}
reason: Pulling
message: Pulling image "x"
`
	b, err := Load(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Deployments) != 1 || len(b.Pods) != 1 || len(b.Events) != 2 || len(b.Services) != 1 || len(b.Skipped) != 0 {
		t.Fatalf("bundle: %d deployments, %d pods, %d events, skipped %v", len(b.Deployments), len(b.Pods), len(b.Events), b.Skipped)
	}
	s, err := b.Snapshot("", "")
	if err != nil {
		t.Fatal(err)
	}
	// Only the event about a pod of this Deployment concerns it.
	if len(s.Pods) != 1 || len(s.Events) != 1 || s.Events[0].Reason != "FailedScheduling" {
		t.Errorf("snapshot: %d pods, events %+v", len(s.Pods), s.Events)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "empty input"},
		{"   \n---\n", "empty input"},
		{"{not json", "not YAML or JSON"},
		{"just: a map\n", "no kind"},
		{"apiVersion: v1\nkind: List\nitems:\n- 42\n", "item 0: not a Kubernetes object"},
	}
	for _, tt := range tests {
		_, err := Load(strings.NewReader(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Load(%q) = %v, want an error containing %q", tt.in, err, tt.want)
		}
	}
}

func TestSnapshotPicks(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "testdata", "snapshots", "healthy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := Load(f)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Snapshot("shop", "api"); err == nil || !strings.Contains(err.Error(), `no Deployment "api" in the input (it has shop/web)`) {
		t.Errorf("err = %v", err)
	}
	s, err := b.Snapshot("shop", "web")
	if err != nil || s.Now.IsZero() || len(s.ReplicaSets) == 0 {
		t.Errorf("snapshot %v, err %v", s, err)
	}
}

func FuzzLoad(f *testing.F) {
	f.Add("apiVersion: v1\nkind: List\nitems: []\n")
	f.Add("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {selector: {matchLabels: {a: b}}}\n")
	f.Add("{\"kind\": \"Pod\", \"apiVersion\": \"v1\"}")
	f.Fuzz(func(t *testing.T, in string) {
		b, err := Load(strings.NewReader(in))
		if err != nil {
			return
		}
		for _, d := range b.Deployments {
			b.Snapshot(d.Namespace, d.Name) // must not panic
		}
	})
}
