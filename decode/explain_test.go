package decode

import (
	"strings"
	"testing"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// TestExplain decodes messages as users paste them, with and without their
// reason. The texts are the components' own (formats cited in each decoder's
// tests).
func TestExplain(t *testing.T) {
	tests := []struct {
		reason, message string
		want            []chain.CauseID
	}{
		{"", "0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had untolerated taint(s). preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling.",
			[]chain.CauseID{InsufficientCPU, UntoleratedTaint}}, // the nodes the pod tolerates lack cpu
		{"FailedScheduling", "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.", []chain.CauseID{NodeAffinityMismatch}},
		{"", `Error creating: pods "web-5d8f9c7b6-x7k2p" is forbidden: exceeded quota: compute, requested: cpu=2, used: cpu=9, limited: cpu=10`, []chain.CauseID{QuotaExceeded}},
		{"", `Failed to pull image "registry.lab.internal/web:v9": rpc error: code = NotFound desc = failed to pull and unpack image "registry.lab.internal/web:v9": failed to resolve reference "registry.lab.internal/web:v9": registry.lab.internal/web:v9: not found`,
			[]chain.CauseID{ImageNotFound}},
		{"CreateContainerConfigError", `configmap "app-config" not found`, []chain.CauseID{ConfigMapNotFound}},
		{"", `MountVolume.SetUp failed for volume "creds" : secret "db-creds" not found`, []chain.CauseID{VolumeSecretNotFound}},
		{"", "Readiness probe failed: HTTP probe failed with statuscode: 503", []chain.CauseID{ReadinessProbeFailed}},
		{"", `ReplicaSet "web-5d8f9c7b6" has timed out progressing.`, []chain.CauseID{ProgressDeadlineExceeded}},
		{"", "all good here", nil},
		// the kubelet's Pulling event before 1.14 (lowercase), with and without its reason
		{"Pulling", `pulling image "registry.example.com/exechealthz-amd64:1.2"`, []chain.CauseID{ImagePulling}},
		{"", `pulling image "registry.example.com/exechealthz-amd64:1.2"`, []chain.CauseID{ImagePulling}},
		// the OpenShift console's copied text: each value on the line after its label
		{"", "State:\nWaiting (CrashLoopBackOff)\nLast State\nTerminated at Apr 18, 2017 9:12:19 PM (Completed)\nReady:\nfalse",
			[]chain.CauseID{ContainerCompleted, CrashLoopBackOff}},
		// kubectl describe pod's container block
		{"", "    State:          Waiting\n      Reason:       CrashLoopBackOff\n    Last State:     Terminated\n      Reason:       OOMKilled\n      Exit Code:    137\n",
			[]chain.CauseID{OOMKilled, CrashLoopBackOff}},
	}
	for _, tt := range tests {
		var got []chain.CauseID
		for _, d := range Explain(tt.reason, tt.message) {
			got = append(got, d.Cause)
			if strings.Contains(d.Summary, `""`) {
				t.Errorf("Explain(%q, %.60q): summary names nothing: %s", tt.reason, tt.message, d.Summary)
			}
		}
		if len(got) != len(tt.want) {
			t.Errorf("Explain(%q, %.60q) = %v, want %v", tt.reason, tt.message, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("Explain(%q, %.60q) = %v, want %v", tt.reason, tt.message, got, tt.want)
			}
		}
	}
}

func FuzzExplain(f *testing.F) {
	f.Add("", "0/3 nodes are available: 3 Insufficient cpu.")
	f.Add("Failed", `Failed to pull image "x": not found`)
	f.Add("", "State:\nWaiting (CrashLoopBackOff)\nLast State\nTerminated at Apr 18, 2017 9:12:19 PM (Completed)")
	f.Add("", "Events:\n  Type     Reason   Age   From     Message\n  Warning  BackOff  1m    kubelet  Back-off restarting failed container")
	f.Add("", "Error creating: pods is forbidden: exceeded quota: q, requested: cpu=1, used: cpu=1, limited: cpu=1")
	f.Fuzz(func(t *testing.T, reason, message string) {
		for _, d := range Explain(reason, message) {
			if _, ok := Lookup(d.Cause); !ok {
				t.Fatalf("Explain(%q, %q) gave %q, not in the catalogue", reason, message, d.Cause)
			}
		}
	})
}
