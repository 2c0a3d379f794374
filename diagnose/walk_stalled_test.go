package diagnose

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// TestStalledWithoutDeadline: a StatefulSet has no progress deadline, so a
// pod whose readiness probe keeps failing was broken but never terminal
// (a --wait ran to its timeout), and one not Ready without a probe failure
// progressing forever; past NoDeadlineWindow both are broken and terminal.
// The probe's words are the kubelet's (the corpus's runtime family:
// "Readiness probe failed: HTTP probe failed with statuscode: 503").
func TestStalledWithoutDeadline(t *testing.T) {
	for _, tt := range []struct {
		name     string
		after    time.Duration
		probe    bool
		health   chain.Health
		terminal bool
	}{
		{"probe young", 2 * time.Minute, true, chain.Broken, false},
		{"probe stalled", NoDeadlineWindow + time.Minute, true, chain.Broken, true},
		{"not ready young", 2 * time.Minute, false, chain.Progressing, false},
		{"not ready stalled", NoDeadlineWindow + time.Minute, false, chain.Broken, true},
	} {
		set := statefulSet(0, appsv1.OrderedReadyPodManagement)
		set.Status.CurrentRevision = set.Status.UpdateRevision
		rev := map[string]string{appsv1.ControllerRevisionHashLabelKey: "web-new"}
		s := &chain.Snapshot{Kind: chain.KindStatefulSet, Namespace: "shop", Name: "web", StatefulSet: set, Now: walkT0.Add(tt.after),
			Pods: []corev1.Pod{
				kindPod("web-0", set, "StatefulSet", corev1.PodRunning, true, rev),
				kindPod("web-1", set, "StatefulSet", corev1.PodRunning, false, rev),
			},
			Events: []chain.Event{{Type: "Warning", Reason: "Unhealthy", Message: "Readiness probe failed: HTTP probe failed with statuscode: 503",
				Object: chain.ObjectRef{Kind: "Pod", Name: "web-1", UID: "uid-web-1"}, Count: 40, First: walkT0, Last: walkT0.Add(tt.after), Source: "kubelet"}},
		}
		want := decode.ReadinessProbeFailed
		if !tt.probe {
			s.Events, want = nil, decode.PodNotReady
		}
		v := Walk(s, Options{}).Verdict
		if v.Health != tt.health || v.Link != chain.LinkReady || v.Cause != want || v.Terminal != tt.terminal {
			t.Errorf("%s: verdict %s at %s (%s, terminal %v), want %s at ready (%s, terminal %v)", tt.name, v.Health, v.Link, v.Cause, v.Terminal, tt.health, want, tt.terminal)
		}
		if tt.terminal && !strings.Contains(v.Summary, "no progress deadline") {
			t.Errorf("%s: %q, want the missing deadline said", tt.name, v.Summary)
		}
	}
}
