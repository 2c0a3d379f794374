package diagnose

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// TestWalkClaimSnapshot: a StatefulSet's claim restored from a
// VolumeSnapshot that does not exist is broken at claims with the
// snapshot named, not as a generic provisioning failure.
func TestWalkClaimSnapshot(t *testing.T) {
	set, pod := claimedStatefulSet()
	pvc := corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "data-web-0", UID: "pvc-uid"},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}}
	// The format of external-provisioner v6.3.0 (controller.go:701,1292).
	ev := chain.Event{Type: "Warning", Reason: "ProvisioningFailed", Count: 4, First: walkT0, Last: walkT0.Add(time.Minute),
		Object:  chain.ObjectRef{Kind: "PersistentVolumeClaim", Name: "data-web-0", UID: "pvc-uid"},
		Message: `failed to provision volume with StorageClass "csi-hostpath-sc": error getting handle for DataSource Type VolumeSnapshot by Name snap-1: error getting snapshot snap-1 from api server: volumesnapshots.snapshot.storage.k8s.io "snap-1" not found`}
	s := &chain.Snapshot{Kind: chain.KindStatefulSet, Namespace: "shop", Name: "web", Now: walkT0.Add(2 * time.Minute),
		StatefulSet: set, Claims: []corev1.PersistentVolumeClaim{pvc}}
	s.Assemble(nil, []corev1.Pod{pod}, []chain.Event{ev})
	r := Walk(s, Options{})
	if r.Verdict.Link != chain.LinkClaims || r.Verdict.Cause != decode.ClaimSnapshotNotFound {
		t.Fatalf("verdict %s at %s (%s), want broken at claims (ClaimSnapshotNotFound)\n%s", r.Verdict.Health, r.Verdict.Link, r.Verdict.Cause, linkLines(r))
	}
}
