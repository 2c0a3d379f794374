package decode

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Causes of an Argo Rollout's own link: what the Rollouts controller says
// of the rollout (argo-rollouts utils/conditions/conditions.go and
// utils/rollout/rolloututil.go, v1.10), before its ReplicaSets and pods.
const (
	RolloutInvalidSpec          chain.CauseID = "RolloutInvalidSpec"
	RolloutAborted              chain.CauseID = "RolloutAborted"
	RolloutProgressDeadline     chain.CauseID = "RolloutProgressDeadline"
	RolloutPaused               chain.CauseID = "RolloutPaused"
	RolloutStepPause            chain.CauseID = "RolloutStepPause"
	RolloutAnalysisInconclusive chain.CauseID = "RolloutAnalysisInconclusive"
	RolloutUnpausing            chain.CauseID = "RolloutUnpausing"
	RolloutNotReconciled        chain.CauseID = "RolloutNotReconciled"
)

var rolloutCauses = []Cause{
	{ID: RolloutInvalidSpec, Link: chain.LinkRollout,
		Summary:  "the Rollouts controller refuses the Rollout's spec (its InvalidSpec condition names the field): nothing rolls out until it is fixed",
		NextStep: "fix the field the InvalidSpec condition names: kubectl describe rollout {NAME} -n {NAMESPACE}",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: RolloutAborted, Link: chain.LinkRollout,
		Summary:  "the rollout was aborted (a failed or erroring analysis, a progress deadline with progressDeadlineAbort, or by hand): the Rollouts controller went back to the stable ReplicaSet",
		NextStep: "read why the analysis failed: kubectl describe analysisrun NAME -n {NAMESPACE}; once fixed, push a new revision or retry: kubectl argo rollouts retry rollout NAME -n {NAMESPACE}",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: RolloutProgressDeadline, Link: chain.LinkRollout,
		Summary:  "the rollout made no progress within spec.progressDeadlineSeconds, and nothing later on the chain says why",
		NextStep: "kubectl describe rollout NAME -n {NAMESPACE}, and the current ReplicaSet's pods",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: RolloutPaused, Link: chain.LinkRollout,
		Summary:  "the rollout is paused and waits for a person: a pause step without a duration, a blue-green preview without auto-promotion, or spec.paused",
		NextStep: "promote it once the new version is good: kubectl argo rollouts promote NAME -n {NAMESPACE} (or abort it: kubectl argo rollouts abort NAME)",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: RolloutStepPause, Link: chain.LinkRollout,
		Summary:  "the rollout waits at a timed pause step, and goes on by itself when it ends",
		NextStep: "wait, or follow it: kubectl chain rollout/{NAME} --wait",
		Terminal: TerminalRule{Mode: Transient}},
	{ID: RolloutAnalysisInconclusive, Link: chain.LinkRollout,
		Summary:  "an analysis of the rollout was inconclusive, so the Rollouts controller paused it for a person to decide",
		NextStep: "read the AnalysisRun (kubectl describe analysisrun NAME -n {NAMESPACE}), then promote or abort: kubectl argo rollouts promote|abort NAME",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: RolloutNotReconciled, Link: chain.LinkRollout,
		Summary:  "the Rollout has no status: the Argo Rollouts controller has not acted on it (not installed, not running, or not watching its namespace), and nothing else creates its ReplicaSets",
		NextStep: "check that the Argo Rollouts controller runs and watches {NAMESPACE}: kubectl get pods -A -l app.kubernetes.io/name=argo-rollouts, then its logs",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: RolloutUnpausing, Link: chain.LinkRollout,
		Summary:  "the rollout was resumed and the Rollouts controller has not acted on it yet",
		NextStep: "wait; if it lasts, check the argo-rollouts controller's pods and logs",
		Terminal: TerminalRule{Mode: AfterGrace}},
}

// rolloutReasons are the reasons the Rollouts controller writes its
// messages with, on the Rollout's conditions and events.
var rolloutReasons = []string{"RolloutAborted", "InvalidSpec", "MetricFailed", "MetricError", "MetricInconclusive"}

// abortedRE matches sync.go's "Rollout aborted update to revision %d",
// with ": " and the abort's message when it has one (analysis.go:
// "Step-based analysis phase error/failed: ", "Background analysis phase
// error/failed: " and the blue-green ones, then the AnalysisRun's message,
// analysis/analysis.go "Metric \"%s\" assessed %s due to %s").
var (
	abortedRE  = regexp.MustCompile(`^Rollout aborted update to revision (\d+)(?::\s*(.*))?$`)
	assessedRE = regexp.MustCompile(`Metric "([^"]+)" assessed (Failed|Error|Inconclusive) due to (.*)$`)
	// abortedOld is the RolloutAbortedMsg of releases before v1.1, with no
	// revision: "Rollout is aborted".
	abortedOld = regexp.MustCompile(`^Rollout is aborted\.?$`)
	// The period goes when a user retypes the message.
	timedOutRO = regexp.MustCompile(`^(Rollout|ReplicaSet) "([^"]*)" has timed out progressing\.?$`)
	// invalidRO is the Rollouts controller's own validation
	// (pkg/apis/rollouts/validation): field.ErrorList.ToAggregate under
	// "The Rollout %q is invalid: ", which a terminal may wrap.
	invalidRO = regexp.MustCompile(`(?s)^The Rollout "([^"]*)" is invalid: (.*)$`)
	// metricRE is an AnalysisRun's status.message (analysis/analysis.go:
	// "Metric \"%s\" assessed %s due to %s", which the plugin lists
	// lower-cased under Errors and releases before v1.1 wrote without the
	// metric's name), a terminal's wrapping kept.
	metricRE = regexp.MustCompile(`(?is)^metric (?:"([^"]+)" )?assessed (Failed|Error|Inconclusive) due to (.*)$`)
	// metricEventRE is the AnalysisRun's MetricFailed / MetricError /
	// MetricInconclusive event: "Metric '%s' Completed. Result: %s",
	// "metric '%s' completed %s" before v1.1.
	metricEventRE = regexp.MustCompile(`(?i)^metric '([^']+)' completed(?:\. result:)? (Failed|Error|Inconclusive)$`)
	// pausedStatus is the plugin's status command, "%s - %s" of the
	// Rollout's phase and message, on a Rollout paused for a reason that
	// waits for a person: a blue-green preview, an inconclusive analysis.
	// (CanaryPauseStep says nothing of whether the step has a duration.)
	pausedStatus = regexp.MustCompile(`^Paused - (BlueGreenPause|InconclusiveAnalysisRun|InconclusiveExperiment)$`)
)

// metricCause is the cause of an AnalysisRun whose metric was assessed
// PHASE: a failure, an error, or an inconclusive run that pauses its
// Rollout.
func metricCause(phase string) chain.CauseID {
	switch strings.ToLower(phase) {
	case "failed":
		return AnalysisMetricFailed
	case "error":
		return AnalysisMetricError
	}
	return RolloutAnalysisInconclusive
}

// phaseRE is the Rollout's status.message when Degraded
// (CalculateRolloutPhase: "%s: %s" of the condition's reason and
// message), alone or as the plugin's status command quotes it ("The
// rollout is in a degraded state with message: %s").
var phaseRE = regexp.MustCompile(`(?s)(?:^|with message: )(RolloutAborted|ProgressDeadlineExceeded|InvalidSpec): (.*)$`)

// RolloutWords decodes what the Rollouts controller writes on a Rollout's
// Progressing and InvalidSpec conditions and its events.
func RolloutWords(reason, message string) (Decoded, bool) {
	msg := strings.TrimSpace(message)
	degraded := false
	if m := phaseRE.FindStringSubmatch(msg); m != nil {
		reason, msg, degraded = m[1], m[2], true
	}
	if m := abortedRE.FindStringSubmatch(msg); m != nil {
		d := Decoded{Cause: RolloutAborted, Summary: "aborted the update to revision " + m[1],
			Details: []chain.Detail{{Key: "revision", Value: m[1]}}}
		if a := assessedRE.FindStringSubmatch(m[2]); a != nil {
			d.Summary += fmt.Sprintf(": analysis metric %q assessed %s (%s)", a[1], a[2], a[3])
			d.Details = append(d.Details, chain.Detail{Key: "metric", Value: a[1]}, chain.Detail{Key: "result", Value: a[2]})
		} else if m[2] != "" {
			d.Summary += ": " + m[2]
		}
		return d, true
	}
	if abortedOld.MatchString(msg) {
		return Decoded{Cause: RolloutAborted, Summary: "the rollout was aborted"}, true
	}
	if m := metricRE.FindStringSubmatch(msg); m != nil {
		what := "a metric"
		if m[1] != "" {
			what = fmt.Sprintf("metric %q", m[1])
		}
		return Decoded{Cause: metricCause(m[2]), Summary: fmt.Sprintf("analysis %s assessed %s (%s)", what, m[2], strings.Join(strings.Fields(m[3]), " ")),
			Details: []chain.Detail{{Key: "metric", Value: m[1]}, {Key: "result", Value: m[2]}}}, true
	}
	if m := metricEventRE.FindStringSubmatch(msg); m != nil {
		return Decoded{Cause: metricCause(m[2]), Summary: fmt.Sprintf("analysis metric %q completed %s", m[1], m[2]),
			Details: []chain.Detail{{Key: "metric", Value: m[1]}, {Key: "result", Value: m[2]}}}, true
	}
	if m := pausedStatus.FindStringSubmatch(msg); m != nil {
		if m[1] == "BlueGreenPause" {
			return Decoded{Cause: RolloutPaused, Summary: "paused: the blue-green preview waits for a promotion"}, true
		}
		return Decoded{Cause: RolloutAnalysisInconclusive, Summary: "paused: " + m[1]}, true
	}
	// "ReplicaSet %q has timed out progressing." is the Deployment
	// controller's wording too: only a Rollout's status.message (its
	// reason before it) says it is a Rollout's.
	if m := timedOutRO.FindStringSubmatch(msg); m != nil && (m[1] == "Rollout" || degraded) {
		return Decoded{Cause: RolloutProgressDeadline, Summary: fmt.Sprintf("%s %q has timed out progressing (spec.progressDeadlineSeconds exceeded)", m[1], m[2]),
			Details: []chain.Detail{{Key: strings.ToLower(m[1]), Value: m[2]}}}, true
	}
	if m := invalidRO.FindStringSubmatch(msg); m != nil {
		return Decoded{Cause: RolloutInvalidSpec, Summary: "the Rollouts controller refuses the spec: " + m[2],
			Details: []chain.Detail{{Key: "rollout", Value: m[1]}}}, true
	}
	if reason == "InvalidSpec" {
		return Decoded{Cause: RolloutInvalidSpec, Summary: "the Rollouts controller refuses the spec: " + msg}, true
	}
	return Decoded{}, false
}

func explainRollout(reason, message string) []Decoded {
	if d, ok := RolloutWords(reason, message); ok {
		return []Decoded{d}
	}
	return nil
}

// An Argo Rollouts AnalysisRun fails when one of its metrics does: its
// measurements breached the metric's failure condition past its
// failureLimit (Failed), or its provider could not measure past its
// consecutiveErrorLimit (Error). An Experiment fails when one of its
// analyses does. The catalogue's checks say only "Analysis run failed";
// these name the metric, or the analysis and its run.
const (
	AnalysisMetricFailed     chain.CauseID = "AnalysisMetricFailed"
	AnalysisMetricError      chain.CauseID = "AnalysisMetricError"
	ExperimentAnalysisFailed chain.CauseID = "ExperimentAnalysisFailed"
)

var analysisCauses = []Cause{
	{ID: AnalysisMetricFailed, Link: chain.LinkStatus,
		Summary:  "a metric of the AnalysisRun failed: its measurements breached the metric's failure condition (or missed its success condition) more often than its failureLimit allows",
		NextStep: "read the metric's measurements: kubectl get analysisrun {NAME} -n {NAMESPACE} -o jsonpath='{.status.metricResults}'; a bad release is fixed in the release, a wrong condition in the AnalysisTemplate; then retry the rollout (kubectl argo rollouts retry rollout ROLLOUT -n {NAMESPACE})",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: AnalysisMetricError, Link: chain.LinkStatus,
		Summary:  "a metric of the AnalysisRun could not be measured: its provider (a query, a job, a web call) erred more often in a row than its consecutiveErrorLimit allows",
		NextStep: "the measurement's message says why the provider failed: fix its address, query or credentials in the AnalysisTemplate (kubectl get analysisrun {NAME} -n {NAMESPACE} -o jsonpath='{.status.metricResults}'), then retry the rollout",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: ExperimentAnalysisFailed, Link: chain.LinkStatus,
		Summary:  "an analysis of the Experiment failed or erred, which ends the Experiment",
		NextStep: "walk its AnalysisRun for the metric: kubectl chain analysisrun.argoproj.io/{RUN} -n {NAMESPACE}",
		Terminal: TerminalRule{Mode: Immediate}},
}
