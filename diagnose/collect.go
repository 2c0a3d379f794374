package diagnose

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// collector merges the findings of many objects: the same cause with the
// same specific summary on 3 pods is one finding "3/3 pods", with each
// distinct piece of evidence kept once.
type collector struct {
	byKey map[string]*chain.Finding
	order []string
	// weights are, per finding, its scheduler reason's weight with the
	// most nodes it was given by: it ranks reasons seen on as many pods
	// (after SchedBefore's rule that reasons of nodes the pod never asked
	// for come after what the others lack, and control-plane nodes last,
	// so "1 Insufficient memory, 4 node(s) didn't match Pod's
	// node affinity/selector" leads with the memory). It stays out of
	// chain.Finding, whose summary already says it ("4 of 5 nodes: ...").
	weights map[string]decode.SchedWeight
}

// sighting is one object's decoded cause with what it was decoded from.
type sighting struct {
	d        decode.Decoded
	object   string
	evidence []chain.Evidence
	since    time.Time
	// last is the newest sighting's time, where the evidence says it (an
	// event's last timestamp); zero otherwise.
	last    time.Time
	repeats int32
}

func (c *collector) add(s sighting) {
	if c.byKey == nil {
		c.byKey = map[string]*chain.Finding{}
		c.weights = map[string]decode.SchedWeight{}
	}
	// The same cause still under way on one pod (a preemption nominated a
	// node for it) and failing on another are two findings: merging them
	// would let whichever came first decide whether both are progress.
	key := string(s.d.Cause) + "\x00" + s.d.Summary + "\x00" + strconv.FormatBool(s.d.Progressing)
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
	if s.last.After(f.Last) {
		f.Last = s.last
	}
	if w, ok := c.weights[key]; !ok || s.d.Nodes > w.Nodes {
		c.weights[key] = decode.WeightOf(s.d)
	}
}

// newFinding fills a finding from a decoded message and the catalogue.
func newFinding(d decode.Decoded) *chain.Finding {
	c, _ := decode.Lookup(d.Cause)
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
		f.NextStep = c.Step
	}
	return f
}

// findings returns the merged findings, failures before progress, then the
// most widespread first (on more pods, then given by more nodes), then by
// cause ID: never map order. Only findings about pods get of ("2/3 pods"):
// a Deployment or ReplicaSet finding is not one of the pods looked at.
func (c *collector) findings(of int) []chain.Finding {
	type ranked struct {
		f      chain.Finding
		weight decode.SchedWeight
	}
	out := make([]ranked, 0, len(c.order))
	for _, k := range c.order {
		f := *c.byKey[k]
		sort.Strings(f.Objects)
		if isPodFinding(&f) {
			f.Of = of
		}
		out = append(out, ranked{f: f, weight: c.weights[k]})
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.f.Progressing != b.f.Progressing {
			return !a.f.Progressing
		}
		if len(a.f.Objects) != len(b.f.Objects) {
			return len(a.f.Objects) > len(b.f.Objects)
		}
		if before, ok := decode.SchedBefore(a.weight, b.weight); ok {
			return before
		}
		return a.f.Cause < b.f.Cause
	})
	fs := make([]chain.Finding, len(out))
	for i := range out {
		fs[i] = out[i].f
	}
	return fs
}

// isPodFinding says a finding is about pods, so "N/M pods" describes it.
func isPodFinding(f *chain.Finding) bool {
	return len(f.Objects) > 0 && strings.HasPrefix(f.Objects[0], "pod/")
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

// appendUnique appends s to list unless list holds it already.
func appendUnique(list []string, s string) []string {
	if contains(list, s) {
		return list
	}
	return append(list, s)
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
	c, ok := decode.Lookup(f.Cause)
	if !ok {
		return false
	}
	switch c.Terminal.Mode {
	case decode.Immediate:
		return true
	case decode.AfterRepeats:
		return f.Repeats >= c.Terminal.Repeats
	case decode.AfterGrace:
		wait := max(grace, c.Terminal.Window)
		if f.Since.IsZero() || now.Sub(f.Since) < wait {
			return false
		}
		return !c.Terminal.Retried || f.Last.IsZero() || f.Last.Sub(f.Since) >= wait
	}
	return false
}

func objectName(kind, name string) string { return fmt.Sprintf("%s/%s", kind, name) }
