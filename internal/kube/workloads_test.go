package kube

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// TestReadCronJob: a CronJob costs 2 round trips and 4 requests (its GET,
// then its Jobs, the events and the namespace's Job pods in parallel), and
// its snapshot keeps the pods of its newest Job and of its last finished
// one only: not an older run's, not another Job's.
func TestReadCronJob(t *testing.T) {
	yes := true
	cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "nightly", UID: "cj"}}
	job := func(name string, age time.Duration, finished bool) *batchv1.Job {
		j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: name, UID: types.UID(name),
			CreationTimestamp: metav1.NewTime(t0.Add(-age)),
			OwnerReferences:   []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "CronJob", Name: "nightly", UID: "cj", Controller: &yes}}}}
		if finished {
			j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue}}
		}
		return j
	}
	pod := func(name, jobName string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: name, Labels: map[string]string{"job-name": jobName},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: jobName, UID: types.UID(jobName), Controller: &yes}}}}
	}
	other := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "migrate", UID: "migrate"}}
	cs := fake.NewClientset(cj,
		job("nightly-100", 3*time.Hour, true), job("nightly-160", 2*time.Hour, true), job("nightly-220", time.Hour, false), other,
		pod("nightly-100-a", "nightly-100"), pod("nightly-160-a", "nightly-160"), pod("nightly-220-a", "nightly-220"), pod("migrate-a", "migrate"))
	s, err := newReader(cs, 0).Read(context.Background(), "prod", chain.Ref{Kind: chain.KindCronJob, Name: "nightly"})
	if err != nil {
		t.Fatal(err)
	}
	var pods []string
	for _, p := range s.Pods {
		pods = append(pods, p.Name)
	}
	if diff := cmp.Diff([]string{"nightly-160-a", "nightly-220-a"}, pods); diff != "" {
		t.Errorf("pods (-want +got):\n%s", diff)
	}
	if len(s.Jobs) != 3 || s.Requests != 4 {
		t.Errorf("%d jobs, %d requests; want 3 and 4", len(s.Jobs), s.Requests)
	}
	want := []string{"get cronjobs", "list events limit=50 continue=", "list jobs", "list pods job-name"}
	if diff := cmp.Diff(want, requests(cs)); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}
