package diagnose

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// kindPod is pod NAME of namespace shop, controlled by owner, in phase
// with Ready ready, carrying labels.
func kindPod(name string, owner metav1.Object, kind string, phase corev1.PodPhase, ready bool, labels map[string]string) corev1.Pod {
	st := corev1.ConditionFalse
	if ready {
		st = corev1.ConditionTrue
	}
	return corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, UID: k8stypes.UID("uid-" + name), Labels: labels,
			CreationTimestamp: metav1.NewTime(walkT0),
			OwnerReferences:   []metav1.OwnerReference{{Kind: kind, Name: owner.GetName(), UID: owner.GetUID(), Controller: ptr.To(true)}}},
		Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "web"}}},
		Status: corev1.PodStatus{Phase: phase,
			Conditions:        []corev1.PodCondition{{Type: corev1.PodReady, Status: st, LastTransitionTime: metav1.NewTime(walkT0)}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "web", Ready: ready, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}},
	}
}

// statefulSet is StatefulSet shop/web of 2 replicas whose update revision
// is web-new and current revision web-old.
func statefulSet(partition int32, policy appsv1.PodManagementPolicyType) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "sts-uid", Generation: 2, CreationTimestamp: metav1.NewTime(walkT0)},
		Spec: appsv1.StatefulSetSpec{Replicas: ptr.To(int32(2)), PodManagementPolicy: policy,
			UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To(partition)}}},
		Status: appsv1.StatefulSetStatus{ObservedGeneration: 2, Replicas: 2, UpdateRevision: "web-new", CurrentRevision: "web-old"},
	}
}

// TestWalkRollbackTrap: a pod of another revision than the update one that
// is not Ready blocks an OrderedReady RollingUpdate, unless a partition
// keeps it at its revision on purpose or pods are managed in Parallel.
func TestWalkRollbackTrap(t *testing.T) {
	rev := func(r string) map[string]string { return map[string]string{appsv1.ControllerRevisionHashLabelKey: r} }
	for _, tt := range []struct {
		name      string
		partition int32
		policy    appsv1.PodManagementPolicyType
		want      chain.CauseID
	}{
		{"ordered", 0, appsv1.OrderedReadyPodManagement, decode.StatefulSetRollbackTrap},
		{"partitioned", 1, appsv1.OrderedReadyPodManagement, ""},
		{"parallel", 0, appsv1.ParallelPodManagement, ""},
	} {
		set := statefulSet(tt.partition, tt.policy)
		s := &chain.Snapshot{Kind: chain.KindStatefulSet, Namespace: "shop", Name: "web", StatefulSet: set, Now: walkT0.Add(time.Minute),
			Pods: []corev1.Pod{
				kindPod("web-0", set, "StatefulSet", corev1.PodRunning, false, rev("web-old")),
				kindPod("web-1", set, "StatefulSet", corev1.PodRunning, true, rev("web-new")),
			}}
		r := Walk(s, Options{})
		l := r.Link(chain.LinkRevision)
		var got chain.CauseID
		if len(l.Findings) > 0 {
			got = l.Findings[0].Cause
		}
		if got != tt.want {
			t.Errorf("%s: revision link cause %q, want %q: %+v", tt.name, got, tt.want, l)
		}
		if tt.want != "" && (r.Verdict.Link != chain.LinkRevision || !r.Verdict.Terminal || r.Verdict.NextStep != "delete the pod so the controller recreates it at the update revision: kubectl delete pod web-0 -n shop") {
			t.Errorf("%s: verdict %+v, want the revision link, terminal, deleting web-0", tt.name, r.Verdict)
		}
	}
}

// TestWalkJobFailed decodes the Job controller's Failed condition reasons
// (pkg/controller/job/job_controller.go at v1.37.2: "Job has reached the
// specified backoff limit", "Job was active longer than specified
// deadline", and pod_failure_policy.go's "Container %s for pod %s/%s
// failed with exit code %v matching %v rule at index %d"), with the last
// failed pod's exit, as terminal at once.
func TestWalkJobFailed(t *testing.T) {
	for _, tt := range []struct {
		reason, message string
		want            chain.CauseID
	}{
		{batchv1.JobReasonBackoffLimitExceeded, "Job has reached the specified backoff limit", decode.BackoffLimitExceeded},
		{batchv1.JobReasonDeadlineExceeded, "Job was active longer than specified deadline", decode.JobDeadlineExceeded},
		{batchv1.JobReasonPodFailurePolicy, "Container web for pod shop/web-x2x7q failed with exit code 42 matching FailJob rule at index 0", decode.PodFailurePolicyMatched},
		{"SomethingNew", "a reason this version does not know", decode.JobFailed},
	} {
		job := &batchv1.Job{
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "job-uid", CreationTimestamp: metav1.NewTime(walkT0)},
			Spec:       batchv1.JobSpec{BackoffLimit: ptr.To(int32(1))},
			Status: batchv1.JobStatus{Failed: 2, Conditions: []batchv1.JobCondition{
				{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: tt.reason, Message: tt.message},
				{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: tt.reason, Message: tt.message, LastTransitionTime: metav1.NewTime(walkT0)},
			}},
		}
		failed := kindPod("web-x2x7q", job, "Job", corev1.PodFailed, false, nil)
		failed.Status.ContainerStatuses[0].State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 42, Reason: "Error"}}
		s := &chain.Snapshot{Kind: chain.KindJob, Namespace: "shop", Name: "web", Job: job, Now: walkT0.Add(time.Second), Pods: []corev1.Pod{failed}}
		r := Walk(s, Options{})
		if r.Verdict.Health != chain.Broken || r.Verdict.Link != chain.LinkCompletion || r.Verdict.Cause != tt.want || !r.Verdict.Terminal {
			t.Errorf("%s: verdict %+v, want broken at completion with %s, terminal", tt.reason, r.Verdict, tt.want)
		}
		f := r.Link(chain.LinkCompletion).Findings[0]
		if len(f.Evidence) != 2 || f.Evidence[0].Message != tt.message || f.Evidence[1].Message != "container web exited 42 (Error)" {
			t.Errorf("%s: evidence %+v, want the condition's message and the pod's exit", tt.reason, f.Evidence)
		}
	}
}

// TestWalkJobRunning: a Job whose pods run is progressing, never terminal,
// and complete is healthy; a suspended one is broken at stored.
func TestWalkJobRunning(t *testing.T) {
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "job-uid", CreationTimestamp: metav1.NewTime(walkT0)},
		Status: batchv1.JobStatus{Active: 1}}
	s := &chain.Snapshot{Kind: chain.KindJob, Namespace: "shop", Name: "web", Job: job, Now: walkT0.Add(time.Hour),
		Pods: []corev1.Pod{kindPod("web-a", job, "Job", corev1.PodRunning, true, nil)}}
	if v := Walk(s, Options{}).Verdict; v.Health != chain.Progressing || v.Cause != decode.JobRunning || v.Terminal {
		t.Errorf("running: %+v", v)
	}
	job.Status = batchv1.JobStatus{Succeeded: 1, Conditions: []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}}
	s.Pods[0].Status.Phase = corev1.PodSucceeded
	if v := Walk(s, Options{}).Verdict; v.Health != chain.Healthy {
		t.Errorf("complete: %+v", v)
	}
	job.Status, job.Spec.Suspend, s.Pods = batchv1.JobStatus{}, ptr.To(true), nil
	if v := Walk(s, Options{}).Verdict; v.Link != chain.LinkStored || v.Cause != decode.JobSuspended {
		t.Errorf("suspended: %+v", v)
	}
}

// TestWalkCronJobForbid: the CronJob controller's JobAlreadyActive event
// ("Not starting job because prior execution is running and concurrency
// policy is Forbid", cronjob_controllerv2.go at v1.37.2) names the Job that
// blocks, while it is active; once none is, the event is history.
func TestWalkCronJobForbid(t *testing.T) {
	cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "cj-uid", CreationTimestamp: metav1.NewTime(walkT0)},
		Spec: batchv1.CronJobSpec{Schedule: "*/1 * * * *", ConcurrencyPolicy: batchv1.ForbidConcurrent},
		Status: batchv1.CronJobStatus{LastScheduleTime: ptr.To(metav1.NewTime(walkT0)),
			Active: []corev1.ObjectReference{{Kind: "Job", Name: "web-29000000", Namespace: "shop"}}}}
	ev := chain.Event{Type: corev1.EventTypeNormal, Reason: "JobAlreadyActive", Message: "Not starting job because prior execution is running and concurrency policy is Forbid",
		Object: chain.ObjectRef{Kind: "CronJob", Name: "web", UID: "cj-uid"}, Count: 3, First: walkT0.Add(time.Minute), Last: walkT0.Add(3 * time.Minute)}
	s := &chain.Snapshot{Kind: chain.KindCronJob, Namespace: "shop", Name: "web", CronJob: cj, Now: walkT0.Add(3 * time.Minute), Events: []chain.Event{ev}}
	r := Walk(s, Options{})
	if v := r.Verdict; v.Link != chain.LinkSchedule || v.Cause != decode.ConcurrencyForbidBlocked || !v.Terminal ||
		v.NextStep != "look at the Job that still runs: kubectl chain job/web-29000000 -n shop" {
		t.Errorf("blocked: %+v", v)
	}
	cj.Status.Active = nil
	if v := Walk(s, Options{}).Verdict; v.Cause == decode.ConcurrencyForbidBlocked {
		t.Errorf("no Job active, still blocked: %+v", v)
	}
}

// TestExcludedBy: the DaemonSet controller's rule for which nodes run a
// daemon pod: node selector, and NoSchedule/NoExecute taints, except those
// every daemon pod tolerates (unschedulable, not-ready, pressure).
func TestExcludedBy(t *testing.T) {
	tmpl := &corev1.PodTemplateSpec{Spec: corev1.PodSpec{NodeSelector: map[string]string{"zone": "a"},
		Tolerations: []corev1.Toleration{{Key: "gpu", Operator: corev1.TolerationOpEqual, Value: "yes", Effect: corev1.TaintEffectNoSchedule}}}}
	node := func(zone string, taints ...corev1.Taint) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: map[string]string{"zone": zone}}, Spec: corev1.NodeSpec{Taints: taints}}
	}
	for _, tt := range []struct {
		node *corev1.Node
		want string
	}{
		{node("a"), ""},
		{node("b"), "nodeSelector or node affinity"},
		{node("a", corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}), ""},
		{node("a", corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute}), ""},
		{node("a", corev1.Taint{Key: "gpu", Value: "yes", Effect: corev1.TaintEffectNoSchedule}), ""},
		{node("a", corev1.Taint{Key: "gpu", Value: "no", Effect: corev1.TaintEffectNoSchedule}), "taint gpu=no:NoSchedule"},
		{node("a", corev1.Taint{Key: "dedicated", Effect: corev1.TaintEffectNoExecute}), "taint dedicated:NoExecute"},
		{node("a", corev1.Taint{Key: "dedicated", Effect: corev1.TaintEffectPreferNoSchedule}), ""},
	} {
		if got := excludedBy(tmpl, tt.node); got != tt.want {
			t.Errorf("node %v taints %v: %q, want %q", tt.node.Labels, tt.node.Spec.Taints, got, tt.want)
		}
	}
}

// TestMaxUnavailableStall: a DaemonSet rolling update with as many pods
// unavailable as maxUnavailable allows waits, and says so.
func TestMaxUnavailableStall(t *testing.T) {
	one := intstr.FromInt32(1)
	ds := &appsv1.DaemonSet{Spec: appsv1.DaemonSetSpec{UpdateStrategy: appsv1.DaemonSetUpdateStrategy{
		Type: appsv1.RollingUpdateDaemonSetStrategyType, RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &one}}},
		Status: appsv1.DaemonSetStatus{DesiredNumberScheduled: 3, UpdatedNumberScheduled: 1, NumberUnavailable: 1}}
	if got := maxUnavailableStall(ds); !strings.Contains(got, "stalled: 1 pods unavailable, maxUnavailable 1 allows 1") {
		t.Errorf("stalled: %q", got)
	}
	ds.Status.NumberUnavailable = 0
	if got := maxUnavailableStall(ds); got != "" {
		t.Errorf("not stalled: %q", got)
	}
}

// TestWalkCronJobMissedStartsWarns: the second controller's
// TooManyMissedTimes ("too many missed start times. Set or decrease
// .spec.startingDeadlineSeconds or check clock skew", utils.go at v1.37.2)
// comes before it starts the newest run: the CronJob goes on, as
// kubernetes/website#51861's 1.31 user found, so the walk notes it and
// blames nothing; the first controller's FailedNeedsStart stopped it
// (TestWalkCronJobFirstController).
func TestWalkCronJobMissedStartsWarns(t *testing.T) {
	cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "cj-uid", CreationTimestamp: metav1.NewTime(walkT0)},
		Spec:   batchv1.CronJobSpec{Schedule: "*/1 * * * *"},
		Status: batchv1.CronJobStatus{LastScheduleTime: ptr.To(metav1.NewTime(walkT0.Add(3 * time.Hour)))}}
	ev := chain.Event{Type: corev1.EventTypeWarning, Reason: "TooManyMissedTimes",
		Message: "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew",
		Object:  chain.ObjectRef{Kind: "CronJob", Name: "web", UID: "cj-uid"}, Count: 1, First: walkT0.Add(3 * time.Hour), Last: walkT0.Add(3 * time.Hour)}
	s := &chain.Snapshot{Kind: chain.KindCronJob, Namespace: "shop", Name: "web", CronJob: cj, Now: walkT0.Add(3*time.Hour + 20*time.Second), Events: []chain.Event{ev}}
	r := Walk(s, Options{})
	if r.Verdict.Cause == decode.TooManyMissedStartTimes {
		t.Fatalf("the second controller's warning blamed: %+v", r.Verdict)
	}
	var notes []string
	for _, l := range r.Links {
		if l.ID == chain.LinkSchedule {
			notes = l.Notes
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "too many missed start times") || !strings.Contains(notes[0], "started the newest run") {
		t.Errorf("schedule notes = %q, want one naming the missed start times", notes)
	}
}
