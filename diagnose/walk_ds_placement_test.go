package diagnose

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// TestDaemonSetFailedPlacement: the 1.6 DaemonSet controller could not
// place a pod on a node short of memory and said so only in FailedPlacement
// events on the DaemonSet (kubernetes#46386): two of three pods exist, and
// the pods link names InsufficientMemory and the node, not a rollout in
// progress. An older placement failure, before the newest pod, is history.
func TestDaemonSetFailedPlacement(t *testing.T) {
	const msg = `failed to place pod on "ip-10-0-0-3.us-west-2.compute.internal": Node didn't have enough resource: memory, requested: 1073741824, used: 25347227648, capacity: 26225393664`
	for _, stale := range []bool{false, true} {
		ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "ds-uid", Generation: 1, CreationTimestamp: metav1.NewTime(walkT0)},
			Status: appsv1.DaemonSetStatus{ObservedGeneration: 1, DesiredNumberScheduled: 3, CurrentNumberScheduled: 2, NumberReady: 2,
				UpdatedNumberScheduled: 2, NumberAvailable: 2, NumberUnavailable: 1}}
		s := &chain.Snapshot{Kind: chain.KindDaemonSet, Namespace: "shop", Name: "web", DaemonSet: ds, Now: walkT0.Add(30 * time.Minute)}
		for _, n := range []string{"a", "b"} {
			p := kindPod("web-"+n, ds, "DaemonSet", corev1.PodRunning, true, nil)
			p.CreationTimestamp = metav1.NewTime(walkT0.Add(time.Minute))
			s.Pods = append(s.Pods, p)
		}
		last := walkT0.Add(20 * time.Minute)
		if stale {
			last = walkT0.Add(30 * time.Second)
		}
		s.Events = []chain.Event{{Type: corev1.EventTypeNormal, Reason: "FailedPlacement", Message: msg, Count: 87,
			Object: chain.ObjectRef{Kind: "DaemonSet", Name: "web", UID: "ds-uid"}, First: walkT0.Add(10 * time.Second), Last: last, Source: "daemonset-controller"}}
		v := Walk(s, Options{}).Verdict
		if stale {
			if v.Cause == decode.InsufficientMemory {
				t.Errorf("a placement failure older than the newest pod: verdict %+v, want it ignored", v)
			}
			continue
		}
		if v.Link != chain.LinkPods || v.Cause != decode.InsufficientMemory || !strings.Contains(v.Summary, "ip-10-0-0-3") {
			t.Errorf("verdict %+v, want InsufficientMemory at pods naming the node", v)
		}
	}
}
