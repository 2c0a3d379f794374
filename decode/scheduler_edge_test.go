package decode

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// schedTruncate is truncateMessage of pkg/scheduler/schedule_one.go with
// validation.NoteLengthLimit (1024): event notes are cut, conditions are not.
func schedTruncate(message string) string {
	const limit, suffix = 1024, " ..."
	if len(message) <= limit {
		return message
	}
	return message[:limit-len(suffix)] + suffix
}

// schedManyResources is a FitError over 300 nodes that each lack a different
// extended resource (plugins/noderesources/fit.go "Insufficient %v"), long
// enough for the event note to be truncated.
func schedManyResources() (string, []string) {
	var names, clauses []string
	for i := range 60 {
		name := fmt.Sprintf("example.com/device-%03d", i)
		names = append(names, name)
		clauses = append(clauses, "5 Insufficient "+name)
	}
	return "0/300 nodes are available: " + strings.Join(clauses, ", ") + "." +
		" preemption: 0/300 nodes are available: 300 No preemption victims found for incoming pod.", names
}

func TestSchedulingTruncatedEvent(t *testing.T) {
	full, names := schedManyResources()
	note := schedTruncate(full)
	if len(note) != 1024 {
		t.Fatalf("test message is %d bytes, want it truncated to 1024", len(note))
	}
	got := Scheduling("FailedScheduling", note)

	want := SchedulingResult{Nodes: 300}
	body := strings.TrimPrefix(note, "0/300 nodes are available: ")
	clauses := strings.Split(body, ", ")
	for i, c := range clauses[:len(clauses)-1] {
		if c != "5 Insufficient "+names[i] {
			t.Fatalf("clause %d is %q", i, c)
		}
		want.Reasons = append(want.Reasons, Decoded{Cause: InsufficientExtendedResource, Nodes: 5,
			Summary:  "5 of 300 nodes: insufficient " + names[i],
			NextStep: fmt.Sprintf("lower the %s request in spec.template.spec.containers[].resources, or add nodes whose device plugin advertises %s (Allocatable in kubectl describe nodes)", names[i], names[i]),
			Details:  []chain.Detail{{Key: "resource", Value: names[i]}}})
	}
	// The cut clause is kept verbatim, never guessed at.
	last := strings.TrimPrefix(clauses[len(clauses)-1], "5 ")
	want.Reasons = append(want.Reasons, Decoded{Cause: UnschedulableOther, Nodes: 5,
		Summary: "5 of 300 nodes: " + last, Details: []chain.Detail{{Key: "reason", Value: last}}})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Scheduling(truncated) mismatch (-want +got):\n%s", diff)
	}

	// The condition carries the whole message: every reason and the preemption clause.
	whole := Scheduling("Unschedulable", full)
	if len(whole.Reasons) != len(names) || whole.Preemption == "" {
		t.Errorf("whole message: %d reasons, preemption %q; want %d and a preemption clause", len(whole.Reasons), whole.Preemption, len(names))
	}
}

func TestSchedulingEmpty(t *testing.T) {
	for _, tc := range []struct {
		reason, message string
		want            SchedulingResult
	}{
		{"Unschedulable", "", SchedulingResult{Nodes: -1}},
		{"SchedulingGated", "", SchedulingResult{Nodes: -1, Reasons: []Decoded{{Cause: SchedulingGated, Summary: "scheduling is blocked by spec.schedulingGates"}}}},
	} {
		if diff := cmp.Diff(tc.want, Scheduling(tc.reason, tc.message)); diff != "" {
			t.Errorf("Scheduling(%q, %q) mismatch (-want +got):\n%s", tc.reason, tc.message, diff)
		}
	}
}

// TestSchedulerCauses checks the catalogue against the decoder: every ID is
// declared once on the node-assignment link, and every one is produced by at
// least one real message of the table.
func TestSchedulerCauses(t *testing.T) {
	declared := map[chain.CauseID]bool{}
	for _, c := range schedulerCauses {
		if declared[c.ID] {
			t.Errorf("%s declared twice", c.ID)
		}
		declared[c.ID] = true
		if c.Link != chain.LinkNodeAssignment || c.Summary == "" || c.NextStep == "" || c.Terminal.Mode != AfterGrace {
			t.Errorf("%s: incomplete catalogue entry %+v", c.ID, c)
		}
	}
	seen := map[chain.CauseID]bool{}
	for _, tc := range schedulingCases {
		for _, d := range Scheduling(tc.reason, tc.message).Reasons {
			if !declared[d.Cause] {
				t.Errorf("%s: cause %s is not in schedulerCauses", tc.name, d.Cause)
			}
			seen[d.Cause] = true
		}
	}
	for _, c := range schedulerCauses {
		if !seen[c.ID] {
			t.Errorf("%s: no real message in schedulingCases decodes to it", c.ID)
		}
	}
}

func FuzzScheduling(f *testing.F) {
	for _, tc := range schedulingCases {
		f.Add(tc.reason, tc.message)
	}
	full, _ := schedManyResources()
	f.Add("FailedScheduling", schedTruncate(full))
	// Found by fuzzing: a zero count, and a ", " left with no reason.
	f.Add("0", "0/2 nodes are available:0 , 0 0")
	f.Add("Unschedulable", "0/2 nodes are available: 1 , 1 x")
	declared := map[chain.CauseID]bool{}
	for _, c := range schedulerCauses {
		declared[c.ID] = true
	}
	f.Fuzz(func(t *testing.T, reason, message string) {
		got := Scheduling(reason, message)
		if diff := cmp.Diff(got, Scheduling(reason, message)); diff != "" {
			t.Fatalf("not deterministic:\n%s", diff)
		}
		if got.Nodes < -1 {
			t.Fatalf("Nodes = %d", got.Nodes)
		}
		if !strings.HasSuffix(strings.TrimSpace(message), got.Preemption) {
			t.Fatalf("Preemption %q is not the end of the message", got.Preemption)
		}
		if reason == "SchedulingGated" && (len(got.Reasons) != 1 || got.Reasons[0].Cause != SchedulingGated) {
			t.Fatalf("gated pod decoded to %+v", got.Reasons)
		}
		if got.Nodes == -1 && strings.TrimSpace(message) != "" && len(got.Reasons) != 1 {
			t.Fatalf("uncounted message gave %d reasons", len(got.Reasons))
		}
		for _, d := range got.Reasons {
			if !declared[d.Cause] || d.Summary == "" {
				t.Fatalf("reason without a declared cause or summary: %+v", d)
			}
			if d.Nodes < 0 || (got.Nodes >= 0 && d.Nodes > got.Nodes) || (got.Nodes < 0 && d.Nodes != 0) {
				t.Fatalf("reason count %d out of range for %d nodes", d.Nodes, got.Nodes)
			}
		}
	})
}

// TestSchedulingHeadless: the histogram quoted without its head still
// names its reasons (longhorn/longhorn#12804's "1 node(s) had untolerated
// taint {node-role.kubernetes.io/etcd: }"); text that names none stays
// one clause.
func TestSchedulingHeadless(t *testing.T) {
	got := Scheduling("FailedScheduling", "1 node(s) had untolerated taint {node-role.kubernetes.io/etcd: }")
	if len(got.Reasons) != 1 || got.Reasons[0].Cause != UntoleratedTaint || got.Reasons[0].Nodes != 1 {
		t.Errorf("headless taint clause: %+v, want one UntoleratedTaint of 1 node", got.Reasons)
	}
	got = Scheduling("FailedScheduling", "3 pods are waiting for something")
	if len(got.Reasons) != 1 || got.Reasons[0].Cause != UnschedulableOther {
		t.Errorf("unknown counted text: %+v, want one UnschedulableOther", got.Reasons)
	}
}
