package decode

import (
	"regexp"
	"strconv"
	"strings"
)

// SchedulingResult is one decoded PodScheduled=False condition or
// FailedScheduling event message.
//
// The scheduler folds every node's rejection into one line (FitError.Error in
// pkg/scheduler/framework/types.go): "0/N nodes are available: " then either
// the PreFilter plugin's message, which stands for all nodes, or a sorted
// histogram "C reason, C reason.", then the PostFilter (preemption) message.
// Keeping each reason with its node count is what lets the walk say "2 of 5
// nodes lack cpu, 3 are tainted" instead of blaming one of them.
type SchedulingResult struct {
	// Nodes is N from "0/N nodes are available", -1 when the message has no
	// count.
	Nodes int
	// Reasons has one entry per reason clause, in message order, each with
	// Nodes set to its node count (0 when the clause has none).
	Reasons []Decoded
	// Preemption is the verbatim preemption clause ("preemption: 0/5 nodes
	// are available: ..."), empty when absent. It says whether evicting
	// lower-priority pods could help; it never names a cause by itself.
	Preemption string
}

const (
	// schedFitPrefix is framework.NoNodeAvailableMsg ("0/%v nodes are
	// available") followed by the ":" FitError.Error appends.
	schedFitPrefix = "0/"
	schedFitMiddle = " nodes are available:"
	// schedTruncated is the suffix truncateMessage (pkg/scheduler/
	// schedule_one.go) puts on event notes longer than NoteLengthLimit.
	schedTruncated    = " ..."
	schedNoteLimit    = 1024
	schedMaxCountLen  = 9 // digits; keeps Atoi far from overflow
	schedGatedReason  = "SchedulingGated"
	schedPreemptToken = "preemption: "
)

// Scheduling decodes the reason and message of a PodScheduled=False condition
// or a FailedScheduling event. reason is the condition or event reason
// (Unschedulable, SchedulingGated, SchedulerError, FailedScheduling, ...). An
// empty message with any reason but SchedulingGated decodes to no reasons.
func Scheduling(reason, message string) SchedulingResult {
	res := SchedulingResult{Nodes: -1}
	if reason == schedGatedReason {
		res.Reasons = []Decoded{schedulingGated(message)}
		return res
	}
	msg := strings.TrimSpace(message)
	if msg == "" {
		return res
	}
	if d, ok := Autoscaler(reason, msg); ok {
		res.Reasons = []Decoded{d}
		return res
	}
	if legacy, ok := schedLegacy(msg); ok {
		return legacy
	}
	truncated := len(message) == schedNoteLimit && strings.HasSuffix(msg, schedTruncated)
	total, body, ok := schedFitBody(msg)
	if !ok {
		if rs, ok := schedHeadless(msg); ok {
			res.Reasons = rs
			return res
		}
		res.Reasons = []Decoded{schedClause(msg, 0, -1, truncated)}
		return res
	}
	res.Nodes = total
	body, res.Preemption = schedSplitPreemption(body)
	if res.Preemption != "" {
		// The cut fell in the preemption part: the reasons are whole.
		truncated = false
	}
	body, truncated = schedTrimBody(body, truncated)
	clauses := schedSplitClauses(body, total)
	for i, c := range clauses {
		last := i == len(clauses)-1
		res.Reasons = append(res.Reasons, schedClause(c.text, c.nodes, total, truncated && last))
	}
	if len(res.Reasons) == 0 && total == 0 {
		res.Reasons = []Decoded{schedNoNodes(msg)}
	}
	res.Reasons = schedDropUmbrella(res.Reasons)
	return res
}

// schedHeadless decodes the reasons histogram quoted without its "0/N
// nodes are available:" head, as users put it in a title or a sentence
// ("1 node(s) had untolerated taint {node-role.kubernetes.io/etcd: }",
// longhorn/longhorn#12804): the clauses count nodes, so they decode as in
// the whole message. It declines text whose clauses name no reason it
// knows, which stays one clause as before.
func schedHeadless(msg string) ([]Decoded, bool) {
	if _, _, ok := schedLeadingCount(msg, -1); !ok {
		return nil, false
	}
	body, _ := schedSplitPreemption(msg)
	body, _ = schedTrimBody(body, false)
	var rs []Decoded
	known := false
	for _, c := range schedSplitClauses(body, -1) {
		d := schedClause(c.text, c.nodes, -1, false)
		known = known || d.Cause != UnschedulableOther
		rs = append(rs, d)
	}
	return schedDropUmbrella(rs), known
}

// schedDropUmbrella drops 1.10-1.19's "didn't match pod affinity/anti-
// affinity", which InterPodAffinity added beside its specific reason.
func schedDropUmbrella(rs []Decoded) []Decoded {
	specific := false
	for _, r := range rs {
		if (r.Cause == PodAffinityUnsatisfied || r.Cause == PodAntiAffinityConflict) && !strings.Contains(r.Summary, "affinity/anti-affinity") {
			specific = true
		}
	}
	if !specific {
		return rs
	}
	out := rs[:0:0]
	for _, r := range rs {
		if !strings.Contains(r.Summary, "affinity/anti-affinity") {
			out = append(out, r)
		}
	}
	return out
}

// schedFitBody recognises "0/N nodes are available:" and returns N and what
// follows it.
func schedFitBody(msg string) (int, string, bool) {
	if !strings.HasPrefix(msg, schedFitPrefix) {
		return 0, "", false
	}
	num, rest, ok := strings.Cut(msg[len(schedFitPrefix):], schedFitMiddle)
	if !ok {
		return 0, "", false
	}
	n, ok := schedCount(num)
	if !ok {
		return 0, "", false
	}
	return n, strings.TrimSpace(rest), true
}

// schedSplitPreemption cuts off the preemption clause. DefaultPreemption's
// PostFilter prefixes its message with "preemption: " (or "pod group
// preemption: "), and FitError.Error appends it after a space; other
// PostFilter plugins' messages may come before it, joined with ", ".
func schedSplitPreemption(body string) (string, string) {
	for from := 0; from < len(body); {
		i := strings.Index(body[from:], schedPreemptToken)
		if i < 0 {
			break
		}
		at := from + i
		if at == 0 || body[at-1] == ' ' {
			if strings.HasSuffix(body[:at], "pod group ") {
				at -= len("pod group ")
			}
			return strings.TrimSpace(body[:at]), body[at:]
		}
		from = at + len(schedPreemptToken)
	}
	return body, ""
}

// schedTrimBody drops the "." FitError.Error puts after the reasons and any
// other PostFilter message that follows it. A truncated body keeps its
// " ..." so the cut clause reads as cut; truncated stays true only when the
// cut fell in the reasons.
func schedTrimBody(body string, truncated bool) (string, bool) {
	if i := strings.Index(body, ". "); i >= 0 {
		body = body[:i]
		truncated = false
	}
	body = strings.TrimSpace(body)
	if truncated {
		return body, true
	}
	return strings.TrimSuffix(body, "."), false
}

// schedClauseText is one reason clause and its node count.
type schedClauseText struct {
	nodes int
	text  string
}

// schedSplitClauses splits the reasons histogram "2 Insufficient cpu, 3
// node(s) had untolerated taint(s)". A ", " only separates two clauses when a
// node count no larger than total follows it: reasons of older releases
// contain commas ("node(s) had taint {k: v}, that the pod didn't tolerate").
// A body without a leading count is a PreFilter message and stays whole.
func schedSplitClauses(body string, total int) []schedClauseText {
	if body == "" {
		return nil
	}
	if _, _, ok := schedLeadingCount(body, total); !ok {
		return []schedClauseText{{text: body}}
	}
	var parts []string
	start := 0
	for from := 0; ; {
		i := strings.Index(body[from:], ", ")
		if i < 0 {
			break
		}
		at := from + i
		if _, _, ok := schedLeadingCount(body[at+2:], total); ok {
			parts = append(parts, body[start:at])
			start = at + 2
		}
		from = at + 2
	}
	parts = append(parts, body[start:])
	out := make([]schedClauseText, 0, len(parts))
	for _, p := range parts {
		n, text, ok := schedLeadingCount(p, total)
		if !ok {
			// Only a malformed body gets here ("1 , 1 x"): keep it whole.
			n, text = 0, p
		}
		out = append(out, schedClauseText{nodes: n, text: text})
	}
	return out
}

// schedLeadingCount reads "C rest" where C is a node count between 1 and
// total (when total is known) and rest is not empty: the histogram only
// lists reasons some node gave.
func schedLeadingCount(s string, total int) (int, string, bool) {
	num, rest, ok := strings.Cut(s, " ")
	if !ok || rest == "" {
		return 0, "", false
	}
	n, ok := schedCount(num)
	if !ok || n < 1 || (total >= 0 && n > total) {
		return 0, "", false
	}
	return n, rest, true
}

// schedCount parses a node count: ASCII digits only, short enough never to
// overflow.
func schedCount(s string) (int, bool) {
	if s == "" || len(s) > schedMaxCountLen {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// The scheduler's wordings before 1.9 (plugin/pkg/scheduler/core/
// generic_scheduler.go FitError.Error): "pod (%s) failed to fit in any node"
// followed by one "fit failure on node (%s): %s" line per node (1.4) or by
// "fit failure summary on nodes : %s" (1.5), and "No nodes are available
// that match all of the following predicates:: %s" (1.6-1.7) or "... all of
// the predicates: %s" (1.8), their reasons each "Name (count)".
var (
	schedLegacyHeads = []string{"fit failure summary on nodes : ", "No nodes are available that match all of the following predicates:: ",
		"No nodes are available that match all of the predicates: ", "No nodes are available that match all of the following predicates: "}
	schedLegacyClauseRe = regexp.MustCompile(`^(.+?) \((\d+)\)$`)
)

func schedLegacy(msg string) (SchedulingResult, bool) {
	res := SchedulingResult{Nodes: -1}
	for _, h := range schedLegacyHeads {
		i := strings.Index(msg, h)
		if i < 0 {
			continue
		}
		body := strings.TrimSuffix(strings.TrimSpace(msg[i+len(h):]), ".")
		for _, part := range strings.Split(body, ", ") {
			part = strings.TrimSpace(part)
			n := 0
			if m := schedLegacyClauseRe.FindStringSubmatch(part); m != nil {
				part = m[1]
				n, _ = schedCount(m[2])
			}
			if part != "" {
				res.Reasons = append(res.Reasons, schedClause(part, n, -1, false))
			}
		}
		return res, len(res.Reasons) > 0
	}
	if !strings.Contains(msg, "failed to fit in any node") {
		return res, false
	}
	counts := map[string]int{}
	var order []string
	for _, chunk := range strings.Split(msg, "fit failure on node (")[1:] {
		_, reasons, ok := strings.Cut(chunk, "): ")
		if !ok {
			continue
		}
		reasons, _, _ = strings.Cut(reasons, "\n")
		for _, r := range strings.Split(strings.TrimSpace(reasons), ", ") {
			if counts[r] == 0 {
				order = append(order, r)
			}
			counts[r]++
		}
	}
	for _, r := range order {
		res.Reasons = append(res.Reasons, schedClause(r, counts[r], -1, false))
	}
	if len(res.Reasons) == 0 {
		res.Reasons = []Decoded{{Cause: UnschedulableOther, Summary: rtOneLine(msg)}}
	}
	return res, true
}
