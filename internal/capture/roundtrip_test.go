package capture_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/diagnose"
	"github.com/kubectl-chain/kubectl-chain/internal/capture"
	"github.com/kubectl-chain/kubectl-chain/internal/golden"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

// TestRoundTrip: a cluster's state (every snapshot fixture, served by a
// fake clientset) read live, written by Encode and read back by Load walks
// to the same report, at the capture's time: the writer keeps every object
// the walk uses, and the reader rebuilds the snapshot the live reader built.
func TestRoundTrip(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "snapshots", "*.yaml"))
	if err != nil || len(files) < 20 {
		t.Fatalf("fixtures: %d, %v", len(files), err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			objs, at := fixture(t, file)
			var dep metav1.Object
			for _, o := range objs {
				if m, ok := o.(metav1.Object); ok && o.GetObjectKind().GroupVersionKind().Kind == "Deployment" {
					dep = m
				}
			}
			if dep == nil {
				t.Fatal("no Deployment in the fixture")
			}
			// Something the evidence names beyond the snapshot: a quota
			// of the namespace travels with the capture.
			objs = append(objs, &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: dep.GetNamespace(), Name: "compute"}})
			ctx := context.Background()
			reader := &kube.Reader{Client: fake.NewClientset(objs...), Now: func() time.Time { return at }}
			ref := chain.Ref{Kind: chain.KindDeployment, Name: dep.GetName()}
			snap, err := reader.Read(ctx, dep.GetNamespace(), ref)
			if err != nil {
				t.Fatal(err)
			}
			data, err := capture.Encode(snap, reader.Related(ctx, snap), false)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), "kind: ResourceQuota") {
				t.Errorf("the capture lacks the namespace's quota:\n%s", data)
			}
			b, err := capture.Load(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("reading the capture back: %v\n%s", err, data)
			}
			back, err := b.Read(dep.GetNamespace(), ref)
			if err != nil {
				t.Fatal(err)
			}
			if !back.Now.Equal(at) {
				t.Errorf("read back at %s, captured at %s", back.Now, at)
			}
			opts := diagnose.Options{Grace: diagnose.DefaultGrace}
			live, offline := diagnose.Walk(snap, opts), diagnose.Walk(back, opts)
			live.Requests = 0 // offline costs nothing
			if diff := cmp.Diff(live, offline); diff != "" {
				t.Errorf("live and read back differ (-live +read back):\n%s", diff)
			}
		})
	}
}

// fixture reads a snapshot fixture into typed objects for a fake
// clientset, and the time it was taken at.
func fixture(t *testing.T, file string) ([]runtime.Object, time.Time) {
	t.Helper()
	data, err := os.ReadFile(file)
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
	return golden.ListObjects(t, file), s.Now
}
