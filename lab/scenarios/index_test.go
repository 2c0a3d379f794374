package scenarios

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/kubectl-chain/kubectl-chain/internal/golden"
)

// TestIndex keeps testdata/scenarios.json, the list of the scenarios and
// the verdicts they must get, in step with All(). The plugin's module
// walks each scenario's capture against it (internal/fixtures) without
// importing the lab; UPDATE_GOLDEN=1 rewrites it.
func TestIndex(t *testing.T) {
	type entry struct {
		Name   string `json:"name"`
		Kind   string `json:"kind"`
		Health string `json:"health"`
		Link   string `json:"link,omitempty"`
		Cause  string `json:"cause,omitempty"`
	}
	var idx []entry
	for _, sc := range All() {
		idx = append(idx, entry{Name: sc.Name, Kind: string(sc.KindOf()), Health: string(sc.Health), Link: string(sc.Link), Cause: string(sc.Cause)})
	}
	b, err := json.MarshalIndent(idx, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("..", "..", "testdata"), "scenarios.json", string(b)+"\n")
}
