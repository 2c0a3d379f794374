package diagnose

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// walkT0 is the fixed clock of the walk tests.
var walkT0 = time.Date(2026, 5, 17, 9, 45, 0, 0, time.UTC)

// walkSnapshot is Deployment shop/web with its one ReplicaSet
// web-5d8f9c7b6 for the same template, no pods, and the given events.
func walkSnapshot(evs ...chain.Event) *chain.Snapshot {
	yes := true
	tmpl := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "registry.lab.internal/shop/web:1.4.2"}}},
	}
	three := int32(3)
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "d-uid", Generation: 1,
			CreationTimestamp: metav1.NewTime(walkT0)},
		Spec:   appsv1.DeploymentSpec{Replicas: &three, Template: tmpl},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 1},
	}
	rsTmpl := *tmpl.DeepCopy()
	rsTmpl.Labels["pod-template-hash"] = "5d8f9c7b6"
	rs := appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-5d8f9c7b6", UID: "rs-uid",
			CreationTimestamp: metav1.NewTime(walkT0),
			Annotations:       map[string]string{"deployment.kubernetes.io/revision": "1"},
			OwnerReferences:   []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "d-uid", Controller: &yes}}},
		Spec: appsv1.ReplicaSetSpec{Replicas: &three, Template: rsTmpl},
	}
	now := walkT0
	for _, e := range evs {
		if e.Last.After(now) {
			now = e.Last
		}
	}
	return &chain.Snapshot{Now: now, Namespace: "shop", Name: "web", Deployment: d,
		ReplicaSets: []appsv1.ReplicaSet{rs}, Events: evs}
}

func failedCreateEvent(msg string, first, last time.Duration, count int32) chain.Event {
	return chain.Event{Type: corev1.EventTypeWarning, Reason: "FailedCreate", Message: msg,
		Object: chain.ObjectRef{Kind: "ReplicaSet", Name: "web-5d8f9c7b6", UID: "rs-uid"},
		Count:  count, First: walkT0.Add(first), Last: walkT0.Add(last), Source: "replicaset-controller"}
}

// TestWalkFailedCreateEvents covers a ReplicaSet refused by admission whose
// ReplicaFailure condition is gone, so only its events tell: each refused
// pod name is an event of its own until client-go's correlator combines
// them (tools/record/events_cache.go "(combined from similar events): ").
// The walk decodes the newest without that prefix, keeps it verbatim as
// evidence, and counts all of them from the oldest.
func TestWalkFailedCreateEvents(t *testing.T) {
	// controller_utils.go "Error creating: %v"; apiserver resourcequota
	// controller.go "exceeded quota: %s, requested: %s, used: %s, limited: %s"
	quota := func(pod string) string {
		return `Error creating: pods "` + pod + `" is forbidden: exceeded quota: compute, requested: requests.cpu=250m, used: requests.cpu=3900m, limited: requests.cpu=4`
	}
	combined := failedCreateEvent("(combined from similar events): "+quota("web-5d8f9c7b6-q7x2m"), 3*time.Minute, 5*time.Minute, 4)
	s := walkSnapshot(
		failedCreateEvent(quota("web-5d8f9c7b6-k2m9x"), 0, 0, 1),
		failedCreateEvent(quota("web-5d8f9c7b6-p4tz8"), 10*time.Second, 10*time.Second, 1),
		combined,
	)
	r := Walk(s, Options{})

	d := decode.FailedCreate(quota("web-5d8f9c7b6-q7x2m"))
	if d.Cause != decode.QuotaExceeded {
		t.Fatalf("the decoder no longer names the quota: %+v", d)
	}
	want := chain.Link{ID: chain.LinkPods, Status: chain.StatusBroken, Summary: "0/3 pods created",
		Findings: []chain.Finding{{
			Cause: decode.QuotaExceeded, Summary: d.Summary, NextStep: "kubectl describe resourcequota compute -n shop; then lower spec.template.spec.containers[].resources for requests.cpu, or raise the quota's spec.hard",
			Terminal: true, Objects: []string{"replicaset/web-5d8f9c7b6"}, Details: d.Details,
			Evidence: []chain.Evidence{{Source: chain.SourceEvent, Object: "replicaset/web-5d8f9c7b6", Type: corev1.EventTypeWarning,
				Reason: "FailedCreate", Message: combined.Message, Count: 4, Last: combined.Last}},
			Since: walkT0, Repeats: 6,
		}}}
	if diff := cmp.Diff(want, *r.Link(chain.LinkPods)); diff != "" {
		t.Errorf("pods link mismatch (-want +got):\n%s", diff)
	}
	if r.Verdict.Cause != decode.QuotaExceeded || r.Verdict.Health != chain.Broken {
		t.Errorf("verdict = %+v, want broken QuotaExceeded", r.Verdict)
	}
}

// TestEventMessage keeps only the correlator's prefix off.
func TestEventMessage(t *testing.T) {
	for msg, want := range map[string]string{
		"(combined from similar events): Error creating: x": "Error creating: x",
		"Error creating: x": "Error creating: x",
		"":                  "",
		"(combined from similar events): (combined from similar events): y": "(combined from similar events): y",
	} {
		if got := eventMessage(chain.Event{Message: msg}); got != want {
			t.Errorf("eventMessage(%q) = %q, want %q", msg, got, want)
		}
	}
}

// TestDuringRun: a probe or hook event explains a termination only when it
// happened during that run, give or take eventSlack; an aggregated event
// counts when its span overlaps the run.
func TestDuringRun(t *testing.T) {
	run := corev1.ContainerStateTerminated{ExitCode: 137,
		StartedAt: metav1.NewTime(walkT0), FinishedAt: metav1.NewTime(walkT0.Add(time.Minute))}
	ev := func(first, last time.Duration) chain.Event {
		return chain.Event{First: walkT0.Add(first), Last: walkT0.Add(last)}
	}
	tests := []struct {
		name string
		e    chain.Event
		t    corev1.ContainerStateTerminated
		want bool
	}{
		{"before the run", ev(-10*time.Minute, -6*time.Second), run, false},
		{"just before the start, within the slack", ev(-4*time.Second, -4*time.Second), run, true},
		{"during the run", ev(30*time.Second, 30*time.Second), run, true},
		{"just after the end, within the slack", ev(64*time.Second, 64*time.Second), run, true},
		{"after the end", ev(66*time.Second, 66*time.Second), run, false},
		{"a series spanning the run", ev(-time.Hour, time.Hour), run, true},
		{"no finish time rules nothing out", ev(-time.Hour, -time.Hour),
			corev1.ContainerStateTerminated{ExitCode: 1}, true},
	}
	for _, tc := range tests {
		if got := duringRun(tc.e, tc.t); got != tc.want {
			t.Errorf("%s: duringRun = %v, want %v", tc.name, got, tc.want)
		}
	}
}
