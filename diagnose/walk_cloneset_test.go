package diagnose

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// cloneSetSpec is OpenKruise's sample CloneSet (its docs' user manual) of
// 3 replicas in shop, at generation 2, with spec.updateStrategy and status
// appended by each case.
const cloneSetSpec = `apiVersion: apps.kruise.io/v1alpha1
kind: CloneSet
metadata: {namespace: shop, name: web, uid: cs-uid, generation: 2, creationTimestamp: "2026-05-17T09:00:00Z"}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx:alpine}]}
`

// quotaRefusal is the CloneSet controller's FailedCreate message
// (cloneset_scale.go createOnePod) around the quota admission's error.
const quotaRefusal = `pods "web-x7k2p" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=10, limited: pods=10`

// cloneSetSnapshot is the CloneSet of the update strategy and status
// given (YAML under spec and at the top), with running pods of it, ready
// or not, and the events given.
func cloneSetSnapshot(t *testing.T, strategy, status string, pods int, ready bool, evs ...chain.Event) *chain.Snapshot {
	t.Helper()
	// As the API's clients give it: integers int64 (UnmarshalJSON).
	js, err := yaml.YAMLToJSON([]byte(cloneSetSpec + "  updateStrategy: " + strategy + "\n" + status))
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(js); err != nil {
		t.Fatal(err)
	}
	s := &chain.Snapshot{Kind: chain.KindCloneSet, Now: walkT0, Namespace: "shop", Name: "web", CloneSet: u, Events: evs}
	for _, name := range []string{"web-a1b2c", "web-d3e4f", "web-g5h6i"}[:pods] {
		s.Pods = append(s.Pods, kindPod(name, u, "CloneSet", corev1.PodRunning, ready, map[string]string{"app": "web"}))
	}
	return s
}

func TestWalkCloneSet(t *testing.T) {
	const (
		done    = "status: {observedGeneration: 2, replicas: 3, readyReplicas: 3, availableReplicas: 3, updatedReplicas: 3, updatedReadyReplicas: 3, updateRevision: web-2, currentRevision: web-2}"
		oneNew  = "status: {observedGeneration: 2, replicas: 3, readyReplicas: 3, availableReplicas: 3, updatedReplicas: 1, updatedReadyReplicas: 1, updateRevision: web-2, currentRevision: web-1}"
		twoNew  = "status: {observedGeneration: 2, replicas: 3, readyReplicas: 3, availableReplicas: 3, updatedReplicas: 2, updatedReadyReplicas: 2, updateRevision: web-2, currentRevision: web-1}"
		unseen  = "status: {observedGeneration: 1, replicas: 3, readyReplicas: 3, availableReplicas: 3, updatedReplicas: 3, updateRevision: web-1, currentRevision: web-1}"
		short   = "status: {observedGeneration: 2, replicas: 1, readyReplicas: 1, availableReplicas: 1, updatedReplicas: 1, updatedReadyReplicas: 1, updateRevision: web-2, currentRevision: web-2}"
		refused = `status:
  observedGeneration: 2
  replicas: 1
  readyReplicas: 1
  availableReplicas: 1
  updatedReplicas: 1
  conditions: [{type: FailedScale, status: "True", lastTransitionTime: "2026-05-17T09:40:00Z", message: '` + quotaRefusal + `'}]`
	)
	failedCreate := chain.Event{Type: corev1.EventTypeWarning, Reason: "FailedCreate", Object: chain.ObjectRef{Kind: "CloneSet", Name: "web", UID: "cs-uid"},
		Message: "failed to create pod: " + quotaRefusal + `, pod: {"metadata":{"name":"web-x7k2p","namespace":"shop"}}`,
		Count:   4, First: walkT0.Add(-5 * time.Minute), Last: walkT0}
	for _, tt := range []struct {
		name             string
		strategy, status string
		pods             int
		ready            bool
		evs              []chain.Event
		health           chain.Health
		link             chain.LinkID
		cause            chain.CauseID
		says             string // in the verdict's summary, or the chain's notes
	}{
		{"healthy", "{}", done, 3, true, nil, chain.Healthy, "", "", "rolling update complete: 3 pods at revision web-2"},
		{"pods not ready", "{}", done, 3, false, nil, chain.Progressing, chain.LinkReady, decode.PodNotReady, ""},
		{"update paused midway", "{paused: true}", oneNew, 3, true, nil, chain.Broken, chain.LinkStored, decode.CloneSetPaused,
			"the update is paused with 1 of 3 pods at the update revision"},
		{"paused after its update", "{paused: true}", done, 3, true, nil, chain.Healthy, "", "", "updateStrategy paused: template changes will not roll out"},
		{"partition keeps one at its revision", "{partition: 1}", twoNew, 3, true, nil, chain.Healthy, "", "",
			"partitioned roll out complete: 2 new pods have been updated, partition 1 keeps the rest at revision web-1"},
		{"partition not reached", "{partition: 33%}", oneNew, 3, true, nil, chain.Progressing, chain.LinkReady, decode.RolloutInProgress,
			"partitioned roll out: 1 out of 2 new pods have been updated"},
		{"spec not observed", "{}", unseen, 3, true, nil, chain.Progressing, chain.LinkStored, decode.GenerationNotObserved, "generation 2 not observed yet (observed 1)"},
		{"its FailedCreate events say why pods are missing", "{}", short, 1, true, []chain.Event{failedCreate}, chain.Broken, chain.LinkPods, decode.QuotaExceeded, `exceeded quota "compute"`},
		{"its FailedScale condition says why, its events gone", "{}", refused, 1, true, nil, chain.Broken, chain.LinkPods, decode.QuotaExceeded, `exceeded quota "compute"`},
		{"nothing says why", "{}", short, 1, true, nil, chain.Progressing, chain.LinkPods, decode.CloneSetPodsNotCreated, "2 of 3 pods not created yet"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := Walk(cloneSetSnapshot(t, tt.strategy, tt.status, tt.pods, tt.ready, tt.evs...), Options{})
			if r.Verdict.Health != tt.health || r.Verdict.Link != tt.link || r.Verdict.Cause != tt.cause {
				t.Fatalf("verdict %s at %s (%s), want %s at %s (%s)\n%s", r.Verdict.Health, r.Verdict.Link, r.Verdict.Cause, tt.health, tt.link, tt.cause, linkLines(r))
			}
			if len(r.Links) != len(chain.ChainOf(chain.KindCloneSet)) {
				t.Errorf("%d links, want the CloneSet's chain of %d", len(r.Links), len(chain.ChainOf(chain.KindCloneSet)))
			}
			said := r.Verdict.Summary
			for _, l := range r.Links {
				said += "\n" + l.Summary + "\n" + strings.Join(l.Notes, "\n")
			}
			if !strings.Contains(said, tt.says) {
				t.Errorf("want %q said\n%s", tt.says, said)
			}
		})
	}
}

// TestWalkCloneSetSteps: the next steps name the CloneSet's own
// controller and commands, not a Deployment's.
func TestWalkCloneSetSteps(t *testing.T) {
	for _, tt := range []struct{ status, strategy, want string }{
		{"status: {observedGeneration: 1}", "{}", "if it lasts, OpenKruise's controller is not running or not watching the namespace: kubectl get pods -n kruise-system"},
		{"status: {observedGeneration: 2, replicas: 3, readyReplicas: 3, availableReplicas: 3, updatedReplicas: 1}", "{}", "wait, or follow it: kubectl chain clone/web -n shop --wait"},
		{"status: {observedGeneration: 2, replicas: 3, updatedReplicas: 1}", "{paused: true}",
			`kubectl patch cloneset/web -n shop --type=merge -p '{"spec":{"updateStrategy":{"paused":false}}}'`},
	} {
		r := Walk(cloneSetSnapshot(t, tt.strategy, tt.status, 3, true), Options{})
		if r.Verdict.NextStep != tt.want {
			t.Errorf("%s: next step %q, want %q", tt.status, r.Verdict.NextStep, tt.want)
		}
	}
}
