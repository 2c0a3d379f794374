package diagnose

import (
	"fmt"
	"sort"
	"time"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// collector merges the findings of many objects: the same cause with the
// same specific summary on 3 pods is one finding "3/3 pods", with each
// distinct piece of evidence kept once.
type collector struct {
	byKey map[string]*chain.Finding
	order []string
}

// sighting is one object's decoded cause with what it was decoded from.
type sighting struct {
	d        Decoded
	object   string
	evidence []chain.Evidence
	since    time.Time
	repeats  int32
}

func (c *collector) add(s sighting) {
	if c.byKey == nil {
		c.byKey = map[string]*chain.Finding{}
	}
	key := string(s.d.Cause) + "\x00" + s.d.Summary
	f, ok := c.byKey[key]
	if !ok {
		f = newFinding(s.d)
		c.byKey[key] = f
		c.order = append(c.order, key)
	}
	if s.object != "" && !contains(f.Objects, s.object) {
		f.Objects = append(f.Objects, s.object)
	}
	for _, e := range s.evidence {
		if !hasEvidence(f.Evidence, e) {
			f.Evidence = append(f.Evidence, e)
		}
	}
	if !s.since.IsZero() && (f.Since.IsZero() || s.since.Before(f.Since)) {
		f.Since = s.since
	}
	if s.repeats > f.Repeats {
		f.Repeats = s.repeats
	}
}

// newFinding fills a finding from a decoded message and the catalogue.
func newFinding(d Decoded) *chain.Finding {
	c, _ := Lookup(d.Cause)
	f := &chain.Finding{
		Cause:       d.Cause,
		Summary:     d.Summary,
		NextStep:    d.NextStep,
		Progressing: d.Progressing,
		Details:     d.Details,
	}
	if f.Summary == "" {
		f.Summary = c.Summary
	}
	if f.NextStep == "" {
		f.NextStep = c.NextStep
	}
	return f
}

// findings returns the merged findings, failures before progress, then the
// most widespread first, then by cause ID: never map order.
func (c *collector) findings(of int) []chain.Finding {
	out := make([]chain.Finding, 0, len(c.order))
	for _, k := range c.order {
		f := *c.byKey[k]
		f.Of = of
		sort.Strings(f.Objects)
		out = append(out, f)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Progressing != b.Progressing {
			return !a.Progressing
		}
		if len(a.Objects) != len(b.Objects) {
			return len(a.Objects) > len(b.Objects)
		}
		return a.Cause < b.Cause
	})
	return out
}

func (c *collector) empty() bool { return len(c.order) == 0 }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func hasEvidence(list []chain.Evidence, e chain.Evidence) bool {
	for _, x := range list {
		if x.Source == e.Source && x.Reason == e.Reason && x.Message == e.Message && x.Field == e.Field {
			return true
		}
	}
	return false
}

// isTerminal applies a cause's rule to a finding at the snapshot's time.
func isTerminal(f *chain.Finding, now time.Time, grace time.Duration) bool {
	c, ok := Lookup(f.Cause)
	if !ok {
		return false
	}
	switch c.Terminal.Mode {
	case Immediate:
		return true
	case AfterRepeats:
		return f.Repeats >= c.Terminal.Repeats
	case AfterGrace:
		return !f.Since.IsZero() && now.Sub(f.Since) >= grace
	}
	return false
}

func objectName(kind, name string) string { return fmt.Sprintf("%s/%s", kind, name) }
