package decode

import (
	"testing"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// TestCatalogue checks the invariants CI users rely on: every ID is unique,
// CamelCase, on a real link, with a summary, a next step and a terminal rule.
func TestCatalogue(t *testing.T) {
	links := map[chain.LinkID]bool{"": true}
	for _, l := range chain.AllLinks {
		links[l] = true
	}
	seen := map[chain.CauseID]bool{}
	for _, c := range Catalogue() {
		if seen[c.ID] {
			t.Errorf("cause %s is declared twice", c.ID)
		}
		seen[c.ID] = true
		if id := string(c.ID); id == "" || id[0] < 'A' || id[0] > 'Z' {
			t.Errorf("cause %q is not CamelCase", id)
		}
		if !links[c.Link] {
			t.Errorf("cause %s is on unknown link %q", c.ID, c.Link)
		}
		if c.Summary == "" || c.NextStep == "" {
			t.Errorf("cause %s lacks a summary or next step", c.ID)
		}
		switch c.Terminal.Mode {
		case Transient, AfterGrace, Immediate:
		case AfterRepeats:
			if c.Terminal.Repeats < 1 {
				t.Errorf("cause %s is terminal after %d repeats", c.ID, c.Terminal.Repeats)
			}
		default:
			t.Errorf("cause %s has terminal mode %q", c.ID, c.Terminal.Mode)
		}
		if got, ok := Lookup(c.ID); !ok || got.ID != c.ID {
			t.Errorf("Lookup(%s) = %v, %v", c.ID, got, ok)
		}
	}
	if len(seen) < 60 {
		t.Errorf("catalogue has %d causes; expected the full set", len(seen))
	}
}
