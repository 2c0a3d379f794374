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

// TestNodeGone: a StatefulSet's pod whose node stopped reporting is not
// Ready because the node lifecycle controller said so ("Node is not
// ready", MarkPodsNotReady at v1.37.2; the node's Ready Unknown with
// "Kubelet stopped posting node status."): the node-assignment link names
// the node, progressing while the node may come back (300 s), then broken
// and terminal; the old NodeLost status reason says the same. A pod whose
// node came back and is not Ready for another reason is not blamed on it.
func TestNodeGone(t *testing.T) {
	set := statefulSet(0, appsv1.OrderedReadyPodManagement)
	set.Status.CurrentRevision = set.Status.UpdateRevision
	rev := map[string]string{appsv1.ControllerRevisionHashLabelKey: "web-new"}
	lost := metav1.NewTime(walkT0.Add(time.Minute))
	node := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}, Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
		{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, Reason: "NodeStatusUnknown", Message: "Kubelet stopped posting node status.", LastTransitionTime: lost}}}}
	notReady := chain.Event{Type: "Warning", Reason: "NodeNotReady", Message: "Node is not ready", Source: "node-controller",
		Object: chain.ObjectRef{Kind: "Pod", Name: "web-1", UID: "uid-web-1"}, Count: 1, First: lost.Time, Last: lost.Time}
	for _, tt := range []struct {
		name     string
		after    time.Duration
		reason   string
		event    bool
		health   chain.Health
		link     chain.LinkID
		terminal bool
	}{
		{name: "just lost", after: 2 * time.Minute, event: true, health: chain.Progressing, link: chain.LinkNodeAssignment},
		{name: "lost for long", after: 7 * time.Minute, event: true, health: chain.Broken, link: chain.LinkNodeAssignment, terminal: true},
		{name: "NodeLost", after: 7 * time.Minute, reason: "NodeLost", health: chain.Broken, link: chain.LinkNodeAssignment, terminal: true},
		{name: "no sign", after: 2 * time.Minute, health: chain.Progressing, link: chain.LinkReady},
	} {
		pod := kindPod("web-1", set, "StatefulSet", corev1.PodRunning, false, rev)
		pod.Status.Conditions[0].LastTransitionTime = lost
		pod.Status.Reason = tt.reason
		s := &chain.Snapshot{Kind: chain.KindStatefulSet, Namespace: "shop", Name: "web", StatefulSet: set, Now: walkT0.Add(tt.after),
			Nodes: []corev1.Node{node},
			Pods:  []corev1.Pod{kindPod("web-0", set, "StatefulSet", corev1.PodRunning, true, rev), pod}}
		if tt.event {
			s.Events = []chain.Event{notReady}
		}
		v := Walk(s, Options{}).Verdict
		if v.Health != tt.health || v.Link != tt.link || v.Terminal != tt.terminal {
			t.Errorf("%s: %s at %s (%s, terminal %v), want %s at %s (terminal %v)", tt.name, v.Health, v.Link, v.Cause, v.Terminal, tt.health, tt.link, tt.terminal)
		}
		if tt.link == chain.LinkNodeAssignment && (v.Cause != decode.NodeNotReady || !strings.Contains(v.Summary, "node node-1 went away")) {
			t.Errorf("%s: %s %q, want NodeNotReady naming node-1", tt.name, v.Cause, v.Summary)
		}
	}
}
