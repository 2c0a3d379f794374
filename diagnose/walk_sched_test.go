package diagnose

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// Scheduler message: pkg/scheduler/framework/types.go FitError.Error with
// plugins/noderesources/fit.go "Insufficient cpu" and defaultpreemption's
// "No preemption victims found for incoming pod".
const walkCPUMsg = "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."

// Cluster autoscaler messages (kubernetes/autoscaler cluster-autoscaler):
// "pod triggered scale-up: %v" of ScaleUpInfo "{%v %v->%v (max: %v)}", and
// "pod didn't trigger scale-up: %s" with its per-group reasons.
const (
	walkScaleUp    = "pod triggered scale-up: [{lab-pool-b 3->4 (max: 8)}]"
	walkNoScaleUp  = "pod didn't trigger scale-up: 1 max node group size reached"
	walkPendingPod = "web-5d8f9c7b6-x7k2p"
	// Karpenter v1 pkg/controllers/provisioning/scheduling/events.go
	// NominatePodEvent: "Pod should schedule on: %s", nodeclaim/NAME.
	walkNominated = "Pod should schedule on: nodeclaim/default-zlp9c"
	// A plugin of another scheduler profile (secretflow/kuscia#236).
	walkOddMsg = "0/3 nodes are available: failed to get task resource bob/ for pod."
)

// pendingSnapshot is walkSnapshot with one pod the scheduler cannot place
// since walkT0, and the pod's events.
func pendingSnapshot(evs ...chain.Event) *chain.Snapshot {
	s := walkSnapshot(evs...)
	one := int32(1)
	s.Deployment.Spec.Replicas = &one
	s.ReplicaSets[0].Spec.Replicas = &one
	yes := true
	s.Pods = []corev1.Pod{{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: walkPendingPod, UID: "pod-uid",
			CreationTimestamp: metav1.NewTime(walkT0),
			OwnerReferences:   []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-5d8f9c7b6", UID: "rs-uid", Controller: &yes}}},
		Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{
			Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: walkCPUMsg,
			LastTransitionTime: metav1.NewTime(walkT0)}}},
	}}
	return s
}

func podEvent(typ, reason, msg, source string, at time.Duration, count int32) chain.Event {
	return chain.Event{Type: typ, Reason: reason, Message: msg, Source: source, Count: count,
		Object: chain.ObjectRef{Kind: "Pod", Name: walkPendingPod, UID: "pod-uid"},
		First:  walkT0.Add(at), Last: walkT0.Add(at)}
}

// TestWalkScaleUp: a triggered scale-up makes a shortage of nodes
// progress, not a failure, until the autoscaler says it will not add one
// or its provisioning window has passed.
func TestWalkScaleUp(t *testing.T) {
	type want struct {
		Health   chain.Health
		Cause    chain.CauseID
		Terminal bool
		Notes    []string
	}
	failed := func(at time.Duration) chain.Event {
		return podEvent(corev1.EventTypeWarning, "FailedScheduling", walkCPUMsg, "default-scheduler", at, 1)
	}
	tests := []struct {
		name string
		evs  []chain.Event
		want want
	}{
		{name: "no autoscaler: terminal after the grace",
			evs:  []chain.Event{failed(5 * time.Minute)},
			want: want{Health: chain.Broken, Cause: decode.InsufficientCPU, Terminal: true}},
		// The scheduler's reason stays the cause while the node boots.
		{name: "scale-up under way for 4 minutes",
			evs: []chain.Event{failed(0), podEvent(corev1.EventTypeNormal, "TriggeredScaleUp", walkScaleUp, "cluster-autoscaler", 10*time.Second, 1),
				failed(4 * time.Minute)},
			want: want{Health: chain.Progressing, Cause: decode.InsufficientCPU, Notes: []string{
				"the cluster autoscaler is adding a node: " + walkScaleUp}}},
		{name: "Karpenter nominated a nodeclaim",
			evs: []chain.Event{failed(0), podEvent(corev1.EventTypeNormal, "Nominated", walkNominated, "karpenter", 10*time.Second, 1),
				failed(2 * time.Minute)},
			want: want{Health: chain.Progressing, Cause: decode.InsufficientCPU, Notes: []string{
				"Karpenter is providing a node: " + walkNominated}}},
		{name: "scale-up 20 minutes old and still no node",
			evs: []chain.Event{failed(0), podEvent(corev1.EventTypeNormal, "TriggeredScaleUp", walkScaleUp, "cluster-autoscaler", 10*time.Second, 1),
				failed(20*time.Minute + 10*time.Second)},
			want: want{Health: chain.Broken, Cause: decode.InsufficientCPU, Terminal: true, Notes: []string{
				"cluster autoscaler on pod " + walkPendingPod + ", 20m0s before this snapshot and no node since: " + walkScaleUp}}},
		{name: "autoscaler gave up after triggering",
			evs: []chain.Event{failed(0), podEvent(corev1.EventTypeNormal, "TriggeredScaleUp", walkScaleUp, "cluster-autoscaler", 10*time.Second, 1),
				podEvent(corev1.EventTypeNormal, "NotTriggerScaleUp", walkNoScaleUp, "cluster-autoscaler", 2*time.Minute, 3)},
			want: want{Health: chain.Broken, Cause: decode.InsufficientCPU, Terminal: true}},
		// Each refusal is an event of its own once the correlator's
		// window has passed: the same words are one note, not one per event.
		{name: "autoscaler refused twice with the same words",
			evs: []chain.Event{failed(0),
				podEvent(corev1.EventTypeNormal, "NotTriggerScaleUp", walkNoScaleUp, "cluster-autoscaler", 1*time.Minute, 1),
				podEvent(corev1.EventTypeNormal, "NotTriggerScaleUp", walkNoScaleUp, "cluster-autoscaler", 20*time.Minute, 2)},
			want: want{Health: chain.Broken, Cause: decode.InsufficientCPU, Terminal: true}},
		// A scheduler reason kubectl-chain does not decode says less than
		// the autoscaler's refusal.
		{name: "autoscaler refused, scheduler reason unknown",
			evs: []chain.Event{podEvent(corev1.EventTypeWarning, "FailedScheduling", walkOddMsg, "default-scheduler", 0, 1),
				podEvent(corev1.EventTypeNormal, "NotTriggerScaleUp", walkNoScaleUp, "cluster-autoscaler", 1*time.Minute, 1)},
			want: want{Health: chain.Broken, Cause: decode.ScaleUpNotTriggered, Terminal: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := pendingSnapshot(tc.evs...)
			if tc.name == "autoscaler refused, scheduler reason unknown" {
				s.Pods[0].Status.Conditions = nil
			}
			r := Walk(s, Options{})
			got := want{Health: r.Verdict.Health, Cause: r.Verdict.Cause, Terminal: r.Verdict.Terminal,
				Notes: r.Link(chain.LinkNodeAssignment).Notes}
			if r.Verdict.Link != chain.LinkNodeAssignment {
				t.Errorf("verdict link = %q, want node-assignment", r.Verdict.Link)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("walk mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWalkScaleUpPastDeadline: a Deployment whose progress deadline ran
// out while its pod waits for a node the autoscaler is adding is
// explained by the scheduler's reason, never by the deadline (issue 22).
func TestWalkScaleUpPastDeadline(t *testing.T) {
	for _, tc := range []struct {
		name   string
		reason string
		msg    string
		source string
	}{
		{"cluster autoscaler", "TriggeredScaleUp", walkScaleUp, "cluster-autoscaler"},
		{"Karpenter", "Nominated", walkNominated, "karpenter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := pendingSnapshot(podEvent(corev1.EventTypeWarning, "FailedScheduling", walkCPUMsg, "default-scheduler", 0, 3),
				podEvent(corev1.EventTypeNormal, tc.reason, tc.msg, tc.source, 11*time.Minute, 1))
			s.Deployment.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse,
				Reason: "ProgressDeadlineExceeded", Message: `ReplicaSet "web-5d8f9c7b6" has timed out progressing.`,
				LastTransitionTime: metav1.NewTime(walkT0.Add(10 * time.Minute))}}
			r := Walk(s, Options{})
			if r.Verdict.Link != chain.LinkNodeAssignment || r.Verdict.Cause != decode.InsufficientCPU || r.Verdict.Health != chain.Progressing {
				t.Errorf("verdict = %s at %s, %s; want progressing at node-assignment, InsufficientCPU", r.Verdict.Health, r.Verdict.Link, r.Verdict.Cause)
			}
			if rs := r.Link(chain.LinkReplicaSet); rs.Status == chain.StatusBroken || len(rs.Notes) == 0 {
				t.Errorf("replicaset link = %s with notes %q; want the deadline as a note", rs.Status, rs.Notes)
			}
		})
	}
}

// TestAffinityNamed: "didn't match Pod's node affinity/selector" (the
// lab's scheduler, v1.37.2, capture node-selector-mismatch) names what
// the pods ask for, and, where the nodes were read, the label none has.
func TestAffinityNamed(t *testing.T) {
	s := pendingSnapshot()
	s.Pods[0].Status.Conditions[0].Message = "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
	s.Pods[0].Spec.NodeSelector = map[string]string{"disktype": "ssd"}
	s.Pods[0].Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a", "b"}}}}}}}}
	s.Nodes = []corev1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "lab-node-1", Labels: map[string]string{"disktype": "hdd"}}}}
	s.Now = walkT0.Add(time.Minute)
	r := Walk(s, Options{})
	for _, want := range []string{"nodeSelector disktype=ssd", "node affinity topology.kubernetes.io/zone In (a, b)", "no node has disktype=ssd"} {
		if r.Verdict.Cause != decode.NodeAffinityMismatch || !strings.Contains(r.Verdict.Summary, want) {
			t.Errorf("verdict %s %q, want NodeAffinityMismatch saying %q", r.Verdict.Cause, r.Verdict.Summary, want)
		}
	}
	if !strings.HasPrefix(r.Verdict.NextStep, "kubectl get nodes -l disktype=ssd") {
		t.Errorf("next step %q", r.Verdict.NextStep)
	}
}
