package diagnose

import (
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// TestWalkJobRetriedFailure: a Job that has not ended, whose only pod the
// kubelet refused (UnexpectedAdmissionError, the device plugin could not
// allocate a lost GPU, kubernetes#97131) and that runs no pod, is broken
// with that cause at completion, not "running"; with a pod that still runs
// (a retry under way) it stays JobRunning.
func TestWalkJobRetriedFailure(t *testing.T) {
	for _, retrying := range []bool{false, true} {
		job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "job-uid", CreationTimestamp: metav1.NewTime(walkT0)},
			Status: batchv1.JobStatus{Failed: 1}}
		s := &chain.Snapshot{Kind: chain.KindJob, Namespace: "shop", Name: "web", Job: job, Now: walkT0.Add(5 * time.Minute)}
		p := kindPod("web-a", job, "Job", corev1.PodFailed, false, nil)
		p.Status.Reason = "UnexpectedAdmissionError"
		p.Status.Message = "Pod Allocate failed due to device plugin GetPreferredAllocation rpc failed with err: rpc error: code = Unknown desc = Unable to retrieve list of available devices: error creating nvml.Device 5: nvml: GPU is lost, which is unexpected"
		p.Status.ContainerStatuses[0].State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{}}
		s.Pods = append(s.Pods, p)
		if retrying {
			job.Status.Active = 1
			s.Pods = append(s.Pods, kindPod("web-b", job, "Job", corev1.PodRunning, true, nil))
		}
		v := Walk(s, Options{}).Verdict
		if retrying {
			if v.Cause != decode.JobRunning {
				t.Errorf("retry under way: verdict %+v, want JobRunning", v)
			}
			continue
		}
		if v.Health != chain.Broken || v.Link != chain.LinkCompletion || v.Cause != decode.KubeletAdmissionRejected {
			t.Errorf("verdict %+v, want broken at completion with KubeletAdmissionRejected", v)
		}
	}
}
