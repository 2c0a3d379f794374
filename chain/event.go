package chain

import (
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Event is one event in the form the walk reads, whichever API it came from.
// Real clusters hold both shapes: core/v1 events with count and lastTimestamp
// (client-go's record package, used by the kubelet and most controllers) and
// events.k8s.io/v1 events with series and eventTime (the scheduler), and some
// of either have empty timestamps.
type Event struct {
	Type    string `json:"type"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
	// Object is the object the event is about.
	Object ObjectRef `json:"object"`
	// FieldPath narrows the object, e.g. "spec.containers{web}".
	FieldPath string `json:"fieldPath,omitempty"`
	// Count is how many times it happened (at least 1).
	Count int32 `json:"count"`
	// First and Last bound when it happened; zero when the event carried no
	// time at all.
	First time.Time `json:"first,omitzero"`
	Last  time.Time `json:"last,omitzero"`
	// Source is the component that reported it ("kubelet", "default-scheduler").
	Source string `json:"source,omitempty"`
}

// ObjectRef names an object by kind, name and UID.
type ObjectRef struct {
	Kind string    `json:"kind"`
	Name string    `json:"name"`
	UID  types.UID `json:"uid,omitempty"`
}

// EventFromCore normalises a core/v1 event.
func EventFromCore(e *corev1.Event) Event {
	ev := Event{
		Type:      e.Type,
		Reason:    e.Reason,
		Message:   e.Message,
		Object:    ObjectRef{Kind: e.InvolvedObject.Kind, Name: e.InvolvedObject.Name, UID: e.InvolvedObject.UID},
		FieldPath: e.InvolvedObject.FieldPath,
		Count:     e.Count,
		First:     e.FirstTimestamp.Time,
		Last:      e.LastTimestamp.Time,
		Source:    e.Source.Component,
	}
	if ev.Source == "" {
		ev.Source = e.ReportingController
	}
	if ev.First.IsZero() {
		ev.First = e.EventTime.Time
	}
	if e.Series != nil {
		ev.series(e.Series.Count, e.Series.LastObservedTime.Time)
	}
	ev.settle(e.CreationTimestamp.Time)
	return ev
}

// EventFromEventsV1 normalises an events.k8s.io/v1 event.
func EventFromEventsV1(e *eventsv1.Event) Event {
	ev := Event{
		Type:      e.Type,
		Reason:    e.Reason,
		Message:   e.Note,
		Object:    ObjectRef{Kind: e.Regarding.Kind, Name: e.Regarding.Name, UID: e.Regarding.UID},
		FieldPath: e.Regarding.FieldPath,
		Count:     e.DeprecatedCount,
		First:     e.EventTime.Time,
		Last:      e.DeprecatedLastTimestamp.Time,
		Source:    e.ReportingController,
	}
	if ev.Source == "" {
		ev.Source = e.DeprecatedSource.Component
	}
	if ev.First.IsZero() {
		ev.First = e.DeprecatedFirstTimestamp.Time
	}
	if e.Series != nil {
		ev.series(e.Series.Count, e.Series.LastObservedTime.Time)
	}
	ev.settle(e.CreationTimestamp.Time)
	return ev
}

// series folds an event series (the newer API's way to count repeats) into
// the count and last time.
func (ev *Event) series(count int32, last time.Time) {
	if count > ev.Count {
		ev.Count = count
	}
	if last.After(ev.Last) {
		ev.Last = last
	}
}

// settle fills what the event left empty: a missing last time is the first,
// an event with no time at all is dated by its creation, and every event
// happened at least once.
func (ev *Event) settle(created time.Time) {
	if ev.Last.IsZero() {
		ev.Last = ev.First
	}
	if ev.First.IsZero() {
		ev.First, ev.Last = created, created
	}
	if ev.Count < 1 {
		ev.Count = 1
	}
}

// SortEvents orders events newest last, with a stable tie-break so output
// never depends on the order the API server returned them in.
func SortEvents(evs []Event) {
	sort.SliceStable(evs, func(i, j int) bool {
		a, b := evs[i], evs[j]
		if !a.Last.Equal(b.Last) {
			return a.Last.Before(b.Last)
		}
		if a.Object.Name != b.Object.Name {
			return a.Object.Name < b.Object.Name
		}
		if a.Reason != b.Reason {
			return a.Reason < b.Reason
		}
		return a.Message < b.Message
	})
}

// EventsFor returns the events about one object, oldest first. UID is matched
// when both sides carry one, so an event about an earlier object of the same
// name is not blamed on the current one.
func (s *Snapshot) EventsFor(kind, name string, uid types.UID) []Event {
	var out []Event
	for _, e := range s.Events {
		if e.Object.Kind != kind || e.Object.Name != name {
			continue
		}
		if uid != "" && e.Object.UID != "" && e.Object.UID != uid {
			continue
		}
		out = append(out, e)
	}
	SortEvents(out)
	return out
}
