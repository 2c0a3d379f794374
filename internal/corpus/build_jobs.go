package corpus

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The Jobs of a Job incident and of a CronJob's runs, with the statuses
// the Job controller writes.

// job is the incident's Job named name (owned by cj when set); name ""
// builds the CronJob's jobTemplate.
func (b *builder) job(name string, cj *batchv1.CronJob) *batchv1.Job {
	s := b.in.Job
	if s == nil {
		s = &JobSpec{}
	}
	job := &batchv1.Job{TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"}, ObjectMeta: b.meta("job", name, nil)}
	uid := string(job.UID)
	job.Labels = map[string]string{"batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": name, "controller-uid": uid, "job-name": name}
	tmpl := b.template()
	tmpl.Labels = job.Labels
	tmpl.Spec.RestartPolicy = corev1.RestartPolicyNever
	if s.RestartPolicy != "" {
		tmpl.Spec.RestartPolicy = s.RestartPolicy
	}
	one, six, no := int32(1), int32(6), false
	job.Spec = batchv1.JobSpec{Parallelism: &one, Completions: &one, BackoffLimit: &six, ActiveDeadlineSeconds: s.ActiveDeadlineSeconds,
		Suspend: &s.Suspend, ManualSelector: &no, Template: tmpl,
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/controller-uid": uid}}}
	for _, o := range []struct{ to, from *int32 }{{job.Spec.Parallelism, s.Parallelism}, {job.Spec.Completions, s.Completions}, {job.Spec.BackoffLimit, s.BackoffLimit}} {
		if o.from != nil {
			*o.to = *o.from
		}
	}
	if cj != nil {
		job.CreationTimestamp = at(time.Second)
		job.OwnerReferences = []metav1.OwnerReference{*ownerRef("batch/v1", "CronJob", cj.Name, cj)}
		job.Annotations = map[string]string{"batch.kubernetes.io/cronjob-scheduled-timestamp": at(time.Second).UTC().Format(time.RFC3339)}
	}
	return job
}

func (b *builder) jobPods(job *batchv1.Job, prefix string) []*corev1.Pod {
	pods := make([]*corev1.Pod, len(b.in.Pods))
	for i := range b.in.Pods {
		pods[i] = b.podOf(i, prefix+"-"+b.suffix("pod", i, 5), job.Spec.Template, ownerRef("batch/v1", "Job", job.Name, job))
	}
	return pods
}

// jobStatus counts the pods as the Job controller does, and keeps the
// thread's conditions.
func (b *builder) jobStatus(job *batchv1.Job, pods []*corev1.Pod) {
	st := &job.Status
	start := at(time.Second)
	st.StartTime = &start
	for _, p := range pods {
		switch p.Status.Phase {
		case corev1.PodFailed:
			st.Failed++
		case corev1.PodSucceeded:
			st.Succeeded++
		default:
			st.Active++
		}
	}
	ready := readyCount(pods)
	st.Ready = &ready
	if s := b.in.Job; s != nil {
		if s.Failed != nil {
			st.Failed = *s.Failed
		}
		if s.Succeeded != nil {
			st.Succeeded = *s.Succeeded
		}
		for _, c := range s.Conditions {
			if c.LastProbeTime.IsZero() {
				c.LastProbeTime = ago(30 * time.Second)
			}
			if c.LastTransitionTime.IsZero() {
				c.LastTransitionTime = ago(30 * time.Second)
			}
			st.Conditions = append(st.Conditions, c)
		}
	}
}

func finished(job *batchv1.Job) bool {
	for _, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

func readyCount(pods []*corev1.Pod) int32 {
	var n int32
	for _, p := range pods {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				n++
			}
		}
	}
	return n
}

// previousRun is the CronJob's run ten minutes before the incident's Job
// (which shiftRun moves to just before the capture):
// a Job and its one pod, Succeeded, with the conditions the Job
// controller writes when it completes (SuccessCriteriaMet, then Complete,
// both CompletionsReached in pkg/controller/job at v1.37.2).
func (b *builder) previousRun(cj *batchv1.CronJob, app string, ps PodSpec) []any {
	job := b.job(app+"-29450870", cj)
	job.UID = b.uid("job", 1)
	job.CreationTimestamp = at(-10 * time.Second)
	job.Annotations["batch.kubernetes.io/cronjob-scheduled-timestamp"] = at(-10 * time.Second).UTC().Format(time.RFC3339)
	uid := string(job.UID)
	for k := range job.Labels {
		if k == "batch.kubernetes.io/controller-uid" || k == "controller-uid" {
			job.Labels[k] = uid
		}
	}
	job.Labels["batch.kubernetes.io/job-name"], job.Labels["job-name"] = job.Name, job.Name
	job.Spec.Template.Labels = job.Labels
	job.Spec.Selector.MatchLabels = map[string]string{"batch.kubernetes.io/controller-uid": uid}
	pod := b.podFrom(ps, 99, job.Name+"-"+b.suffix("previous", 0, 5), job.Spec.Template, ownerRef("batch/v1", "Job", job.Name, job))
	start, done := at(-9*time.Second), at(-time.Second)
	pod.CreationTimestamp, pod.Status.StartTime = start, &start
	for i := range pod.Status.ContainerStatuses {
		if t := pod.Status.ContainerStatuses[i].State.Terminated; t != nil {
			t.StartedAt, t.FinishedAt = at(-8*time.Second), at(-2*time.Second)
		}
	}
	for i := range pod.Status.Conditions {
		pod.Status.Conditions[i].LastTransitionTime = at(-8 * time.Second)
	}
	job.Status = batchv1.JobStatus{StartTime: &start, CompletionTime: &done, Succeeded: 1, Ready: new(int32),
		Conditions: []batchv1.JobCondition{
			{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, Reason: batchv1.JobReasonCompletionsReached,
				Message: "Reached expected number of succeeded pods", LastProbeTime: done, LastTransitionTime: done},
			{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, Reason: batchv1.JobReasonCompletionsReached,
				Message: "Reached expected number of succeeded pods", LastProbeTime: done, LastTransitionTime: done}}}
	cj.Status.LastSuccessfulTime = &done
	return []any{job, pod}
}

// shiftRun moves a CronJob's run (its Job and pods) d later and returns
// its new scheduled time.
func shiftRun(job *batchv1.Job, pods []*corev1.Pod, d time.Duration) metav1.Time {
	move := func(t *metav1.Time) {
		if t != nil && !t.IsZero() {
			*t = metav1.NewTime(t.Add(d))
		}
	}
	move(&job.CreationTimestamp)
	move(job.Status.StartTime)
	job.Annotations["batch.kubernetes.io/cronjob-scheduled-timestamp"] = job.CreationTimestamp.UTC().Format(time.RFC3339)
	for _, p := range pods {
		move(&p.CreationTimestamp)
		move(p.Status.StartTime)
		for i := range p.Status.Conditions {
			move(&p.Status.Conditions[i].LastTransitionTime)
		}
	}
	return job.CreationTimestamp
}
