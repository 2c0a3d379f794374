package health

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/argoproj/argo-cd/v3/resource_customizations"
	"sigs.k8s.io/yaml"
)

// Fixture is one case of a built-in check's health_test.yaml: a real object
// (Argo CD asks contributors for `kubectl get -o yaml` output with its full
// status) and the verdict Argo CD's own test expects. Other packages' tests
// use them as a corpus of custom resources with known health.
type Fixture struct {
	// Dir is the catalogue folder whose health_test.yaml lists the case,
	// e.g. "cert-manager.io/Certificate" or "_.crossplane.io/_".
	Dir string
	// Group and Kind are the object's own, from its apiVersion and kind:
	// what a lookup uses (a wildcard folder's objects have real groups).
	Group, Kind string
	// InputPath is the object's path in the catalogue, e.g.
	// "cert-manager.io/Certificate/testdata/healthy_issued.yaml".
	InputPath string
	// Object is the object as YAML, unchanged.
	Object []byte
	// Status and Message are the expected verdict.
	Status  Status
	Message string
}

// healthTest is the layout of health_test.yaml.
type healthTest struct {
	Tests []struct {
		InputPath    string `json:"inputPath"`
		HealthStatus struct {
			Status  string `json:"status"`
			Message string `json:"message"`
		} `json:"healthStatus"`
	} `json:"tests"`
}

// Fixtures lists every case of every health_test.yaml in the built-in
// catalogue, in path order.
func Fixtures() ([]Fixture, error) {
	return fixturesIn(resource_customizations.Embedded)
}

func fixturesIn(fsys fs.FS) ([]Fixture, error) {
	var out []Fixture
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || path.Base(p) != "health_test.yaml" {
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		var ht healthTest
		if err := yaml.Unmarshal(data, &ht); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		dir := path.Dir(p)
		for _, tc := range ht.Tests {
			in := path.Join(dir, tc.InputPath)
			obj, err := fs.ReadFile(fsys, in)
			if err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			var head struct {
				APIVersion string `json:"apiVersion"`
				Kind       string `json:"kind"`
			}
			if err := yaml.Unmarshal(obj, &head); err != nil {
				return fmt.Errorf("%s: %w", in, err)
			}
			group, _, found := strings.Cut(head.APIVersion, "/")
			if !found {
				group = "" // "v1": the core group
			}
			out = append(out, Fixture{
				Dir: dir, Group: group, Kind: head.Kind, InputPath: in, Object: obj,
				Status: Status(tc.HealthStatus.Status), Message: tc.HealthStatus.Message,
			})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading argo-cd's health fixtures: %w", err)
	}
	return out, nil
}
