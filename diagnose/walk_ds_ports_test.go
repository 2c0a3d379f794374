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

// TestDaemonSetHostPortNamesNodes: node-exporter's daemon pods want host
// port 9100, which something else holds on both nodes of a microk8s
// cluster (canonical/microk8s#2589). Each pod is pinned to its node, so
// the scheduler also says the other node "didn't match Pod's node
// affinity/selector": that is the pin, not a cause. The verdict names the
// port and the nodes it is taken on.
func TestDaemonSetHostPortNamesNodes(t *testing.T) {
	const msg = "0/2 nodes are available: 1 node(s) didn't have free ports for the requested pod ports, 1 node(s) didn't match Pod's node affinity/selector."
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "node-exporter", UID: "ds-uid", Generation: 1, CreationTimestamp: metav1.NewTime(walkT0)},
		Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{
			{Name: "node-exporter", Ports: []corev1.ContainerPort{{Name: "metrics", ContainerPort: 9100, HostPort: 9100}}}}}}},
		Status: appsv1.DaemonSetStatus{ObservedGeneration: 1, DesiredNumberScheduled: 2, CurrentNumberScheduled: 2, UpdatedNumberScheduled: 2, NumberUnavailable: 2}}
	var nodes []corev1.Node
	s := &chain.Snapshot{Kind: chain.KindDaemonSet, Namespace: "shop", Name: "node-exporter", DaemonSet: ds, Now: walkT0.Add(10 * time.Minute)}
	for _, n := range []string{"mk8s-a", "mk8s-b"} {
		nodes = append(nodes, corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}})
		p := kindPod("node-exporter-"+n, ds, "DaemonSet", corev1.PodPending, false, nil)
		p.Spec.NodeName = ""
		p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{n}}}}}}}}
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
			Reason: corev1.PodReasonUnschedulable, Message: msg, LastTransitionTime: metav1.NewTime(walkT0)})
		p.Status.ContainerStatuses = nil
		s.Pods = append(s.Pods, p)
	}
	s.Nodes = nodes
	r := Walk(s, Options{})
	if r.Verdict.Link != chain.LinkNodeAssignment || r.Verdict.Cause != decode.NodePortConflict ||
		!strings.Contains(r.Verdict.Summary, "9100/TCP") || !strings.Contains(r.Verdict.Summary, "mk8s-a, mk8s-b") {
		t.Errorf("verdict %s at %s: %q; want NodePortConflict at node-assignment naming 9100/TCP and mk8s-a, mk8s-b", r.Verdict.Cause, r.Verdict.Link, r.Verdict.Summary)
	}
	for _, f := range r.Link(chain.LinkNodeAssignment).Findings {
		if f.Cause == decode.NodeAffinityMismatch {
			t.Errorf("node-assignment finding %s %q: the daemon pods' pin to their nodes is not a cause", f.Cause, f.Summary)
		}
	}
}
