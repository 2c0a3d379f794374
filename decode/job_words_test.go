package decode

import (
	"testing"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// TestJobWords: the job controller's and Helm's words, in the wordings of
// several releases (testdata/real/messages/jobs.yaml has their sources).
func TestJobWords(t *testing.T) {
	for _, tt := range []struct {
		message string
		want    chain.CauseID
		detail  string // a detail value the decode must carry
	}{
		{"Job has reached the specified backoff limit", BackoffLimitExceeded, ""},
		{"Job has reach the specified backoff limit", BackoffLimitExceeded, ""}, // 1.8
		{"Job was active longer than specified deadline", JobDeadlineExceeded, ""},
		{"Container main for pod default/job-pod-failure-policy-failjob-8ckj8 failed with exit code 42 matching FailJob rule at index 0", PodFailurePolicyMatched, "42"},
		{"Pod default/job-x-8qp2x has condition DisruptionTarget matching FailJob rule at index 1", PodFailurePolicyMatched, "DisruptionTarget"},
		{"Job has failed indexes", FailedIndexes, ""},
		{"Job has exceeded the specified maximal number of failed indexes", FailedIndexes, ""},
		{"Error: Job failed: BackoffLimitExceeded", BackoffLimitExceeded, ""}, // Helm v2
		{"helm.go:88: [debug] post-upgrade hooks failed: job failed: BackoffLimitExceeded", BackoffLimitExceeded, "post-upgrade"},
		{"Error: failed pre-install: job failed: BackoffLimitExceeded", BackoffLimitExceeded, "pre-install"},
		{"Error: UPGRADE FAILED: pre-upgrade hooks failed: 1 error occurred:\n\t* job longhorn-pre-upgrade failed: BackoffLimitExceeded", BackoffLimitExceeded, "longhorn-pre-upgrade"},
		{"post-upgrade hooks failed: job failed: DeadlineExceeded", JobDeadlineExceeded, "post-upgrade"},
		{"ready.go:242: [debug] Job is failed: default/my-job", JobFailed, ""},
		{"Job suspended", JobSuspended, ""},
		{"BackoffLimitExceeded", BackoffLimitExceeded, "BackoffLimitExceeded"},
		{"MaxFailedIndexesExceeded", FailedIndexes, "MaxFailedIndexesExceeded"},
		{`Error: UPGRADE FAILED: cannot patch "pulsar-bookie-init" with kind Job: Job.batch "pulsar-bookie-init" is invalid: spec.template:
... : field is immutable`, JobTemplateImmutable, "pulsar-bookie-init"},
		{"kueue-jobs       test-job-one      Suspended   0/1                      112s", JobSuspended, ""},
	} {
		d, ok := JobWords(tt.message)
		if !ok || d.Cause != tt.want {
			t.Errorf("JobWords(%q) = %s, %v; want %s", tt.message, d.Cause, ok, tt.want)
			continue
		}
		if tt.detail != "" && !hasDetail(d, tt.detail) {
			t.Errorf("JobWords(%q): details %v lack %q", tt.message, d.Details, tt.detail)
		}
	}
	for _, m := range []string{"job failed: SomethingElse", "DeadlineExceeded",
		`CronJob.batch "c" is invalid: spec.template: Invalid value: "x": field is immutable`, "Pod was active on the node longer than the specified deadline", "Job completed"} {
		if d, ok := JobWords(m); ok {
			t.Errorf("JobWords(%q) = %s; want nothing", m, d.Cause)
		}
	}
}

// TestCronJobWords: both controller generations' events, and the
// controller's refused Job create with what refused it.
func TestCronJobWords(t *testing.T) {
	for _, tt := range []struct {
		reason, message string
		want            chain.CauseID
	}{
		{"FailedNeedsStart", "Cannot determine if job needs to be started: Too many missed start time (> 100). Set or decrease .spec.startingDeadlineSeconds or check clock skew.", TooManyMissedStartTimes},
		{"FailedNeedsStart", "Cannot determine if job needs to be started: Unparseable schedule: 0 0 10 * * ? : Expected exactly 5 fields, found 6: 0 0 10 * * ?", CronJobScheduleInvalid},
		{"TooManyMissedTimes", "too many missed start times: 101. Set or decrease .spec.startingDeadlineSeconds or check clock skew", TooManyMissedStartTimes},
		{"", "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew", TooManyMissedStartTimes},
		{"", "TooManyMissedTimes", TooManyMissedStartTimes},
		{"UnparseableSchedule", `unparseable schedule: "*/5 * * *" : expected exactly 5 fields, found 4: [*/5 * * *]`, CronJobScheduleInvalid},
		{"UnknownTimeZone", `invalid timeZone: "Asia/Singapore": unknown time zone Asia/Singapore`, CronJobScheduleInvalid},
		{"InvalidSchedule", "invalid schedule: 59 23 31 2 * : time difference between two schedules is less than 1 second", CronJobScheduleInvalid},
		{"MissSchedule", "Missed scheduled time to start a job: Fri, 04 Dec 2026 02:00:00 +0000", ScheduleMissed},
		{"JobAlreadyActive", "Not starting job because prior execution is running and concurrency policy is Forbid", ConcurrencyForbidBlocked},
		{"FailedCreate", `Error creating job: jobs.batch "x-28009200" is forbidden: exceeded quota: tool, requested: count/jobs.batch=1, used: count/jobs.batch=30, limited: count/jobs.batch=30`, CronJobJobCreateFailed},
	} {
		d, ok := CronJobWords(tt.reason, tt.message)
		if !ok || d.Cause != tt.want {
			t.Errorf("CronJobWords(%q, %q) = %s, %v; want %s", tt.reason, tt.message, d.Cause, ok, tt.want)
		}
	}
	// The API server's refusal of a CronJob is the manifest's, not the
	// controller's: no controller ever saw it.
	apply := `CronJob.batch "helium-scheduler" is invalid: spec.timeZone: Invalid value: "Asia/Singapore": unknown time zone Asia/Singapore`
	if d, ok := CronJobWords("", apply); ok {
		t.Errorf("CronJobWords(%q) = %s; want nothing", apply, d.Cause)
	}
	d := CronJobCreateFailed(`Error creating job: admission webhook "validation.gatekeeper.sh" denied the request: [must-have-owner] you must provide labels: {"owner"}`)
	if d.Cause != CronJobJobCreateFailed || !hasDetail(d, string(WebhookDenied)) {
		t.Errorf("CronJobCreateFailed: %s %v; want CronJobJobCreateFailed refused by WebhookDenied", d.Cause, d.Details)
	}
}

// TestExplainJobs: explain reads the controllers' events whether pasted
// with their reason, alone, or as the controller manager logged them.
func TestExplainJobs(t *testing.T) {
	for _, tt := range []struct {
		reason, message string
		want            chain.CauseID
	}{
		{"BackoffLimitExceeded", "Job has reached the specified backoff limit", BackoffLimitExceeded},
		{"BackoffLimitExceeded", "", BackoffLimitExceeded},
		{"", `I1030 01:08:14.634565      12 event.go:291] "Event occurred" object="test-9dedmf-11/big-job-0" kind="Job" apiVersion="batch/v1" type="Warning" reason="BackoffLimitExceeded" message="Job has reached the specified backoff limit"`, BackoffLimitExceeded},
		{"", `I0331 21:39:05.545705       1 event.go:291] "Event occurred" object="default/fluffy" kind="Job" apiVersion="batch/v1" type="Warning" reason="FailedCreate" message="Error creating: pods \"fluffy-\" is forbidden: error looking up service account default/idontexist: serviceaccount \"idontexist\" not found"`, ServiceAccountNotFound},
		{"", `I0404 18:33:16.892774       1 event.go:218] Event(v1.ObjectReference{Kind:"Job", Namespace:"default", Name:"sleeptest"}): type: 'Warning' reason: 'DeadlineExceeded' Job was active longer than specified deadline`, JobDeadlineExceeded},
		{"", "Warning  FailedNeedsStart  3m (x64068 over 7d)  cronjob-controller  Cannot determine if job needs to be started: Too many missed start time (> 100). Set or decrease .spec.startingDeadlineSeconds or check clock skew.", TooManyMissedStartTimes},
		{"FailedCreate", `Error creating job: admission webhook "validation.gatekeeper.sh" denied the request: [must-have-owner] you must provide labels: {"owner"}`, CronJobJobCreateFailed},
	} {
		ds := Explain(tt.reason, tt.message)
		if len(ds) == 0 || ds[0].Cause != tt.want {
			t.Errorf("Explain(%q, %q) = %v; want %s", tt.reason, tt.message, ds, tt.want)
		}
	}
}

func hasDetail(d Decoded, value string) bool {
	for _, x := range d.Details {
		if x.Value == value {
			return true
		}
	}
	return false
}

func FuzzJobWords(f *testing.F) {
	for _, s := range []string{"Job has reached the specified backoff limit", "* job a failed: BackoffLimitExceeded",
		"Container c for pod ns/p failed with exit code 2 matching FailJob rule at index 0", "Error creating job: ",
		`"Event occurred" object="a" kind="Job" apiVersion="batch/v1" type="Warning" reason="X" message="\"`, "): type: 'Warning' reason: 'X' "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		JobWords(s)
		CronJobWords("", s)
		CronJobWords("FailedCreate", s)
		klogEvent(s)
	})
}
