package diagnose

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// rolloutSpec is a canary Rollout shop/web of 2 replicas (steps from
// argo-rollouts#839: setWeight 5, then a pause without duration), with
// status appended by each case.
const rolloutSpec = `apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {namespace: shop, name: web, uid: ro-uid, generation: 3, creationTimestamp: "2026-05-17T09:00:00Z"}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: registry.lab.internal/shop/web:2}]}
  strategy:
    canary:
      steps:
      - setWeight: 5
      - pause: {}
`

// Statuses, each in the shape the Rollouts controller v1.x writes:
//   - aborted: the status of argo-rollouts PR #1924's thread (abort true,
//     the step's AnalysisRun Failed with its message) with the
//     Progressing condition sync.go writes on an abort ("Rollout aborted
//     update to revision %d: " and analysis.go's "Step-based analysis
//     phase error/failed: " before the run's message).
//   - paused: argo-rollouts#839 (Paused at step 1/2, the pause step).
//   - deadline: argo-rollouts#1225's message ("ProgressDeadlineExceeded:
//     ReplicaSet %q has timed out progressing.").
//   - invalid: argo-rollouts PR #729's InvalidSpec condition.
const (
	abortedStatus = `status:
  abort: true
  abortedAt: "2026-05-17T09:40:00Z"
  currentPodHash: 98447df77
  stableRS: 687d76d795
  currentStepIndex: 0
  observedGeneration: "3"
  phase: Degraded
  message: 'RolloutAborted: Rollout aborted update to revision 2: Step-based analysis phase error/failed: Metric "success-rate" assessed Failed due to failed (1) > failureLimit (0)'
  canary:
    currentStepAnalysisRunStatus:
      message: Metric "success-rate" assessed Failed due to failed (1) > failureLimit (0)
      name: rollouts-demo-98447df77-2-4
      status: Failed
  conditions:
  - {type: Progressing, status: "False", reason: RolloutAborted, lastTransitionTime: "2026-05-17T09:40:00Z", message: 'Rollout aborted update to revision 2: Step-based analysis phase error/failed: Metric "success-rate" assessed Failed due to failed (1) > failureLimit (0)'}
`
	pausedStatus = `status:
  currentPodHash: 98447df77
  stableRS: 687d76d795
  currentStepIndex: 1
  controllerPause: true
  pauseConditions: [{reason: CanaryPauseStep, startTime: "2026-05-17T09:30:00Z"}]
  observedGeneration: "3"
  phase: Paused
  message: CanaryPauseStep
`
	deadlineStatus = `status:
  currentPodHash: 98447df77
  stableRS: 687d76d795
  currentStepIndex: 0
  observedGeneration: "3"
  phase: Degraded
  message: 'ProgressDeadlineExceeded: ReplicaSet "web-98447df77" has timed out progressing.'
  conditions:
  - {type: Progressing, status: "False", reason: ProgressDeadlineExceeded, lastTransitionTime: "2026-05-17T09:40:00Z", message: 'ReplicaSet "web-98447df77" has timed out progressing.'}
`
	invalidStatus = `status:
  observedGeneration: "3"
  phase: Degraded
  conditions:
  - {type: InvalidSpec, status: "True", reason: InvalidSpec, lastTransitionTime: "2026-05-17T09:40:00Z", message: 'The Rollout "web" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"doesnt-match"}: ` + "`selector` does not match template `labels`" + `'}
`
	healthyStatus = `status:
  currentPodHash: 98447df77
  stableRS: 98447df77
  currentStepIndex: 2
  observedGeneration: "3"
  phase: Healthy
  replicas: 2
  updatedReplicas: 2
  readyReplicas: 2
  availableReplicas: 2
`
)

// rolloutSnapshot is the Rollout of status st with its current
// ReplicaSet web-98447df77 (hash 98447df77) and its pods, running and
// ready or not.
func rolloutSnapshot(t *testing.T, st string, ready bool) *chain.Snapshot {
	t.Helper()
	var u unstructured.Unstructured
	if err := yaml.Unmarshal([]byte(rolloutSpec+st), &u.Object); err != nil {
		t.Fatal(err)
	}
	ro, err := chain.DecodeRollout(&u)
	if err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{"app": "web", chain.RolloutHashLabel: "98447df77"}
	tmpl := *ro.Spec.Template.DeepCopy()
	tmpl.Labels = labels
	rs := appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-98447df77", UID: "rs-uid", Labels: labels,
			CreationTimestamp: metav1.NewTime(walkT0),
			OwnerReferences:   []metav1.OwnerReference{{APIVersion: "argoproj.io/v1alpha1", Kind: "Rollout", Name: "web", UID: "ro-uid", Controller: ptr.To(true)}}},
		Spec:   appsv1.ReplicaSetSpec{Replicas: ptr.To(int32(2)), Template: tmpl},
		Status: appsv1.ReplicaSetStatus{Replicas: 2},
	}
	phase := corev1.PodRunning
	pods := []corev1.Pod{kindPod("web-98447df77-a", &rs, "ReplicaSet", phase, ready, labels), kindPod("web-98447df77-b", &rs, "ReplicaSet", phase, ready, labels)}
	return &chain.Snapshot{Kind: chain.KindRollout, Now: walkT0, Namespace: "shop", Name: "web", Rollout: ro,
		ReplicaSets: []appsv1.ReplicaSet{rs}, Pods: pods}
}

func TestWalkRollout(t *testing.T) {
	for _, tt := range []struct {
		name   string
		status string
		ready  bool
		health chain.Health
		link   chain.LinkID
		cause  chain.CauseID
		says   string // in the finding's summary
	}{
		{"aborted by its analysis", abortedStatus, true, chain.Broken, chain.LinkRollout, decode.RolloutAborted, `metric "success-rate" assessed Failed (failed (1) > failureLimit (0))`},
		{"paused at a pause step without duration", pausedStatus, true, chain.Broken, chain.LinkRollout, decode.RolloutPaused, "paused at step 2/2 (pause), waiting for a promotion"},
		{"progress deadline, nothing later broken", deadlineStatus, true, chain.Broken, chain.LinkRollout, decode.RolloutProgressDeadline, `ReplicaSet "web-98447df77" has timed out progressing`},
		{"invalid spec", invalidStatus, true, chain.Broken, chain.LinkRollout, decode.RolloutInvalidSpec, "`selector` does not match template `labels`"},
		{"healthy", healthyStatus, true, chain.Healthy, "", "", ""},
		{"healthy phase, pods not ready", healthyStatus, false, chain.Progressing, chain.LinkReady, decode.PodNotReady, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := Walk(rolloutSnapshot(t, tt.status, tt.ready), Options{})
			if r.Verdict.Health != tt.health || r.Verdict.Link != tt.link || r.Verdict.Cause != tt.cause {
				t.Fatalf("verdict %s at %s (%s), want %s at %s (%s)\n%s", r.Verdict.Health, r.Verdict.Link, r.Verdict.Cause, tt.health, tt.link, tt.cause, linkLines(r))
			}
			if len(r.Links) != len(chain.ChainOf(chain.KindRollout)) {
				t.Errorf("%d links, want the Rollout's chain of %d", len(r.Links), len(chain.ChainOf(chain.KindRollout)))
			}
			if tt.says == "" {
				return
			}
			f := r.Links[1].Findings
			if len(f) == 0 || !strings.Contains(f[0].Summary, tt.says) {
				t.Errorf("rollout link's findings %+v, want one saying %q", f, tt.says)
			}
		})
	}
}

// TestWalkRolloutDeadlineNote: a later broken link is the cause of a
// missed progress deadline, which stays a note on the rollout link.
func TestWalkRolloutDeadlineNote(t *testing.T) {
	s := rolloutSnapshot(t, deadlineStatus, false)
	for i := range s.Pods {
		s.Pods[i].Status.ContainerStatuses[0].State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff",
			Message: `Back-off pulling image "registry.lab.internal/shop/web:2"`}}
	}
	r := Walk(s, Options{})
	if r.Verdict.Link != chain.LinkContainers {
		t.Fatalf("verdict at %s (%s), want containers\n%s", r.Verdict.Link, r.Verdict.Cause, linkLines(r))
	}
	if notes := strings.Join(r.Links[1].Notes, "\n"); !strings.Contains(notes, "progress deadline exceeded") {
		t.Errorf("rollout link notes %q, want the deadline", notes)
	}
}

// TestWalkRolloutAnalysisEvidence: an abort quotes the AnalysisRun and
// names it in the next step.
func TestWalkRolloutAnalysisEvidence(t *testing.T) {
	r := Walk(rolloutSnapshot(t, abortedStatus, true), Options{})
	f := r.Links[1].Findings[0]
	if !strings.Contains(f.NextStep, "kubectl describe analysisrun rollouts-demo-98447df77-2-4 -n shop") {
		t.Errorf("next step %q, want the AnalysisRun", f.NextStep)
	}
	found := false
	for _, e := range f.Evidence {
		found = found || e.Object == "analysisrun/rollouts-demo-98447df77-2-4" && e.Type == "Failed"
	}
	if !found {
		t.Errorf("evidence %+v, want the AnalysisRun's status", f.Evidence)
	}
}

// linkLines is a report's links, one a line, for failure messages.
func linkLines(r *chain.Report) string {
	var b strings.Builder
	for _, l := range r.Links {
		b.WriteString(string(l.ID) + " " + string(l.Status) + ": " + l.Summary + "\n")
		for _, f := range l.Findings {
			b.WriteString("  " + string(f.Cause) + ": " + f.Summary + "\n")
		}
	}
	return b.String()
}

// TestWalkRolloutWithoutController: a Rollout with no status at all (the
// Argo Rollouts controller is not running) is progressing for the grace,
// then broken at its own link naming that controller, not the Deployment
// controller's steps, which never act on a Rollout.
func TestWalkRolloutWithoutController(t *testing.T) {
	for _, tt := range []struct {
		after  time.Duration
		health chain.Health
	}{{5 * time.Second, chain.Progressing}, {2 * time.Minute, chain.Broken}} {
		s := rolloutSnapshot(t, "", false)
		s.ReplicaSets, s.Pods = nil, nil
		s.Rollout.CreationTimestamp = metav1.NewTime(walkT0)
		s.Now = walkT0.Add(tt.after)
		r := Walk(s, Options{Grace: DefaultGrace})
		v := r.Verdict
		if v.Health != tt.health || v.Link != chain.LinkRollout || v.Cause != decode.RolloutNotReconciled || !strings.Contains(v.NextStep, "argo-rollouts") {
			t.Errorf("%s after creation: %s at %s (%s: %s), want %s at rollout (RolloutNotReconciled)\n%s", tt.after, v.Health, v.Link, v.Cause, v.NextStep, tt.health, linkLines(r))
		}
	}
}
