package decode

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// What the job and cronjob controllers, and Helm waiting on a hook Job,
// say when a Job failed or a CronJob starts none: the words explain
// decodes alone and the walk reads in the CronJob's events. Each pattern
// cites the release whose wording it reads.

// jobReasons are the reasons of the job controller's Failed condition and
// Warning event (pkg/controller/job/job_controller.go, batch/v1 JobReason*)
// and of the cronjob controller's events of both generations
// (cronjob_controller.go until 1.21, cronjob_controllerv2.go and utils.go
// since 1.20).
var jobReasons = []string{"BackoffLimitExceeded", "DeadlineExceeded", "PodFailurePolicy", "FailedIndexes", "MaxFailedIndexesExceeded",
	"FailedNeedsStart", "TooManyMissedTimes", "UnparseableSchedule", "UnParseableCronJobSchedule", "InvalidSchedule", "UnknownTimeZone",
	"MissSchedule", "JobAlreadyActive"}

var (
	// backoffLimitRE: "Job has reached the specified backoff limit" since
	// 1.9; 1.8, the first release with backoffLimit, wrote "has reach".
	backoffLimitRE = regexp.MustCompile(`Job has reach(?:ed)? the specified backoff limit`)
	// podFailurePolicyRE: pod_failure_policy.go's FailJob messages (1.25+),
	// "Container %s for pod %s/%s failed with exit code %v matching %v rule
	// at index %d" and "Pod %s/%s has condition %v matching %v rule at
	// index %d".
	podFailurePolicyRE = regexp.MustCompile(`(?:Container (\S+) for pod (\S+) failed with exit code (-?\d+)|Pod (\S+) has condition (\w+)) matching FailJob rule at index (\d+)`)
	// helmJobRE: Helm's error when a Job it waits for (a hook, or any Job
	// with --wait-for-jobs) failed: v2's "Job failed: %s", v3's "job
	// failed: %s" and, since v3.13, "job %s failed: %s", with the Job's
	// Failed condition's reason.
	helmJobRE = regexp.MustCompile(`\b[Jj]ob (?:(\S+) )?failed: (\w+)`)
	// helmHookRE names the hook in Helm's wrapper ("pre-upgrade hooks
	// failed: ...", "failed pre-install: ...").
	helmHookRE = regexp.MustCompile(`\b((?:pre|post)-(?:install|upgrade|delete|rollback)) hooks? failed|\bfailed ((?:pre|post)-(?:install|upgrade|delete|rollback)):`)
	// getJobSuspendedRE: a `kubectl get jobs` row (with -A, a namespace
	// first) whose STATUS column (1.32+) says Suspended.
	getJobSuspendedRE = regexp.MustCompile(`^(?:\S+\s+){1,2}Suspended\s+\d+/\d+(?:\s|$)`)
	// jobTemplateImmutableRE: batch validation's refusal of an update to a
	// Job's pod template ("spec.template: Invalid value: ...: field is
	// immutable", the value often cut by who pasted it), which Helm prints after `cannot patch "NAME" with kind
	// Job: `. A CronJob's jobTemplate may change.
	jobTemplateImmutableRE = regexp.MustCompile(`(?s)\bJob(?:\.batch)? "([^"]*)" is invalid: spec\.template:.*field is immutable`)
	// helmJobIsFailedRE: Helm 3's ready checker's "Job is failed: %s/%s"
	// (pkg/kube/ready.go), which names no reason.
	helmJobIsFailedRE = regexp.MustCompile(`\b[Jj]ob is failed: (\S+)`)
	// tooManyMissedRE: every wording of the 100 missed start times: "Too
	// many missed start times to list" (1.4), "Too many missed start time
	// (> 100). ..." (1.5-1.18, lowercase in 1.19-1.21), "too many missed
	// start times: %d. ..." (1.20-1.24) and "too many missed start times.
	// ..." (1.25+).
	tooManyMissedRE = regexp.MustCompile(`(?i)too many missed start times?\b`)
	// secondController: the second controller's own words (utils.go,
	// 1.20 on), lower case, with a count until 1.24 or a full stop.
	secondController = regexp.MustCompile(`(?:^|\s)too many missed start times(?:: \d+)?\. `)
	// scheduleRE: the schedule or time zone the controller cannot use:
	// "Unparseable schedule: %s : %s" (utils.go until 1.18, lowercase
	// after), "unparseable schedule for cronjob: %s", "unparseable
	// schedule: %q : %s" (1.24+), "invalid schedule: %s : %s" and "invalid
	// timeZone: %q: %s" (1.24+).
	scheduleRE = regexp.MustCompile(`(?i)\bunparseable schedule\b|\binvalid schedule: |\binvalid timeZone: "`)
)

// jobFailedReasons maps the Failed condition's reasons to their causes.
var jobFailedReasons = map[string]chain.CauseID{
	"BackoffLimitExceeded": BackoffLimitExceeded, "DeadlineExceeded": JobDeadlineExceeded, "PodFailurePolicy": PodFailurePolicyMatched,
	"FailedIndexes": FailedIndexes, "MaxFailedIndexesExceeded": FailedIndexes,
}

// JobWords decodes the job controller's Failed condition and events, and
// Helm's words about a hook Job that failed.
func JobWords(message string) (Decoded, bool) {
	switch {
	case backoffLimitRE.MatchString(message):
		return Decoded{Cause: BackoffLimitExceeded, Summary: "the Job failed: " + backoffLimitRE.FindString(message)}, true
	case strings.Contains(message, "Job was active longer than specified deadline"):
		return Decoded{Cause: JobDeadlineExceeded, Summary: "the Job failed: it was active longer than activeDeadlineSeconds"}, true
	case strings.TrimSpace(message) == "Job suspended" || getJobSuspendedRE.MatchString(strings.TrimSpace(message)):
		// The Suspended condition's and event's message (job_controller.go
		// since 1.21), or the Job's row.
		return Decoded{Cause: JobSuspended}, true
	case strings.Contains(message, "Job has exceeded the specified maximal number of failed indexes"),
		strings.Contains(message, "Job has failed indexes"):
		return Decoded{Cause: FailedIndexes}, true
	}
	if w := strings.TrimSpace(message); w != "DeadlineExceeded" && jobFailedReasons[w] != "" {
		// The Failed condition's reason pasted alone (DeadlineExceeded is
		// also a pod's status reason: its activeDeadlineSeconds).
		return Decoded{Cause: jobFailedReasons[w], Details: []chain.Detail{{Key: "reason", Value: w}}}, true
	}
	if m := jobTemplateImmutableRE.FindStringSubmatch(message); m != nil {
		return Decoded{Cause: JobTemplateImmutable, Details: []chain.Detail{{Key: "job", Value: m[1]}},
			Summary:  fmt.Sprintf("the update of Job %s was refused: its pod template (spec.template) is immutable", m[1]),
			NextStep: fmt.Sprintf("delete the Job and apply again (kubectl delete job %s; its pods go with it), or make it a Helm hook with helm.sh/hook-delete-policy before-hook-creation so each release creates it anew", m[1])}, true
	}
	if m := podFailurePolicyRE.FindStringSubmatch(message); m != nil {
		d := Decoded{Cause: PodFailurePolicyMatched, Summary: "podFailurePolicy: " + m[0],
			Details: []chain.Detail{{Key: "rule", Value: m[6]}}}
		if m[1] != "" {
			d.Details = append(d.Details, chain.Detail{Key: "container", Value: m[1]}, chain.Detail{Key: "pod", Value: m[2]}, chain.Detail{Key: "exitCode", Value: m[3]})
		} else {
			d.Details = append(d.Details, chain.Detail{Key: "pod", Value: m[4]}, chain.Detail{Key: "condition", Value: m[5]})
		}
		return d, true
	}
	if m := helmJobRE.FindStringSubmatch(message); m != nil {
		if id, ok := jobFailedReasons[m[2]]; ok {
			return helmJob(message, id, m[1], m[2]), true
		}
	}
	if m := helmJobIsFailedRE.FindStringSubmatch(message); m != nil {
		return Decoded{Cause: JobFailed, Summary: "the Job " + m[1] + " failed; its Failed condition says why",
			NextStep: "kubectl describe job " + m[1][strings.LastIndex(m[1], "/")+1:] + " and the logs of its failed pods"}, true
	}
	return Decoded{}, false
}

// helmJob names the hook whose Job failed, when Helm's wrapper says it.
func helmJob(message string, id chain.CauseID, job, reason string) Decoded {
	what := "a Job Helm waited for"
	var details []chain.Detail
	if h := helmHookRE.FindStringSubmatch(message); h != nil {
		hook := h[1] + h[2]
		what = "the Helm " + hook + " hook Job"
		details = append(details, chain.Detail{Key: "hook", Value: hook})
	}
	if job != "" {
		what += " " + job
		details = append(details, chain.Detail{Key: "job", Value: job})
	}
	d := Decoded{Cause: id, Summary: fmt.Sprintf("%s failed (%s)", what, reason), Details: details}
	if c, ok := Lookup(id); ok {
		d.NextStep = "Helm failed the release on it; " + c.NextStep
	}
	return d
}

// CronJobWords decodes the cronjob controller's events of both
// generations; reason may be empty.
func CronJobWords(reason, message string) (Decoded, bool) {
	switch {
	case tooManyMissedRE.MatchString(message), strings.TrimSpace(message) == "TooManyMissedTimes":
		if secondController.MatchString(message) || reason == "TooManyMissedTimes" {
			// The second controller warns and still starts the newest
			// run (diagnose's walk_job.go notes it in schedule).
			return Decoded{Cause: TooManyMissedStartTimes, Summary: "the controller missed more than 100 start times (it was down, or its clock jumped): " +
				rtOneLine(message) + "; since 1.20 it still starts the newest run, so look at what else holds the CronJob"}, true
		}
		return Decoded{Cause: TooManyMissedStartTimes, Summary: "the controller starts no Job: " + rtOneLine(message)}, true
	case scheduleRE.MatchString(message):
		return Decoded{Cause: CronJobScheduleInvalid, Summary: rtOneLine(message[scheduleRE.FindStringIndex(message)[0]:])}, true
	case strings.Contains(message, "Missed scheduled time to start a job"):
		return Decoded{Cause: ScheduleMissed, Progressing: true, Summary: rtOneLine(message)}, true
	case strings.Contains(message, "Not starting job because prior execution is running and concurrency policy is Forbid"):
		return Decoded{Cause: ConcurrencyForbidBlocked, Progressing: true,
			Summary: "concurrencyPolicy Forbid: the previous Job still runs, so a scheduled run was skipped"}, true
	}
	if i := strings.Index(message, cronJobCreatePrefix); i >= 0 && (reason == "" || reason == "FailedCreate") {
		return CronJobCreateFailed(message[i:]), true
	}
	return Decoded{}, false
}

// cronJobCreatePrefix: the cronjob controller's FailedCreate, "Error
// creating job: %v" (both generations).
const cronJobCreatePrefix = "Error creating job: "

// CronJobCreateFailed decodes the cronjob controller's FailedCreate: the
// scheduled Job was refused (quota on Jobs, a webhook, a policy), said
// with what refused it.
func CronJobCreateFailed(message string) Decoded {
	err := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(message), cronJobCreatePrefix))
	d := Decoded{Cause: CronJobJobCreateFailed, Summary: "cannot create the scheduled Job: " + rtOneLine(err),
		Details: []chain.Detail{{Key: "error", Value: err}}}
	if inner, ok := decodeAdmission(err); ok {
		if c, found := Lookup(inner.Cause); found {
			d.Summary = fmt.Sprintf("cannot create the scheduled Job (%s): %s", inner.Cause, rtOneLine(err))
			d.NextStep = strings.ReplaceAll(c.NextStep, "the pod", "the Job")
		}
		d.Details = append(d.Details, chain.Detail{Key: "refusedBy", Value: string(inner.Cause)})
	}
	if strings.Contains(err, "count/jobs.batch") {
		// A quota on the number of Jobs, which finished Jobs the CronJob
		// keeps still count against (kubernetes#119775).
		d.NextStep = "finished Jobs count against the quota: lower spec.successfulJobsHistoryLimit and spec.failedJobsHistoryLimit, " +
			"set spec.jobTemplate.spec.ttlSecondsAfterFinished or delete old Jobs, or raise the quota's count/jobs.batch"
	}
	return d
}

// explainJob decodes a message that came with one of jobReasons.
func explainJob(reason, message string) []Decoded {
	if d, ok := JobWords(message); ok {
		return []Decoded{d}
	}
	if d, ok := CronJobWords(reason, message); ok {
		return []Decoded{d}
	}
	if id, ok := jobFailedReasons[reason]; ok && reason != "DeadlineExceeded" {
		// A Failed condition's reason says it even when its message was
		// not pasted or is worded otherwise.
		return []Decoded{{Cause: id}}
	}
	return nil
}
