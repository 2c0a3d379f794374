package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// rolloutCapture is an Argo Rollout aborted by its analysis, with its
// ReplicaSet and pod, as kubectl get -o yaml prints them: the status of
// argo-rollouts PR #1924's thread, in the shape sync.go writes.
const rolloutCapture = `apiVersion: v1
kind: List
items:
- apiVersion: argoproj.io/v1alpha1
  kind: Rollout
  metadata: {namespace: shop, name: web, uid: ro-uid, generation: 2, creationTimestamp: "2026-05-17T09:00:00Z"}
  spec:
    replicas: 1
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec: {containers: [{name: web, image: registry.lab.internal/web:2}]}
    strategy: {canary: {steps: [{setWeight: 20}, {analysis: {templates: [{templateName: success-rate}]}}]}}
  status:
    abort: true
    currentPodHash: 98447df77
    stableRS: 687d76d795
    observedGeneration: "2"
    phase: Degraded
    canary:
      currentStepAnalysisRunStatus: {name: web-98447df77-2-1, status: Failed, message: 'Metric "success-rate" assessed Failed due to failed (1) > failureLimit (0)'}
    conditions:
    - {type: Progressing, status: "False", reason: RolloutAborted, lastTransitionTime: "2026-05-17T09:40:00Z", message: 'Rollout aborted update to revision 2: Step-based analysis phase error/failed: Metric "success-rate" assessed Failed due to failed (1) > failureLimit (0)'}
- apiVersion: apps/v1
  kind: ReplicaSet
  metadata:
    namespace: shop
    name: web-687d76d795
    uid: rs-uid
    creationTimestamp: "2026-05-17T09:00:00Z"
    labels: {app: web, rollouts-pod-template-hash: 687d76d795}
    ownerReferences: [{apiVersion: argoproj.io/v1alpha1, kind: Rollout, name: web, uid: ro-uid, controller: true}]
  spec: {replicas: 1, selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: web, image: registry.lab.internal/web:1}]}}}
`

// TestRolloutOffline: a Rollout in a file walks as live: -f rollout/NAME,
// and -f alone when it is the only workload named.
func TestRolloutOffline(t *testing.T) {
	file := filepath.Join(t.TempDir(), "rollout.yaml")
	if err := os.WriteFile(file, []byte(rolloutCapture), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runWith(t, nil, "rollout/web", "-f", file, "-o", "json")
	var rep chain.Report
	decodeJSON(t, r.stdout, &rep)
	if r.code != ExitBroken || rep.Kind != chain.KindRollout || rep.Verdict.Link != chain.LinkRollout || rep.Verdict.Cause != "RolloutAborted" {
		t.Errorf("exit %d, %s verdict %+v; want %d, Rollout broken at rollout (RolloutAborted)\n%s", r.code, rep.Kind, rep.Verdict, ExitBroken, r.stderr)
	}
	if !strings.Contains(r.stdout, "web-98447df77-2-1") {
		t.Errorf("the AnalysisRun is not quoted:\n%s", r.stdout)
	}
}
