package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kubectl-chain/kubectl-chain/chain"
	"sigs.k8s.io/yaml"
)

func TestJSONGolden(t *testing.T) {
	for _, tc := range reports {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := JSON(&b, tc.report()); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tc.name+".json", b.String())
		})
	}
}

func TestYAMLGolden(t *testing.T) {
	for _, tc := range reports {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := YAML(&b, tc.report()); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tc.name+".yaml", b.String())
		})
	}
}

// TestStructuredRoundTrip: both formats read back to the same report, so
// scripts can rely on either.
func TestStructuredRoundTrip(t *testing.T) {
	for _, tc := range reports {
		want := tc.report()
		var j, y bytes.Buffer
		if err := JSON(&j, want); err != nil {
			t.Fatal(err)
		}
		if err := YAML(&y, want); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(j.String(), "}\n") {
			t.Errorf("%s: JSON does not end with a newline", tc.name)
		}
		var fromJSON, fromYAML chain.Report
		if err := json.Unmarshal(j.Bytes(), &fromJSON); err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(y.Bytes(), &fromYAML); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(*want, fromJSON); diff != "" {
			t.Errorf("%s: JSON round trip (-want +got):\n%s", tc.name, diff)
		}
		if diff := cmp.Diff(*want, fromYAML); diff != "" {
			t.Errorf("%s: YAML round trip (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestJSONError(t *testing.T) {
	if err := JSON(&bytes.Buffer{}, make(chan int)); err == nil {
		t.Error("JSON(chan) returned no error")
	}
}
