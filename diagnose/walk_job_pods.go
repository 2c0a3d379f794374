package diagnose

import (
	"fmt"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// A Job whose pods all failed the same specific way (OOM-killed, a command
// the runtime cannot start, evicted for the same resource) failed of that:
// its backoff limit only ended the retries (issue 22). The pods' cause is
// the Job's, with the limit as what ended it; pods that only exited with
// an error code failed of the program's own error, which their logs tell,
// so the backoff limit stays the cause.

// podsFailure is the cause every failed pod shares, when it is specific.
func podsFailure(failed []*corev1.Pod) (decode.Decoded, bool) {
	var out decode.Decoded
	for i, p := range failed {
		d, ok := podFailure(p)
		if !ok || !decode.Strong(d.Cause) || d.Cause == decode.InitContainerFailed || i > 0 && d.Cause != out.Cause {
			return decode.Decoded{}, false
		}
		if i == 0 {
			out = d
		}
	}
	return out, len(failed) > 0
}

// podFailure decodes why a failed pod failed: its first init container or
// container that ended badly, else its status reason (an eviction).
func podFailure(p *corev1.Pod) (decode.Decoded, bool) {
	for _, st := range p.Status.InitContainerStatuses {
		if t := st.State.Terminated; t != nil {
			if d, ok := decode.InitTermination(st.Name, *t); ok {
				return d, true
			}
		}
	}
	for _, st := range p.Status.ContainerStatuses {
		if t := st.State.Terminated; t != nil && (t.ExitCode != 0 || t.Reason == "OOMKilled") {
			return decode.Termination(st.Name, *t), true
		}
	}
	if p.Status.Reason != "" {
		return decode.Eviction(p.Status.Reason, p.Status.Message)
	}
	return decode.Decoded{}, false
}

// endedByBackoff makes the pods' shared cause the Job's, saying that the
// backoff limit ended it.
func endedByBackoff(job *batchv1.Job, pd decode.Decoded, failed int) decode.Decoded {
	limit := ptr.Deref(job.Spec.BackoffLimit, 6)
	pd.Summary = fmt.Sprintf("%s, in every failed pod (%d); backoffLimit %d ended the Job's retries", strings.TrimSuffix(pd.Summary, "."), failed, limit)
	pd.Details = append(pd.Details, chain.Detail{Key: "endedBy", Value: string(decode.BackoffLimitExceeded)},
		chain.Detail{Key: "failedPods", Value: strconv.Itoa(failed)})
	if pd.NextStep == "" {
		if c, ok := decode.Lookup(pd.Cause); ok {
			pd.NextStep = c.NextStep
		}
	}
	if ref := metav1.GetControllerOf(job); ref != nil && ref.Kind == "CronJob" {
		pd.NextStep = strings.ReplaceAll(pd.NextStep, "spec.template.", "spec.jobTemplate.spec.template.") +
			"; its next scheduled Job uses the fixed template of cronjob/" + ref.Name
	} else {
		pd.NextStep += "; then create the Job again"
	}
	pd.Progressing = false
	return pd
}

// retriedFailure: a Job that has not ended, runs no pod, and whose failed
// pods all failed the same specific way is not "running": it retries into
// the same failure until its backoff limit (a GPU the device plugin cannot
// allocate, UnexpectedAdmissionError, kubernetes#97131). The pods' cause
// is the Job's.
func retriedFailure(job *batchv1.Job, failed []*corev1.Pod, active int) (decode.Decoded, bool) {
	if active > 0 || len(failed) == 0 || ptr.Deref(job.Spec.Suspend, false) {
		return decode.Decoded{}, false
	}
	pd, ok := podsFailure(failed)
	if !ok {
		return decode.Decoded{}, false
	}
	pd.Summary = fmt.Sprintf("%s, in every failed pod (%d); no pod runs and the Job retries until backoffLimit %d",
		strings.TrimSuffix(pd.Summary, "."), len(failed), ptr.Deref(job.Spec.BackoffLimit, 6))
	pd.Details = append(pd.Details, chain.Detail{Key: "failedPods", Value: strconv.Itoa(len(failed))})
	return pd, true
}

// lastExitEvidence is how the last failed pod ended, as evidence.
func lastExitEvidence(p *corev1.Pod) chain.Evidence {
	if e, ok := lastExit(p); ok {
		return e
	}
	return chain.Evidence{Source: chain.SourceObjectStatus, Object: objectName("pod", p.Name), Field: "status.phase", Message: string(p.Status.Phase)}
}
