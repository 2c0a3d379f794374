package kubelet

import (
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// claimPod is a scheduled pod mounting claim web-data, with the claim and
// its hostPath volume at path, bound to each other when bound is set.
func claimPod(path string, bound bool) (*corev1.Pod, *corev1.PersistentVolumeClaim, *corev1.PersistentVolume) {
	pod := scheduledPod()
	pod.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "web-data"}}}}
	dir := corev1.HostPathDirectory
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "web-data", Namespace: "default", UID: "claim-uid"}}
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pvc-claim-uid"},
		Spec: corev1.PersistentVolumeSpec{PersistentVolumeSource: corev1.PersistentVolumeSource{
			HostPath: &corev1.HostPathVolumeSource{Path: path, Type: &dir}}},
	}
	if bound {
		pvc.Spec.VolumeName, pvc.Status.Phase = pv.Name, corev1.ClaimBound
		pv.Spec.ClaimRef = &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: "default", Name: "web-data", UID: pvc.UID}
	}
	return pod, pvc, pv
}

func TestWorkerBoundClaimRuns(t *testing.T) {
	pod, pvc, pv := claimPod(t.TempDir(), true)
	client, sink, _, ctx := startLabWorker(t, pod, pvc, pv)
	waitPod(t, ctx, client, func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	for _, e := range sink.list() {
		if e.Type == corev1.EventTypeWarning {
			t.Errorf("warning event for a bound claim: %+v", e)
		}
	}
}

// A claim that is not bound yet holds the pod in ContainerCreating without
// an event (the kubelet reports it only when its 2m3s mount wait runs out),
// and the pod starts once the claim is bound.
func TestWorkerUnboundClaimWaits(t *testing.T) {
	pod, pvc, pv := claimPod(t.TempDir(), false)
	client, sink, clk, ctx := startLabWorker(t, pod, pvc, pv)
	p := waitPod(t, ctx, client, func(p *corev1.Pod) bool { r, _ := waiting(p); return r == "ContainerCreating" })
	if p.Status.Phase != corev1.PodPending {
		t.Errorf("phase = %s, want Pending", p.Status.Phase)
	}
	_, bound, boundPV := claimPod(pv.Spec.HostPath.Path, true)
	if _, err := client.CoreV1().PersistentVolumeClaims("default").Update(ctx, bound, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.CoreV1().PersistentVolumes().Update(ctx, boundPV, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	step(t, ctx, clk, time.Second)
	waitPod(t, ctx, client, func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	if got := sink.list(); len(got) > 0 && got[0].Reason == "FailedMount" {
		t.Errorf("FailedMount for an unbound claim: %+v", got[0])
	}
}

// A hostPath volume whose directory is gone fails the hostPath plugin's
// type check, reported on the PersistentVolume's name.
func TestWorkerHostPathMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gone")
	pod, pvc, pv := claimPod(path, true)
	_, sink, _, _ := startLabWorker(t, pod, pvc, pv)
	for len(sink.list()) == 0 {
		time.Sleep(time.Millisecond)
	}
	want := recordedEvent{"", "Warning", "FailedMount", `MountVolume.SetUp failed for volume "pvc-claim-uid" : hostPath type check failed, ` +
		path + ` is not a directory, unable to determine its type: path "` + path + `" does not exist`}
	if got := sink.list()[0]; got != want {
		t.Errorf("event = %+v, want %+v", got, want)
	}
}
