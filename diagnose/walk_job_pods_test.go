package diagnose

import (
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// failedJob is Job shop/web failed at its backoff limit with a failed pod
// per terminated state.
func failedJob(states ...corev1.ContainerStateTerminated) *chain.Snapshot {
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "job-uid", CreationTimestamp: metav1.NewTime(walkT0)},
		Spec:       batchv1.JobSpec{BackoffLimit: ptr.To(int32(1))},
		Status: batchv1.JobStatus{Failed: int32(len(states)), Conditions: []batchv1.JobCondition{
			{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: batchv1.JobReasonBackoffLimitExceeded,
				Message: "Job has reached the specified backoff limit", LastTransitionTime: metav1.NewTime(walkT0)},
		}},
	}
	s := &chain.Snapshot{Kind: chain.KindJob, Namespace: "shop", Name: "web", Job: job, Now: walkT0.Add(time.Second)}
	for i, st := range states {
		p := kindPod("web-"+string(rune('a'+i)), job, "Job", corev1.PodFailed, false, nil)
		p.Status.ContainerStatuses[0].State = corev1.ContainerState{Terminated: &st}
		s.Pods = append(s.Pods, p)
	}
	return s
}

// TestWalkJobPodsCause: when every failed pod of a Job failed the same
// specific way, that is the Job's cause and the backoff limit what ended
// it (issue 22); when they differ, or only exited with an error code, the
// backoff limit stays the cause. Either way the Job's failure is final.
func TestWalkJobPodsCause(t *testing.T) {
	oom := corev1.ContainerStateTerminated{Reason: "OOMKilled", ExitCode: 137}
	exit1 := corev1.ContainerStateTerminated{Reason: "Error", ExitCode: 1}
	for _, tt := range []struct {
		name   string
		states []corev1.ContainerStateTerminated
		want   chain.CauseID
	}{
		{"all OOM-killed", []corev1.ContainerStateTerminated{oom, oom}, decode.OOMKilled},
		{"one OOM-killed, one error", []corev1.ContainerStateTerminated{oom, exit1}, decode.BackoffLimitExceeded},
		{"all errors", []corev1.ContainerStateTerminated{exit1, exit1}, decode.BackoffLimitExceeded},
	} {
		r := Walk(failedJob(tt.states...), Options{})
		v := r.Verdict
		if v.Health != chain.Broken || v.Link != chain.LinkCompletion || v.Cause != tt.want || !v.Terminal {
			t.Errorf("%s: verdict %+v, want broken at completion with %s, terminal", tt.name, v, tt.want)
			continue
		}
		f := r.Link(chain.LinkCompletion).Findings[0]
		ended := false
		for _, d := range f.Details {
			ended = ended || d.Key == "endedBy" && d.Value == string(decode.BackoffLimitExceeded)
		}
		if ended != (tt.want != decode.BackoffLimitExceeded) {
			t.Errorf("%s: details %v: endedBy BackoffLimitExceeded should be there only when the pods' cause leads", tt.name, f.Details)
		}
	}
	v := Walk(failedJob(oom, oom), Options{}).Verdict
	if !strings.Contains(v.Summary, "backoffLimit 1 ended") || !strings.Contains(v.NextStep, "limits.memory") ||
		!strings.HasSuffix(v.NextStep, "then create the Job again") {
		t.Errorf("OOM-killed: summary %q, next step %q", v.Summary, v.NextStep)
	}
	// A CronJob's Job: the fix goes into the CronJob's jobTemplate.
	s := failedJob(oom)
	s.Job.OwnerReferences = []metav1.OwnerReference{{Kind: "CronJob", Name: "nightly", Controller: ptr.To(true)}}
	if v := Walk(s, Options{}).Verdict; v.Cause != decode.OOMKilled || !strings.Contains(v.NextStep, "spec.jobTemplate.spec.template.spec.containers[web]") ||
		!strings.Contains(v.NextStep, "cronjob/nightly") {
		t.Errorf("CronJob's Job: %+v", v)
	}
}

// TestWalkCronJobFirstController: the first cronjob controller's
// FailedNeedsStart (cronjob_controller.go, 1.4-1.21) said both too many
// missed start times and a schedule it cannot parse; its refused Job
// create names what refused it (cronjob_controllerv2.go#L662 at v1.37.2).
func TestWalkCronJobFirstController(t *testing.T) {
	for _, tt := range []struct {
		reason, message string
		want            chain.CauseID
		summary         string
	}{
		{"FailedNeedsStart", "Cannot determine if job needs to be started: Too many missed start time (> 100). Set or decrease .spec.startingDeadlineSeconds or check clock skew.",
			decode.TooManyMissedStartTimes, "Too many missed start time"},
		{"FailedNeedsStart", "Cannot determine if job needs to be started: Unparseable schedule: 0 0 10 * * ? : Expected exactly 5 fields, found 6: 0 0 10 * * ?",
			decode.CronJobScheduleInvalid, "Unparseable schedule"},
		{"UnParseableCronJobSchedule", "unparseable schedule for cronjob: 0 2-7/1 * *", decode.CronJobScheduleInvalid, "0 2-7/1"},
		{"FailedCreate", `Error creating job: jobs.batch "web-28009200" is forbidden: exceeded quota: tool, requested: count/jobs.batch=1, used: count/jobs.batch=30, limited: count/jobs.batch=30`,
			decode.CronJobJobCreateFailed, "QuotaExceeded"},
	} {
		cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "cj-uid", CreationTimestamp: metav1.NewTime(walkT0)},
			Spec: batchv1.CronJobSpec{Schedule: "*/1 * * * *"}}
		ev := chain.Event{Type: corev1.EventTypeWarning, Reason: tt.reason, Message: tt.message,
			Object: chain.ObjectRef{Kind: "CronJob", Name: "web", UID: "cj-uid"}, Count: 40, First: walkT0.Add(time.Minute), Last: walkT0.Add(40 * time.Minute)}
		s := &chain.Snapshot{Kind: chain.KindCronJob, Namespace: "shop", Name: "web", CronJob: cj, Now: walkT0.Add(41 * time.Minute), Events: []chain.Event{ev}}
		v := Walk(s, Options{}).Verdict
		if v.Health != chain.Broken || v.Link != chain.LinkSchedule || v.Cause != tt.want || !strings.Contains(v.Summary, tt.summary) {
			t.Errorf("%s: verdict %+v, want broken at schedule with %s saying %q", tt.reason, v, tt.want, tt.summary)
		}
	}
}

// TestWalkCronJobRunStarting: a CronJob's newest run whose containers are
// still being created, after a run that completed, is how a CronJob runs:
// healthy, saying so (a CronJob every minute used to flap to progressing,
// the e2e's cj-missed-starts caught it). A newest run that is broken stays
// broken.
func TestWalkCronJobRunStarting(t *testing.T) {
	cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "cj-uid", CreationTimestamp: metav1.NewTime(walkT0)},
		Spec: batchv1.CronJobSpec{Schedule: "*/1 * * * *"},
		Status: batchv1.CronJobStatus{LastScheduleTime: ptr.To(metav1.NewTime(walkT0.Add(time.Minute))),
			Active: []corev1.ObjectReference{{Kind: "Job", Name: "web-2", Namespace: "shop"}}}}
	job := func(name string, at time.Duration, done bool) batchv1.Job {
		j := batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, UID: k8stypes.UID(name), CreationTimestamp: metav1.NewTime(walkT0.Add(at)),
			OwnerReferences: []metav1.OwnerReference{{Kind: "CronJob", Name: "web", UID: "cj-uid", Controller: ptr.To(true)}}}}
		if done {
			j.Status = batchv1.JobStatus{Succeeded: 1, Conditions: []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}}
		} else {
			j.Status.Active = 1
		}
		return j
	}
	first, newest := job("web-1", 0, true), job("web-2", time.Minute, false)
	donePod := kindPod("web-1-a", &first, "Job", corev1.PodSucceeded, false, nil)
	donePod.Status.ContainerStatuses[0].State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Completed"}}
	for _, tt := range []struct {
		waiting corev1.ContainerStateWaiting
		health  chain.Health
		cause   chain.CauseID
	}{
		{corev1.ContainerStateWaiting{Reason: "ContainerCreating"}, chain.Healthy, ""},
		{corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: `Back-off pulling image "web:v9"`}, chain.Broken, decode.ImagePullFailed},
	} {
		p := kindPod("web-2-a", &newest, "Job", corev1.PodPending, false, nil)
		p.Status.ContainerStatuses[0].State = corev1.ContainerState{Waiting: &tt.waiting}
		s := &chain.Snapshot{Kind: chain.KindCronJob, Namespace: "shop", Name: "web", CronJob: cj, Now: walkT0.Add(time.Minute + 5*time.Second),
			Jobs: []batchv1.Job{first, newest}, Pods: []corev1.Pod{donePod, p}}
		r := Walk(s, Options{})
		if v := r.Verdict; v.Health != tt.health || v.Cause != tt.cause {
			t.Errorf("newest run %s: verdict %+v, want %s %s", tt.waiting.Reason, v, tt.health, tt.cause)
		}
		if tt.health == chain.Healthy && !strings.Contains(strings.Join(r.Link(chain.LinkContainers).Notes, "\n"), "the newest Job web-2 is under way") {
			t.Errorf("newest run starting: containers link %+v says nothing of the run under way", r.Link(chain.LinkContainers))
		}
	}
}
