package mcp

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Assistants pay per token: every result says its size, a listing is
// paged with the broken first and the healthy as a count, and one
// workload's diagnosis carries the evidence that decided.

// DefaultLimit is how many reports one page of list_unhealthy holds.
const DefaultLimit = 20

// maxEvidence is how much of the deciding finding's evidence a decided
// diagnosis keeps.
const maxEvidence = 5

// Size is a result's size: its structured content's JSON bytes, and the
// tokens that is, approximated as bytes/4 (no tokenizer is used: stated as
// an approximation).
type Size struct {
	Bytes  int `json:"bytes"`
	Tokens int `json:"tokensApprox"`
}

func sizeOf(v any) Size {
	b, err := json.Marshal(v)
	if err != nil {
		return Size{}
	}
	return Size{Bytes: len(b), Tokens: (len(b) + 3) / 4}
}

func (s Size) String() string {
	return fmt.Sprintf("size: %d bytes of JSON, about %d tokens (bytes/4, an approximation)", s.Bytes, s.Tokens)
}

// listOut is one page of list_unhealthy: a ReportList's fields (so a
// client that reads a list reads it), the page's place, how many were
// healthy, and its size.
type listOut struct {
	Schema   string         `json:"schema"`
	Kind     string         `json:"kind"`
	Health   chain.Health   `json:"health"`
	Items    []chain.Report `json:"items"`
	Requests int            `json:"requests"`
	// Total is how many workloads were judged; Unhealthy how many of them
	// are not healthy, Healthy how many are (listed only with
	// includeHealthy).
	Total     int `json:"total"`
	Unhealthy int `json:"unhealthy"`
	Healthy   int `json:"healthy"`
	// NextCursor continues the listing; empty on the last page.
	NextCursor string `json:"nextCursor,omitempty"`
	Size       Size   `json:"size"`
}

// rank orders reports for a listing: broken, then unknown, then
// progressing, then healthy.
func rank(h chain.Health) int { return 3 - chain.Severity(h) }

// page is the listing's page at cursor (an offset, as a previous page
// gave it) of at most limit reports, each brief: the not healthy first,
// the healthy only with includeHealthy.
func page(all *chain.ReportList, cursor string, limit int, includeHealthy bool) (*listOut, error) {
	if limit <= 0 {
		limit = DefaultLimit
	}
	start := 0
	if cursor != "" {
		n, err := strconv.Atoi(cursor)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("cursor %q is not one a page gave: start without it", cursor)
		}
		start = n
	}
	items := slices.Clone(all.Items)
	// A page's place must mean the same at the next call: a stable order,
	// whatever order the reads came in.
	slices.SortStableFunc(items, func(a, b chain.Report) int {
		return cmp.Or(rank(a.Verdict.Health)-rank(b.Verdict.Health), strings.Compare(a.Context, b.Context),
			strings.Compare(a.Namespace, b.Namespace), strings.Compare(string(a.Kind), string(b.Kind)), strings.Compare(a.Name, b.Name))
	})
	out := &listOut{Schema: all.Schema, Kind: all.Kind, Health: all.Health, Requests: all.Requests, Total: len(items)}
	var shown []chain.Report
	for _, r := range items {
		if r.Verdict.Health == chain.Healthy {
			out.Healthy++
			if !includeHealthy {
				continue
			}
		} else {
			out.Unhealthy++
		}
		shown = append(shown, r)
	}
	if start > len(shown) {
		return nil, fmt.Errorf("cursor %q is past the %d reports: start without it", cursor, len(shown))
	}
	end := min(start+limit, len(shown))
	for i := start; i < end; i++ {
		out.Items = append(out.Items, *brief(&shown[i]))
	}
	if end < len(shown) {
		out.NextCursor = strconv.Itoa(end)
	}
	out.Size = sizeOf(out)
	return out, nil
}

// decided is r with the evidence that decided its verdict and no more:
// the deciding link's first finding keeps its evidence (at most
// maxEvidence), every other finding its cause, summary and next step;
// each names at most maxEvidence of the objects it was seen on, and
// counts the others (50 crash-looping pods are 5 names and 45).
func decided(r *chain.Report) *chain.Report {
	out := *r
	out.Links = slices.Clone(r.Links)
	for i := range out.Links {
		l := &out.Links[i]
		l.Findings = slices.Clone(l.Findings)
		for j := range l.Findings {
			f := &l.Findings[j]
			if n := len(f.Objects); n > maxEvidence {
				f.Objects, f.MoreObjects = f.Objects[:maxEvidence], f.MoreObjects+n-maxEvidence
			}
			if l.ID == r.Verdict.Link && j == 0 {
				if len(f.Evidence) > maxEvidence {
					f.Evidence = f.Evidence[:maxEvidence]
				}
				continue
			}
			f.Evidence, f.Details = nil, nil
		}
	}
	return &out
}

// brief is r as a listing holds it: its verdict, the link that decided it
// with the evidence that decided (decided) but not its details (they
// restate the evidence's fields), what changed when there is something to
// compare, and no other link (diagnose gives the whole chain of one).
func brief(r *chain.Report) *chain.Report {
	out := decided(r)
	out.Links = slices.DeleteFunc(out.Links, func(l chain.Link) bool { return l.ID != r.Verdict.Link })
	for i := range out.Links {
		for j := range out.Links[i].Findings {
			out.Links[i].Findings[j].Details = nil
		}
	}
	if out.Change != nil && out.Change.Kind == chain.ChangeFirstRevision {
		out.Change = nil
	}
	out.ReplicaSets = nil
	return out
}
