package chain

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var (
	t1 = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	t2 = t1.Add(time.Minute)
	t3 = t1.Add(2 * time.Minute)
)

// TestEventFromCore covers the shapes real clusters hold: the record
// package's count and timestamps, a series, and no timestamp at all.
func TestEventFromCore(t *testing.T) {
	ref := corev1.ObjectReference{Kind: "Pod", Name: "web-1", UID: "u1", FieldPath: "spec.containers{web}"}
	tests := []struct {
		name string
		in   corev1.Event
		want Event
	}{
		{"count and timestamps", corev1.Event{InvolvedObject: ref, Type: "Warning", Reason: "Failed", Message: "m", Count: 4,
			FirstTimestamp: metav1.NewTime(t1), LastTimestamp: metav1.NewTime(t2), Source: corev1.EventSource{Component: "kubelet"}},
			Event{Type: "Warning", Reason: "Failed", Message: "m", Object: ObjectRef{Kind: "Pod", Name: "web-1", UID: "u1"},
				FieldPath: "spec.containers{web}", Count: 4, First: t1, Last: t2, Source: "kubelet"}},
		{"series and event time", corev1.Event{InvolvedObject: ref, Reason: "FailedScheduling", EventTime: metav1.NewMicroTime(t1),
			Series: &corev1.EventSeries{Count: 7, LastObservedTime: metav1.NewMicroTime(t3)}, ReportingController: "default-scheduler"},
			Event{Reason: "FailedScheduling", Object: ObjectRef{Kind: "Pod", Name: "web-1", UID: "u1"}, FieldPath: "spec.containers{web}",
				Count: 7, First: t1, Last: t3, Source: "default-scheduler"}},
		{"no time at all", corev1.Event{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(t2)}, InvolvedObject: ref, Reason: "X"},
			Event{Reason: "X", Object: ObjectRef{Kind: "Pod", Name: "web-1", UID: "u1"}, FieldPath: "spec.containers{web}",
				Count: 1, First: t2, Last: t2}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, EventFromCore(&tt.in)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestEventFromEventsV1(t *testing.T) {
	in := eventsv1.Event{Regarding: corev1.ObjectReference{Kind: "Pod", Name: "web-1"}, Reason: "FailedScheduling", Note: "0/3 nodes are available",
		Type: "Warning", EventTime: metav1.NewMicroTime(t1), Series: &eventsv1.EventSeries{Count: 3, LastObservedTime: metav1.NewMicroTime(t2)},
		ReportingController: "default-scheduler"}
	want := Event{Type: "Warning", Reason: "FailedScheduling", Message: "0/3 nodes are available", Object: ObjectRef{Kind: "Pod", Name: "web-1"},
		Count: 3, First: t1, Last: t2, Source: "default-scheduler"}
	if diff := cmp.Diff(want, EventFromEventsV1(&in)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
