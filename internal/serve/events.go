package serve

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// record writes an Event on each workload whose verdict changed since the
// last judgement (not on one first seen: a restarted watcher would repeat
// every verdict).
func (w *sink) record(ctx context.Context, changes []Change, snaps []*chain.Snapshot, now time.Time) {
	uids := map[Key]types.UID{}
	for _, s := range snaps {
		if obj := workloadObject(s); obj != nil {
			uids[Key{Namespace: s.Namespace, Kind: string(s.KindOf()), Name: s.Name}] = obj.GetUID()
		}
	}
	host, _ := os.Hostname()
	for _, c := range changes {
		if c.From.Health == "" {
			continue
		}
		ev := verdictEvent(c, uids[c.Key], now, host)
		if _, err := w.client.CoreV1().Events(c.Key.Namespace).Create(ctx, ev, metav1.CreateOptions{}); err != nil && ctx.Err() == nil {
			fmt.Fprintf(w.notes, "recording the event on %s/%s: %v\n", strings.ToLower(c.Key.Kind), c.Key.Name, err)
		}
	}
}

// workloadObject is the snapshot's own workload object.
func workloadObject(s *chain.Snapshot) metav1.Object {
	switch {
	case s.Deployment != nil:
		return s.Deployment
	case s.StatefulSet != nil:
		return s.StatefulSet
	case s.DaemonSet != nil:
		return s.DaemonSet
	case s.CronJob != nil:
		return s.CronJob
	case s.Job != nil:
		return s.Job
	}
	return nil
}

// apiVersions of the kinds an Event names.
var apiVersions = map[string]string{string(chain.KindDeployment): "apps/v1", string(chain.KindStatefulSet): "apps/v1",
	string(chain.KindDaemonSet): "apps/v1", string(chain.KindJob): "batch/v1", string(chain.KindCronJob): "batch/v1"}

// verdictEvent is the Event of a verdict change: Warning when it broke,
// Normal otherwise; the cause and the next step in its message.
func verdictEvent(c Change, uid types.UID, now time.Time, host string) *corev1.Event {
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
		InvolvedObject:      corev1.ObjectReference{APIVersion: apiVersions[c.Key.Kind], Kind: c.Key.Kind, Namespace: c.Key.Namespace, Name: c.Key.Name, UID: uid},
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
