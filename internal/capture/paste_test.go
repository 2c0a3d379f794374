package capture

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

func pasteFile(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "real", "pastes", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestLoadPaste reads kubectl describe pod as -f reads a file: the pod and
// its events, walked from the pod (its ReplicaSet was not pasted, which
// a note says).
func TestLoadPaste(t *testing.T) {
	b, err := Load(strings.NewReader(pasteFile(t, "kubernetes-98157-describe-pod.txt")))
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Pods) != 1 || b.Target != (chain.Ref{Kind: chain.KindPod, Name: "jumpserver-reader-589945c95c-d2nzg"}) || !b.HasObjects() {
		t.Fatalf("pods %d, target %v", len(b.Pods), b.Target)
	}
	if !strings.Contains(strings.Join(b.Undecoded, "\n"), "paste kubectl describe rs jumpserver-reader-589945c95c too") {
		t.Errorf("notes %q", b.Undecoded)
	}
	s, err := b.Read("", chain.Ref{})
	if err != nil {
		t.Fatal(err)
	}
	if s.KindOf() != chain.KindPod || s.Now.IsZero() || len(s.Pods) != 1 {
		t.Errorf("snapshot of %s at %v with %d pods", s.KindOf(), s.Now, len(s.Pods))
	}
}

// TestLoadPasteMixed reads kubectl's human output and YAML in one input:
// each part by its own reader.
func TestLoadPasteMixed(t *testing.T) {
	in := `apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec:
  selector: {app: web}
---
` + pasteFile(t, "kuill-83-describe-pod.txt")
	b, err := Load(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Services) != 1 || len(b.Pods) != 1 || b.Pods[0].Name != "kuill-5b7bd6c875-lsbqc" {
		t.Errorf("services %d, pods %d", len(b.Services), len(b.Pods))
	}
}

// TestLoadPasteDeploymentAlone: a pasted Deployment none of whose pods
// are in the paste is walked as an object read alone, never as one whose
// pods are missing.
func TestLoadPasteDeploymentAlone(t *testing.T) {
	b, err := Load(strings.NewReader(pasteFile(t, "pulumi-kubernetes-497-describe-deploy.txt")))
	if err != nil {
		t.Fatal(err)
	}
	s, err := b.Read("", chain.Ref{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Deployment == nil || !s.Alone || s.Object == nil || s.Object.GetName() != "sbx-chartmuseum-chartmuseum" {
		t.Errorf("alone %v, object %v", s.Alone, s.Object)
	}
}

// TestLoadNothing: text that is no kubectl output and no YAML is said to
// be so; YAML and JSON keep their own errors.
func TestLoadNothing(t *testing.T) {
	for _, in := range []string{"hello there\nthis is a log line\n", "it failed again, any idea?"} {
		if _, err := Load(strings.NewReader(in)); !errors.Is(err, errNothing) {
			t.Errorf("Load(%q) = %v, want %v", in, err, errNothing)
		}
	}
	if _, err := Load(strings.NewReader("{not json")); err == nil || !strings.Contains(err.Error(), "not YAML or JSON") {
		t.Errorf("{not json: %v", err)
	}
}

func FuzzLoadPaste(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "real", "pastes", "*.txt"))
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(string(data))
		}
	}
	f.Fuzz(func(t *testing.T, in string) {
		b, err := Load(strings.NewReader(in))
		if err != nil {
			return
		}
		for _, w := range b.Workloads("") {
			b.Read(w.Namespace, w.Ref) // must not panic
		}
		if b.Target.Name != "" {
			b.Read("", b.Target)
		}
	})
}

// TestLoadPasteGeneric: kubectl's generic describe of a custom resource
// is read as the same object in YAML is (an HTTPRoute decoded where the
// walk looks for routes, with the paste's UID); beside other described
// text it is not read alone, alone it is.
func TestLoadPasteGeneric(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "paste", "testdata", "generic", "httproute-parent-missing.txt"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load(strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Routes) != 1 || b.Routes[0].UID != "paste:HTTPRoute/sc-httproute-parent-missing/web" || len(b.Routes[0].ParentRefs) != 1 || b.Lone != nil {
		t.Fatalf("routes %+v, alone %v", b.Routes, b.Lone != nil)
	}
	start := strings.Index(string(data), "Name:")
	end := strings.Index(string(data), "\n\n\n")
	alone, err := Load(strings.NewReader(string(data)[start:end]))
	if err != nil {
		t.Fatal(err)
	}
	if len(alone.Routes) != 1 || alone.Lone == nil || alone.Lone.GetKind() != "HTTPRoute" {
		t.Errorf("the route alone: routes %d, alone %v", len(alone.Routes), alone.Lone != nil)
	}
}

// TestLoadPasteLoneClaim: a claim not bound beside a pod that is ready
// and does not use it (local-path-provisioner#35: the provisioner's own
// pod) is what the paste asks about: the claim is walked, a note says
// so. A pod that is not ready keeps the walk.
func TestLoadPasteLoneClaim(t *testing.T) {
	claim := pasteFile(t, "local-path-provisioner-35-get-pvc.txt")
	b, err := Load(strings.NewReader(claim + "\n" + pasteFile(t, "local-path-provisioner-35-get-pod.txt")))
	if err != nil {
		t.Fatal(err)
	}
	if want := (chain.Ref{Kind: "PersistentVolumeClaim", Name: "data-redis-core-redis-ha-server-0"}); b.Target != want {
		t.Fatalf("target %v, want %v", b.Target, want)
	}
	if !strings.Contains(strings.Join(b.Undecoded, "\n"), "pvc/data-redis-core-redis-ha-server-0 is walked") {
		t.Errorf("notes %q", b.Undecoded)
	}
	s, err := b.Read("", chain.Ref{})
	if err != nil {
		t.Fatal(err)
	}
	if s.API == nil || !s.API.Namespaced {
		t.Errorf("a pasted claim's API %+v: a claim is namespaced", s.API)
	}
	b, err = Load(strings.NewReader(claim + "\n" + pasteFile(t, "k3s-85-get-pods.txt")))
	if err != nil {
		t.Fatal(err)
	}
	if b.Target.Kind != chain.KindPod {
		t.Errorf("beside a pod that is not ready, target %v, want the pod", b.Target)
	}
}
