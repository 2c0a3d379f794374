package fill

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestPlanReproducible: a seed plans the same cluster, another seed
// another; sizes sum to the pods asked for and the broken ones are
// spread over the namespaces.
func TestPlanReproducible(t *testing.T) {
	s := Spec{Seed: 7, Namespaces: 5, Deployments: 400, Broken: 12, Pods: 4000, Events: 20000, Big: 100, BigBroken: 10}
	a, err := NewPlan(s)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewPlan(s)
	if !reflect.DeepEqual(a, b) {
		t.Error("the same spec planned two clusters")
	}
	s.Seed++
	if c, _ := NewPlan(s); reflect.DeepEqual(a.Workloads, c.Workloads) {
		t.Error("another seed planned the same cluster")
	}
	pods, broken := 0, 0
	ns := map[string]bool{}
	for _, w := range a.Workloads {
		pods += w.Replicas
		if w.Replicas < 1 {
			t.Errorf("%s/%s has %d replicas", w.Namespace, w.Name, w.Replicas)
		}
		if w.Broken {
			broken++
			ns[w.Namespace] = true
		}
	}
	if pods != s.Pods || broken != s.Broken+1 || len(a.Workloads) != s.Deployments+2 {
		t.Errorf("%d pods, %d broken, %d deployments; want %d, %d, %d", pods, broken, len(a.Workloads), s.Pods, s.Broken+1, s.Deployments+2)
	}
	if len(ns) < 3 {
		t.Errorf("broken ones in %d namespaces only", len(ns))
	}
	if len(a.Nodes)*podsPerNode < s.Pods {
		t.Errorf("%d nodes cannot hold %d pods", len(a.Nodes), s.Pods)
	}
}

func TestSpecValidate(t *testing.T) {
	for _, s := range []Spec{
		{Namespaces: 0, Deployments: 1, Pods: 1},
		{Namespaces: 1, Deployments: 10, Broken: 6, Pods: 10},
		{Namespaces: 1, Deployments: 10, Pods: 5},
	} {
		if _, err := NewPlan(s); err == nil {
			t.Errorf("%+v: no error", s)
		}
	}
}

// TestTemplatesLoad: every template is a capture with one Deployment and
// its ReplicaSet, and the healthy one a node to copy.
func TestTemplatesLoad(t *testing.T) {
	tpl, err := LoadTemplates(os.DirFS(filepath.Join("..", "..", "testdata", "captures")), Templates())
	if err != nil {
		t.Fatal(err)
	}
	if tpl[Healthy].Node.Name == "" || len(tpl[Healthy].Pods) == 0 {
		t.Errorf("healthy template: node %q, %d pods", tpl[Healthy].Node.Name, len(tpl[Healthy].Pods))
	}
	if n := eventsOf(tpl[Healthy], 10); n <= 10 {
		t.Errorf("10 healthy pods have %d events, want several each", n)
	}
}
