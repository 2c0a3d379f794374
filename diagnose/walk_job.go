package diagnose

import (
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// jobLinks: stored (suspended), pods, node-assignment, containers and
// completion. The pods that still run are judged like a Deployment's; the
// pods that failed are the completion link's evidence.
func (w *walker) jobLinks() []chain.Link {
	job := w.s.Job
	var suspended chain.CauseID
	if ptr.Deref(job.Spec.Suspend, false) && !chain.JobFinished(job) {
		suspended = decode.JobSuspended
	}
	stored := w.storedWorkload(job, -1, jobShape(job), suspended)
	return append([]chain.Link{stored}, w.jobChain(job)...)
}

// jobShape says what the Job asks for ("completions 3, parallelism 2").
func jobShape(job *batchv1.Job) string {
	s := fmt.Sprintf("parallelism %d", ptr.Deref(job.Spec.Parallelism, 1))
	if job.Spec.Completions != nil {
		s = fmt.Sprintf("completions %d, %s", *job.Spec.Completions, s)
	}
	return s + fmt.Sprintf(", backoffLimit %d", ptr.Deref(job.Spec.BackoffLimit, 6))
}

// jobChain is a Job's links after stored: a Job's own chain, and the last
// part of a CronJob's.
func (w *walker) jobChain(job *batchv1.Job) []chain.Link {
	candidates := w.ownedPods(job)
	var failed []*corev1.Pod
	succeeded := 0
	terminating := 0
	for _, p := range candidates {
		switch {
		case p.DeletionTimestamp != nil && !podFinished(p):
			terminating++
		case p.Status.Phase == corev1.PodFailed:
			failed = append(failed, p)
		case p.Status.Phase == corev1.PodSucceeded:
			succeeded++
		default:
			w.pods = append(w.pods, p)
		}
	}
	n := int32(len(w.pods))
	w.want = &n
	summary := fmt.Sprintf("%d active, %d succeeded, %d failed", len(w.pods), job.Status.Succeeded, job.Status.Failed)
	c := &collector{}
	if !chain.JobFinished(job) && !ptr.Deref(job.Spec.Suspend, false) {
		w.createFailures(c, "Job", job.Name, job.UID, newestCreated(candidates))
	}
	pods := w.finish(chain.LinkPods, summary, c, 0)
	if terminating > 0 {
		pods.Notes = append(pods.Notes, fmt.Sprintf("%s terminating", plural(int32(terminating), "pod")))
	}
	if len(w.pods) == 0 && chain.JobFinished(job) {
		pods.Notes = append(pods.Notes, "no pod runs: the Job has finished")
	}
	links := []chain.Link{pods, w.nodeAssignment(), w.containers()}
	return append(links, w.completion(job, failed, links))
}

func podFinished(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded
}

// completion: the Job controller counts the pods that succeeded and failed
// and ends the Job, Complete or Failed with a reason
// (pkg/controller/job/job_controller.go); until then it runs.
func (w *walker) completion(job *batchv1.Job, failed []*corev1.Pod, before []chain.Link) chain.Link {
	obj := objectName("job", job.Name)
	want := ptr.Deref(job.Spec.Completions, 1)
	summary := fmt.Sprintf("%d/%d completions", job.Status.Succeeded, want)
	if job.Status.Failed > 0 {
		summary += fmt.Sprintf(", %d failed of backoffLimit %d", job.Status.Failed, ptr.Deref(job.Spec.BackoffLimit, 6))
	}
	c := &collector{}
	var notes []string
	last := newestFailed(failed)
	var failure *batchv1.JobCondition
	for i := range job.Status.Conditions {
		cond := &job.Status.Conditions[i]
		if cond.Status != corev1.ConditionTrue {
			continue
		}
		switch cond.Type {
		case batchv1.JobComplete:
			return chain.Link{ID: chain.LinkCompletion, Status: chain.StatusOK, Summary: summary + "; complete"}
		case batchv1.JobFailed:
			failure = cond
		case batchv1.JobFailureTarget:
			if failure == nil {
				failure = cond
			}
		}
	}
	if failure != nil {
		d := jobFailure(job, failure, last)
		if failure.Reason == batchv1.JobReasonBackoffLimitExceeded {
			if pd, ok := podsFailure(failed); ok {
				d = endedByBackoff(job, pd, len(failed))
			}
		}
		ev := []chain.Evidence{conditionEvidence(obj, string(failure.Type), string(failure.Status), failure.Reason, failure.Message)}
		if last != nil {
			if e, ok := lastExit(last); ok {
				ev = append(ev, e)
			}
		}
		c.add(sighting{d: d, object: obj, since: failure.LastTransitionTime.Time, evidence: ev})
		l := w.finish(chain.LinkCompletion, summary, c, 0)
		for i := range l.Findings {
			// The controller ended the Job: nothing changes without a new
			// one, whatever the pods' cause's own rule says.
			l.Findings[i].Terminal, l.Findings[i].Progressing = true, false
		}
		return l
	}
	if last != nil {
		if e, ok := lastExit(last); ok {
			notes = append(notes, fmt.Sprintf("pod %s failed: %s; the Job retries until backoffLimit %d", last.Name, e.Message, ptr.Deref(job.Spec.BackoffLimit, 6)))
		}
	}
	if d, ok := retriedFailure(job, failed, len(w.pods)); ok {
		c.add(sighting{d: d, object: obj, since: goneAt(last), evidence: []chain.Evidence{lastExitEvidence(last)}})
		l := w.finish(chain.LinkCompletion, summary, c, 0)
		l.Notes = notes
		return l
	}
	if ptr.Deref(job.Spec.Suspend, false) || !settled(before) && len(w.pods) == 0 {
		l := notReached(chain.LinkCompletion, summary)
		l.Notes = notes
		return l
	}
	c.add(sighting{d: decode.Decoded{Cause: decode.JobRunning, Progressing: true,
		Summary:  fmt.Sprintf("running: %d/%d completions, %d active", job.Status.Succeeded, want, job.Status.Active),
		NextStep: fmt.Sprintf("wait, or follow it: kubectl chain job/%s -n %s --wait", job.Name, job.Namespace)},
		object: obj, evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "status",
			Message: fmt.Sprintf("active %d, succeeded %d, failed %d", job.Status.Active, job.Status.Succeeded, job.Status.Failed)}}})
	l := w.finish(chain.LinkCompletion, summary, c, 0)
	l.Notes = notes
	return l
}

// jobFailure decodes the Failed (or FailureTarget) condition's reason, made
// specific with the last failed pod's exit.
func jobFailure(job *batchv1.Job, cond *batchv1.JobCondition, last *corev1.Pod) decode.Decoded {
	d := decode.Decoded{Cause: decode.JobFailed, Summary: "the Job failed: " + cond.Message}
	exit := ""
	if last != nil {
		if e, ok := lastExit(last); ok {
			exit = fmt.Sprintf("; the last failed pod %s: %s", last.Name, e.Message)
			d.Details = append(d.Details, chain.Detail{Key: "pod", Value: last.Name}, chain.Detail{Key: "exit", Value: e.Message})
			d.NextStep = fmt.Sprintf("read why pod %s failed: kubectl logs %s -n %s; fix it and create the Job again", last.Name, last.Name, last.Namespace)
			if ref := metav1.GetControllerOf(job); ref != nil && ref.Kind == "CronJob" {
				d.NextStep = fmt.Sprintf("read why pod %s failed: kubectl logs %s -n %s; fix spec.jobTemplate of cronjob/%s, which its next run uses", last.Name, last.Name, last.Namespace, ref.Name)
			}
		}
	}
	switch cond.Reason {
	case batchv1.JobReasonBackoffLimitExceeded:
		d.Cause = decode.BackoffLimitExceeded
		d.Summary = fmt.Sprintf("backoff limit %d reached%s", ptr.Deref(job.Spec.BackoffLimit, 6), exit)
	case batchv1.JobReasonDeadlineExceeded:
		d.Cause = decode.JobDeadlineExceeded
		d.Summary = fmt.Sprintf("ran longer than activeDeadlineSeconds %d", ptr.Deref(job.Spec.ActiveDeadlineSeconds, 0))
		d.NextStep = ""
	case batchv1.JobReasonPodFailurePolicy:
		d.Cause = decode.PodFailurePolicyMatched
		d.Summary = "podFailurePolicy: " + cond.Message
	case batchv1.JobReasonFailedIndexes, batchv1.JobReasonMaxFailedIndexesExceeded:
		d.Cause = decode.FailedIndexes
		d.Summary = fmt.Sprintf("%s (failed indexes %s)", strings.TrimSuffix(cond.Message, "."), ptr.Deref(job.Status.FailedIndexes, ""))
	}
	return d
}

// newestFailed is the failed pod that ended last.
func newestFailed(pods []*corev1.Pod) *corev1.Pod {
	var out *corev1.Pod
	for _, p := range pods {
		if out == nil || goneAt(p).After(goneAt(out)) {
			out = p
		}
	}
	return out
}

// lastExit is how a failed pod's first failed container ended ("container
// main exited 1 (Error)"), or its status reason (DeadlineExceeded, Evicted).
func lastExit(p *corev1.Pod) (chain.Evidence, bool) {
	obj := objectName("pod", p.Name)
	for _, group := range []struct {
		field string
		sts   []corev1.ContainerStatus
	}{{"status.initContainerStatuses", p.Status.InitContainerStatuses}, {"status.containerStatuses", p.Status.ContainerStatuses}} {
		for _, st := range group.sts {
			t := st.State.Terminated
			if t == nil || t.ExitCode == 0 {
				continue
			}
			msg := fmt.Sprintf("container %s exited %d", st.Name, t.ExitCode)
			if t.Reason != "" {
				msg += " (" + t.Reason + ")"
			}
			return chain.Evidence{Source: chain.SourceContainerState, Object: obj, Field: fmt.Sprintf("%s[%s].state.terminated", group.field, st.Name),
				Reason: t.Reason, Message: msg}, true
		}
	}
	if p.Status.Reason != "" {
		return chain.Evidence{Source: chain.SourceObjectStatus, Object: obj, Field: "status.reason", Reason: p.Status.Reason,
			Message: strings.TrimSpace(p.Status.Reason + ": " + p.Status.Message)}, true
	}
	return chain.Evidence{}, false
}

// cronJobLinks: stored (suspended), schedule, then the newest Job's chain.
func (w *walker) cronJobLinks() []chain.Link {
	cj := w.s.CronJob
	var suspended chain.CauseID
	if ptr.Deref(cj.Spec.Suspend, false) {
		suspended = decode.CronJobSuspended
	}
	policy := cj.Spec.ConcurrencyPolicy
	if policy == "" {
		policy = batchv1.AllowConcurrent
	}
	stored := w.storedWorkload(cj, -1, fmt.Sprintf("schedule %q, concurrencyPolicy %s", cj.Spec.Schedule, policy), suspended)
	links := []chain.Link{stored, w.schedule(cj)}
	job := chain.NewestJob(w.s.Jobs)
	if job == nil {
		for _, id := range chain.ChainOf(chain.KindCronJob)[2:] {
			links = append(links, notReached(id, "no Job yet"))
		}
		return links
	}
	rest := w.jobChain(job)
	rest[0].Notes = append([]string{fmt.Sprintf("the newest Job is %s (kubectl chain job/%s)", job.Name, job.Name)}, rest[0].Notes...)
	if last := chain.LastFinishedJob(w.s.Jobs); !chain.JobFinished(job) && last != nil {
		// A run under way says nothing yet of how runs end: the last one
		// that ended does.
		var failed []*corev1.Pod
		for _, p := range w.ownedPods(last) {
			if p.Status.Phase == corev1.PodFailed {
				failed = append(failed, p)
			}
		}
		for i := range rest[:len(rest)-1] {
			// A run that is only starting (pods created, containers
			// coming up) is how a CronJob runs, not a rollout under way:
			// judged as progressing, a CronJob every minute would flap
			// between healthy and progressing. What is broken stays so.
			if l := &rest[i]; l.Status == chain.StatusProgressing {
				l.Notes = append(l.Notes, fmt.Sprintf("the newest Job %s is under way: %s", job.Name, l.Summary))
				l.Status, l.Findings = chain.StatusOK, nil
			}
		}
		done := w.completion(last, failed, nil)
		done.Summary = fmt.Sprintf("the last finished Job %s: %s", last.Name, done.Summary)
		done.Notes = append([]string{fmt.Sprintf("the newest Job %s is still running", job.Name)}, done.Notes...)
		rest[len(rest)-1] = done
	}
	return append(links, rest...)
}

// CronJob controller events (pkg/controller/cronjob/cronjob_controllerv2.go
// and utils.go).
const (
	eventUnparseableSchedule = "UnparseableSchedule"
	eventInvalidSchedule     = "InvalidSchedule"
	eventUnknownTimeZone     = "UnknownTimeZone"
	eventTooManyMissed       = "TooManyMissedTimes"
	eventMissSchedule        = "MissSchedule"
	eventJobAlreadyActive    = "JobAlreadyActive"
	// eventUnparseableOnUpdate: the second controller's event when an
	// update brings a schedule it cannot parse.
	eventUnparseableOnUpdate = "UnParseableCronJobSchedule"
	// eventFailedNeedsStart: the first controller's (cronjob_controller.go,
	// until 1.21) "Cannot determine if job needs to be started: %v".
	eventFailedNeedsStart = "FailedNeedsStart"
)

// schedule: the CronJob controller creates a Job at each scheduled time,
// or says why not in its events.
func (w *walker) schedule(cj *batchv1.CronJob) chain.Link {
	obj := objectName("cronjob", cj.Name)
	summary := "never scheduled"
	if t := cj.Status.LastScheduleTime; t != nil {
		summary = fmt.Sprintf("last scheduled %s ago", w.s.Now.Sub(t.Time).Round(1e9))
	}
	if n := len(cj.Status.Active); n > 0 {
		summary += fmt.Sprintf(", %d active", n)
	}
	c := &collector{}
	var notes []string
	evs := w.s.EventsFor("CronJob", cj.Name, cj.UID)
	var lastSchedule = cj.Status.LastScheduleTime
	for i := len(evs) - 1; i >= 0 && c.empty(); i-- {
		e := evs[i]
		s := sighting{object: obj, since: e.First, repeats: e.Count, evidence: []chain.Evidence{eventEvidence(e)}}
		switch e.Reason {
		case eventUnparseableSchedule, eventInvalidSchedule, eventUnknownTimeZone, eventUnparseableOnUpdate:
			s.d = decode.Decoded{Cause: decode.CronJobScheduleInvalid, Summary: eventMessage(e)}
		case eventTooManyMissed:
			// The second controller (1.20 on) warns and still starts the
			// newest missed run (cronjob_controllerv2.go: nextScheduleTime
			// returns it after the event); the CronJob does not stop, as a
			// 1.31 user found (kubernetes/website#51861, the docs fixed in
			// #54073). A note; what holds the run, if anything, is another
			// event's.
			if len(notes) == 0 {
				notes = append(notes, "the controller missed start times ("+eventMessage(e)+", "+
					w.s.Now.Sub(e.Last).Round(1e9).String()+" ago: it was down or its clock jumped) and started the newest run; since 1.20 that does not stop the CronJob")
			}
			continue
		case eventFailedNeedsStart:
			// The first controller (until 1.21) said both a schedule it
			// cannot parse and too many missed start times this way.
			d, ok := decode.CronJobWords(e.Reason, eventMessage(e))
			if !ok {
				continue
			}
			s.d = d
		case eventJobAlreadyActive:
			if len(cj.Status.Active) == 0 || lastSchedule != nil && e.Last.Before(lastSchedule.Time) {
				continue
			}
			active := cj.Status.Active[0].Name
			s.d = decode.Decoded{Cause: decode.ConcurrencyForbidBlocked, Progressing: true,
				Summary:  fmt.Sprintf("concurrencyPolicy Forbid: Job %s still runs, so scheduled runs are skipped", active),
				NextStep: fmt.Sprintf("look at the Job that still runs: kubectl chain job/%s -n %s", active, cj.Namespace),
				Details:  []chain.Detail{{Key: "activeJob", Value: active}}}
		case eventMissSchedule:
			if lastSchedule != nil && e.Last.Before(lastSchedule.Time) {
				continue
			}
			s.d = decode.Decoded{Cause: decode.ScheduleMissed, Progressing: true, Summary: eventMessage(e)}
		case "FailedCreate":
			if lastSchedule != nil && e.Last.Before(lastSchedule.Time) {
				continue
			}
			s.d = decode.CronJobCreateFailed(eventMessage(e))
		default:
			continue
		}
		c.add(s)
	}
	if c.empty() && lastSchedule == nil && len(w.s.Jobs) == 0 && !ptr.Deref(cj.Spec.Suspend, false) {
		c.add(sighting{d: decode.Decoded{Cause: decode.CronJobNotScheduledYet, Progressing: true,
			Summary: fmt.Sprintf("waiting for the first scheduled time of %q", cj.Spec.Schedule)},
			object: obj, evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "status.lastScheduleTime", Message: "unset"}}})
	}
	return w.finishNoted(chain.LinkSchedule, summary, c, notes)
}
