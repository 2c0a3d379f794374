package health

import (
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/argoproj/argo-cd/v3/resource_customizations"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// decodeFixture decodes a fixture's object as Argo CD's own test does
// (sigs.k8s.io/yaml into map[string]any: numbers arrive as float64).
func decodeFixture(t testing.TB, f Fixture) *unstructured.Unstructured {
	t.Helper()
	obj := map[string]any{}
	if err := yaml.Unmarshal(f.Object, &obj); err != nil {
		t.Fatalf("%s: %v", f.InputPath, err)
	}
	return &unstructured.Unstructured{Object: obj}
}

// TestFixtures runs every case of every health_test.yaml in Argo CD's
// catalogue through Builtin().Check: each must give exactly the status and
// message Argo CD's own test (util/lua/health_test.go TestLuaHealthScript)
// expects. This is what proves the VM, the sandbox, the conversions and the
// lookup faithful.
func TestFixtures(t *testing.T) {
	fixtures, err := Fixtures()
	if err != nil {
		t.Fatal(err)
	}
	// Argo CD v3.5.8 ships 238 checks, each with a health_test.yaml.
	if len(fixtures) < 900 {
		t.Fatalf("only %d fixtures read; the catalogue has over 900 cases", len(fixtures))
	}
	dirs := map[string]bool{}
	byStatus := map[Status]int{}
	passed := 0
	cat := Builtin()
	for _, f := range fixtures {
		dirs[f.Dir] = true
		byStatus[f.Status]++
		t.Run(f.InputPath, func(t *testing.T) {
			res, ok, err := cat.Check(decodeFixture(t, f))
			if !ok {
				t.Fatalf("no check found for %s/%s", f.Group, f.Kind)
			}
			if err != nil {
				t.Fatalf("check failed: %v", err)
			}
			if res.Status != f.Status || res.Message != f.Message {
				t.Fatalf("got %s %q, want %s %q (script %s)", res.Status, res.Message, f.Status, f.Message, res.Script)
			}
			if !strings.HasPrefix(res.Script, "argo-cd "+Version()+" ") || !strings.HasSuffix(res.Script, "/health.lua") {
				t.Errorf("Script = %q, want argo-cd %s <dir>/health.lua", res.Script, Version())
			}
			passed++
		})
	}
	if len(dirs) != 238 {
		t.Errorf("%d folders with a health_test.yaml, want 238 (argo-cd %s)", len(dirs), pinnedVersion)
	}
	statuses := make([]string, 0, len(byStatus))
	for st, n := range byStatus {
		statuses = append(statuses, string(st)+" "+strconv.Itoa(n))
	}
	sort.Strings(statuses)
	t.Logf("argo-cd %s: %d/%d fixture cases pass, in %d folders; expected statuses: %s",
		Version(), passed, len(fixtures), len(dirs), strings.Join(statuses, ", "))
}

// TestConcurrentChecks runs the fixtures from several goroutines on a fresh
// catalogue, so that first-use indexing and compiling race (run with -race).
func TestConcurrentChecks(t *testing.T) {
	fixtures, err := Fixtures()
	if err != nil {
		t.Fatal(err)
	}
	objs := make([]*unstructured.Unstructured, len(fixtures))
	for i, f := range fixtures {
		objs[i] = decodeFixture(t, f) // shared: Check only reads the object
	}
	cat := &Catalogue{layers: []layer{newFSLayer(resource_customizations.Embedded, func(p string) string { return p })}}
	var wg sync.WaitGroup
	errs := make(chan string, 4*len(fixtures))
	for w := range 4 {
		wg.Go(func() {
			for i := w; i < len(fixtures); i += 2 { // overlapping halves
				f := fixtures[i]
				res, ok, err := cat.Check(objs[i])
				if !ok || err != nil || res.Status != f.Status || res.Message != f.Message {
					errs <- f.InputPath
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for p := range errs {
		t.Errorf("%s: wrong verdict under concurrency", p)
	}
}
