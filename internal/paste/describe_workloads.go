package paste

import (
	"regexp"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// objectMeta is what every describe prints of an object: its name,
// namespace, labels, annotations, owner and creation time (each when
// printed).
func (p *parser) objectMeta(b block, kind string) metav1.ObjectMeta {
	ns := b.value("Namespace")
	m := metav1.ObjectMeta{Name: b.value("Name"), Namespace: ns, UID: UID(kind, ns, b.value("Name"))}
	if f, ok := b.get("Labels"); ok {
		m.Labels = labelsOf(f)
	}
	if f, ok := b.get("Annotations"); ok {
		m.Annotations = annotationsOf(f)
	}
	m.OwnerReferences = ownerOf(b, ns)
	m.CreationTimestamp = p.absolute(b.value("CreationTimestamp"))
	return m
}

// read records a describe block read: its form, its events, where it was
// cut.
func (p *parser) read(b block, kind string, m metav1.ObjectMeta) {
	p.res.Forms = append(p.res.Forms, "kubectl describe "+strings.ToLower(kind)+" "+key(m.Namespace, m.Name))
	p.blockEvents(b, kind, m.Namespace, m.Name)
	p.cutAt(b, strings.ToLower(kind)+" "+key(m.Namespace, m.Name))
}

// number reads a count describe printed ("3", "<unset>": nil).
func number(v string) *int32 {
	n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), "s"))
	if err != nil {
		return nil
	}
	n32 := int32(n)
	return &n32
}

// boolOf reads describe's "true", "True", "false", "False"; nil for
// anything else.
func boolOf(v string) *bool {
	b, err := strconv.ParseBool(strings.ToLower(strings.TrimSpace(v)))
	if err != nil {
		return nil
	}
	return &b
}

// podsStatus reads "0 Running / 1 Waiting / 0 Succeeded / 0 Failed".
func podsStatus(v string) (running int32, ok bool) {
	m := podsStatusRe.FindStringSubmatch(v)
	if m == nil {
		return 0, false
	}
	return *number(m[1]), true
}

// describeStatefulSet rebuilds a StatefulSet from kubectl describe
// statefulset (describeStatefulSet): its selector, replicas, update
// strategy, claim templates and pod template. Its revisions are not
// printed.
func (p *parser) describeStatefulSet(b block) {
	s := &appsv1.StatefulSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"}, ObjectMeta: p.objectMeta(b, "StatefulSet")}
	s.Spec.Selector = selectorOf(b.value("Selector"))
	if m := stsReplicasRe.FindStringSubmatch(b.value("Replicas")); m != nil {
		s.Spec.Replicas, s.Status.Replicas = number(m[1]), *number(m[2])
	}
	s.Spec.ServiceName = b.value("Service Name")
	s.Spec.PodManagementPolicy = appsv1.PodManagementPolicyType(b.value("Pod Management Policy"))
	if f, ok := b.get("Update Strategy"); ok {
		s.Spec.UpdateStrategy.Type = appsv1.StatefulSetUpdateStrategyType(f.val)
		for _, l := range f.body {
			switch l.key {
			case "Partition":
				if s.Spec.UpdateStrategy.RollingUpdate == nil {
					s.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{}
				}
				s.Spec.UpdateStrategy.RollingUpdate.Partition = number(l.val)
			case "MaxUnavailable":
				if s.Spec.UpdateStrategy.RollingUpdate != nil {
					u := intstr.Parse(l.val)
					s.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = &u
				}
			}
		}
	}
	if f, ok := b.get("Pod Template"); ok {
		s.Spec.Template = p.templateOf(f)
	}
	if f, ok := b.get("Volume Claims"); ok {
		s.Spec.VolumeClaimTemplates = claimTemplatesOf(f)
	}
	p.res.StatefulSets = append(p.res.StatefulSets, *s)
	p.read(b, "StatefulSet", s.ObjectMeta)
}

var stsReplicasRe = regexp.MustCompile(`^(\d+) desired \| (\d+) total`)

// claimTemplatesOf reads Volume Claims: each template from its Name line
// (describeVolumeClaimTemplates).
func claimTemplatesOf(f field) []corev1.PersistentVolumeClaim {
	var out []corev1.PersistentVolumeClaim
	for _, k := range subFields(f.body) {
		if k.key == "Name" {
			out = append(out, corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: k.val}})
			continue
		}
		if len(out) == 0 {
			continue
		}
		c := &out[len(out)-1]
		switch k.key {
		case "StorageClass":
			if !none(k.val) {
				sc := k.val
				c.Spec.StorageClassName = &sc
			}
		case "Labels":
			c.Labels = labelsOf(k)
		case "Capacity":
			if q, err := resource.ParseQuantity(k.val); err == nil {
				c.Spec.Resources.Requests = corev1.ResourceList{corev1.ResourceStorage: q}
			}
		case "Access Modes":
			c.Spec.AccessModes = accessModesOf(k.val)
		}
	}
	return out
}

// accessModesOf reads "[ReadWriteOnce]" (a template's) and "RWO,ROX" (a
// claim's, storageutil.GetAccessModesAsString).
func accessModesOf(v string) []corev1.PersistentVolumeAccessMode {
	short := map[string]corev1.PersistentVolumeAccessMode{"RWO": corev1.ReadWriteOnce, "ROX": corev1.ReadOnlyMany, "RWX": corev1.ReadWriteMany, "RWOP": corev1.ReadWriteOncePod}
	var out []corev1.PersistentVolumeAccessMode
	for _, m := range strings.FieldsFunc(strings.Trim(v, "[]"), func(r rune) bool { return r == ',' || r == ' ' }) {
		if s, ok := short[m]; ok {
			out = append(out, s)
		} else if !none(m) {
			out = append(out, corev1.PersistentVolumeAccessMode(m))
		}
	}
	return out
}

// describeDaemonSet rebuilds a DaemonSet from kubectl describe daemonset
// (describeDaemonSet): its selector, the counts of nodes, the pod
// template. How many pods are ready is not printed.
func (p *parser) describeDaemonSet(b block) {
	d := &appsv1.DaemonSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"}, ObjectMeta: p.objectMeta(b, "DaemonSet")}
	d.Spec.Selector = selectorOf(b.value("Selector"))
	for k, at := range map[string]*int32{
		"Desired Number of Nodes Scheduled": &d.Status.DesiredNumberScheduled, "Current Number of Nodes Scheduled": &d.Status.CurrentNumberScheduled,
		"Number of Nodes Scheduled with Up-to-date Pods": &d.Status.UpdatedNumberScheduled, "Number of Nodes Scheduled with Available Pods": &d.Status.NumberAvailable,
		"Number of Nodes Misscheduled": &d.Status.NumberMisscheduled,
	} {
		if n := number(b.value(k)); n != nil {
			*at = *n
		}
	}
	d.Status.NumberUnavailable = max(0, d.Status.DesiredNumberScheduled-d.Status.NumberAvailable)
	if f, ok := b.get("Pod Template"); ok {
		d.Spec.Template = p.templateOf(f)
	}
	p.res.DaemonSets = append(p.res.DaemonSets, *d)
	p.read(b, "DaemonSet", d.ObjectMeta)
}

// jobStatusRe is a Job's Pods Statuses: "1 Active (0 Ready) / 0
// Succeeded / 2 Failed" (Ready since 1.24), "1 Running / 0 Succeeded / 2
// Failed" before 1.23.
var jobStatusRe = regexp.MustCompile(`^(\d+) (?:Active|Running)(?: \((\d+) Ready\))? / (\d+) Succeeded / (\d+) Failed`)

// describeJob rebuilds a Job from kubectl describe job (describeJob).
// Describe prints no conditions: the Job controller's event when it
// ends the Job (recordJobFinished in pkg/controller/job: Normal
// "Completed" "Job completed", or Warning with the Failed condition's
// reason and message) gives them back.
func (p *parser) describeJob(b block) {
	j := &batchv1.Job{TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"}, ObjectMeta: p.objectMeta(b, "Job")}
	p.jobSpec(b, &j.Spec)
	if mode := b.value("Completion Mode"); mode != "" {
		cm := batchv1.CompletionMode(mode)
		j.Spec.CompletionMode = &cm
	}
	j.Spec.Suspend = boolOf(b.value("Suspend"))
	j.Spec.BackoffLimit = number(b.value("Backoff Limit"))
	j.Spec.TTLSecondsAfterFinished = number(b.value("TTL Seconds After Finished"))
	for k, at := range map[string]**metav1.Time{"Start Time": &j.Status.StartTime, "Completed At": &j.Status.CompletionTime} {
		if t := p.absolute(b.value(k)); !t.IsZero() {
			*at = &t
		}
	}
	if m := jobStatusRe.FindStringSubmatch(b.value("Pods Statuses")); m != nil {
		j.Status.Active, j.Status.Succeeded, j.Status.Failed = *number(m[1]), *number(m[3]), *number(m[4])
		j.Status.Ready = number(m[2])
	}
	j.Status.CompletedIndexes = b.value("Completed Indexes")
	p.jobs = append(p.jobs, j)
	p.read(b, "Job", j.ObjectMeta)
}

// jobSpec reads what a Job and a CronJob's job template print alike.
func (p *parser) jobSpec(b block, s *batchv1.JobSpec) {
	s.Selector = selectorOf(b.value("Selector"))
	s.Parallelism = number(b.value("Parallelism"))
	s.Completions = number(b.value("Completions"))
	if n := number(b.value("Active Deadline Seconds")); n != nil {
		secs := int64(*n)
		s.ActiveDeadlineSeconds = &secs
	}
	if f, ok := b.get("Pod Template"); ok {
		s.Template = p.templateOf(f)
	}
}

// jobFailures are the reasons of a Job's Failed condition
// (k8s.io/api/batch/v1), which the Job controller also writes as the
// Warning event's reason.
var jobFailures = map[string]bool{
	batchv1.JobReasonBackoffLimitExceeded: true, batchv1.JobReasonDeadlineExceeded: true, batchv1.JobReasonPodFailurePolicy: true,
	batchv1.JobReasonMaxFailedIndexesExceeded: true, batchv1.JobReasonFailedIndexes: true,
}

// jobConditions gives each described Job the condition its controller's
// final event shows it set; called once the events have their times.
func jobConditions(j *batchv1.Job, events []*corev1.Event) {
	for _, e := range events {
		if e.InvolvedObject.Kind != "Job" || e.InvolvedObject.Name != j.Name || e.InvolvedObject.Namespace != j.Namespace {
			continue
		}
		c := batchv1.JobCondition{Status: corev1.ConditionTrue, Reason: e.Reason, Message: e.Message, LastTransitionTime: e.LastTimestamp, LastProbeTime: e.LastTimestamp}
		switch {
		case e.Reason == "Completed" && e.Message == "Job completed":
			c.Type = batchv1.JobComplete
		case e.Type == corev1.EventTypeWarning && jobFailures[e.Reason]:
			c.Type = batchv1.JobFailed
		default:
			continue
		}
		j.Status.Conditions = append(j.Status.Conditions, c)
	}
}

// describeCronJob rebuilds a CronJob from kubectl describe cronjob
// (describeCronJob): its schedule, policy, limits, job template, last
// schedule time and active Jobs.
func (p *parser) describeCronJob(b block) {
	c := &batchv1.CronJob{TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "CronJob"}, ObjectMeta: p.objectMeta(b, "CronJob")}
	c.Spec.Schedule = b.value("Schedule")
	c.Spec.ConcurrencyPolicy = batchv1.ConcurrencyPolicy(b.value("Concurrency Policy"))
	c.Spec.Suspend = boolOf(b.value("Suspend"))
	if tz := b.value("Time Zone"); tz != "" {
		c.Spec.TimeZone = &tz
	}
	c.Spec.SuccessfulJobsHistoryLimit = number(b.value("Successful Job History Limit"))
	c.Spec.FailedJobsHistoryLimit = number(b.value("Failed Job History Limit"))
	if n := number(b.value("Starting Deadline Seconds")); n != nil {
		secs := int64(*n)
		c.Spec.StartingDeadlineSeconds = &secs
	}
	p.jobSpec(b, &c.Spec.JobTemplate.Spec)
	if t := p.absolute(b.value("Last Schedule Time")); !t.IsZero() {
		c.Status.LastScheduleTime = &t
	}
	for _, name := range strings.Split(b.value("Active Jobs"), ",") {
		if name = strings.TrimSpace(name); name != "" {
			c.Status.Active = append(c.Status.Active, corev1.ObjectReference{APIVersion: "batch/v1", Kind: "Job", Name: name, Namespace: c.Namespace, UID: UID("Job", c.Namespace, name)})
		}
	}
	p.res.CronJobs = append(p.res.CronJobs, *c)
	p.read(b, "CronJob", c.ObjectMeta)
}
