package serve

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// record writes an Event on each workload whose verdict changed since the
// last judgement (not on one first seen: a restarted watcher would repeat
// every verdict).
func (w *sink) record(ctx context.Context, changes []Change, snaps []*chain.Snapshot, now time.Time) {
	involved := map[Key]corev1.ObjectReference{}
	for _, s := range snaps {
		if ref, ok := involvedObject(s); ok {
			involved[Key{Namespace: s.Namespace, Kind: string(s.KindOf()), Name: s.Name}] = ref
		}
	}
	host, _ := os.Hostname()
	for _, c := range changes {
		if c.From.Health == "" {
			continue
		}
		ev := verdictEvent(c, involved[c.Key], now, host)
		if _, err := w.client.CoreV1().Events(c.Key.Namespace).Create(ctx, ev, metav1.CreateOptions{}); err != nil && ctx.Err() == nil {
			fmt.Fprintf(w.notes, "recording the event on %s/%s: %v\n", strings.ToLower(c.Key.Kind), c.Key.Name, err)
		}
	}
}

// involvedObject is the snapshot's own object as an Event names it: a
// kind of the kinds table by its row, any other by where discovery found
// it. False when the snapshot does not hold it.
func involvedObject(s *chain.Snapshot) (corev1.ObjectReference, bool) {
	var (
		obj        metav1.Object
		apiVersion string
	)
	if row, ok := chain.RowOf(s.KindOf()); ok && !s.IsResource() {
		obj, apiVersion = row.Object(s), row.API().APIVersion()
	} else if s.Object != nil && s.API != nil {
		obj, apiVersion = s.Object, s.API.APIVersion()
	}
	if obj == nil {
		return corev1.ObjectReference{}, false
	}
	return corev1.ObjectReference{APIVersion: apiVersion, UID: obj.GetUID()}, true
}

// verdictEvent is the Event of a verdict change: Warning when it broke,
// Normal otherwise; the cause and the next step in its message.
func verdictEvent(c Change, involved corev1.ObjectReference, now time.Time, host string) *corev1.Event {
	v := c.Report.Verdict
	reason, typ := "Chain"+strings.ToUpper(string(v.Health[:1]))+string(v.Health[1:]), corev1.EventTypeNormal
	msg := fmt.Sprintf("kubectl chain: %s", v.Health)
	if v.Health == chain.Broken {
		typ = corev1.EventTypeWarning
	}
	if v.Link != "" {
		msg += fmt.Sprintf(" at %s", v.Link)
	}
	if v.Cause != "" {
		msg += fmt.Sprintf(": %s", v.Cause)
	}
	if v.Summary != "" {
		msg += " (" + v.Summary + ")"
	}
	if v.NextStep != "" {
		msg += "; next: " + v.NextStep
	}
	if c.From.Health != "" {
		msg += fmt.Sprintf("; was %s", c.From.Health)
	}
	if len(msg) > 1024 {
		msg = msg[:1021] + "..."
	}
	t := metav1.NewTime(now)
	return &corev1.Event{
		ObjectMeta:          metav1.ObjectMeta{GenerateName: c.Key.Name + ".", Namespace: c.Key.Namespace},
		InvolvedObject:      corev1.ObjectReference{APIVersion: involved.APIVersion, Kind: c.Key.Kind, Namespace: c.Key.Namespace, Name: c.Key.Name, UID: involved.UID},
		Reason:              reason,
		Message:             msg,
		Type:                typ,
		Source:              corev1.EventSource{Component: "kubectl-chain"},
		FirstTimestamp:      t,
		LastTimestamp:       t,
		Count:               1,
		ReportingController: "kubectl-chain",
		ReportingInstance:   host,
	}
}
