package diagnose

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// TestWalkClaimStorageClassNotFound: a StatefulSet's claim whose class does
// not exist is broken at claims with the class named (ethersphere/helm#143).
func TestWalkClaimStorageClassNotFound(t *testing.T) {
	set, pod := claimedStatefulSet()
	pvc := corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "data-web-0", UID: "pvc-uid"},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}}
	ev := chain.Event{Type: "Warning", Reason: "ProvisioningFailed", Count: 22, First: walkT0, Last: walkT0.Add(5 * time.Minute),
		Object:  chain.ObjectRef{Kind: "PersistentVolumeClaim", Name: "data-web-0", UID: "pvc-uid"},
		Message: `storageclass.storage.k8s.io "swarm-storage" not found`}
	s := &chain.Snapshot{Kind: chain.KindStatefulSet, Namespace: "shop", Name: "web", Now: walkT0.Add(6 * time.Minute),
		StatefulSet: set, Claims: []corev1.PersistentVolumeClaim{pvc}}
	s.Assemble(nil, []corev1.Pod{pod}, []chain.Event{ev})
	r := Walk(s, Options{})
	if r.Verdict.Link != chain.LinkClaims || r.Verdict.Cause != decode.ClaimStorageClassNotFound {
		t.Fatalf("verdict %s at %s (%s), want at claims (ClaimStorageClassNotFound)\n%s", r.Verdict.Health, r.Verdict.Link, r.Verdict.Cause, linkLines(r))
	}
}

// TestWalkClaimExternalProvisioner: a claim that only ever waits for its
// external provisioner names it (jonashackt/tekton-argocd-eks#118: EKS 1.23
// without the EBS CSI driver), and a failure the provisioner reported beside
// the wait wins.
func TestWalkClaimExternalProvisioner(t *testing.T) {
	set := statefulSet(0, appsv1.OrderedReadyPodManagement)
	set.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data"}}}
	set.Status.UpdateRevision, set.Status.CurrentRevision = "web-new", "web-new"
	rev := map[string]string{appsv1.ControllerRevisionHashLabelKey: "web-new"}
	pod := kindPod("web-0", set, "StatefulSet", corev1.PodPending, false, rev)
	pvc := corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "data-web-0", UID: "pvc-uid",
		CreationTimestamp: metav1.NewTime(walkT0)}, Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}}
	claim := chain.ObjectRef{Kind: "PersistentVolumeClaim", Name: "data-web-0", UID: "pvc-uid"}
	wait := chain.Event{Type: "Normal", Reason: "ExternalProvisioning", Count: 8, First: walkT0, Last: walkT0.Add(2 * time.Minute), Object: claim,
		Message: `waiting for a volume to be created, either by external provisioner "ebs.csi.aws.com" or manually created by system administrator`}
	failed := chain.Event{Type: "Warning", Reason: "ProvisioningFailed", Count: 3, First: walkT0, Last: walkT0.Add(time.Minute), Object: claim,
		Message: `failed to provision volume with StorageClass "ebs-sc": rpc error: code = Internal desc = UnauthorizedOperation: You are not authorized to perform this operation.`}
	for _, tc := range []struct {
		events []chain.Event
		want   chain.CauseID
	}{
		{[]chain.Event{wait}, decode.ClaimPending},
		{[]chain.Event{failed, wait}, decode.ClaimProvisionerUnauthorized},
	} {
		s := &chain.Snapshot{Kind: chain.KindStatefulSet, Namespace: "shop", Name: "web", Now: walkT0.Add(3 * time.Minute),
			StatefulSet: set, Claims: []corev1.PersistentVolumeClaim{pvc}}
		s.Assemble(nil, []corev1.Pod{pod}, tc.events)
		r := Walk(s, Options{})
		if r.Verdict.Link != chain.LinkClaims || r.Verdict.Cause != tc.want {
			t.Errorf("verdict %s at %s (%s), want at claims (%s)\n%s", r.Verdict.Health, r.Verdict.Link, r.Verdict.Cause, tc.want, linkLines(r))
		}
	}
}

// TestBarePodClaimFromSnapshot: a bare pod's claim restored from a
// VolumeSnapshot names the snapshot as a StatefulSet's claims link does,
// at the pod's node-assignment link (a bare pod has no claims link). The
// provisioner's words are aws-ebs-csi-driver#1209's: the claim asks for less
// than the snapshot holds.
func TestBarePodClaimFromSnapshot(t *testing.T) {
	pod := kindPod("web", &metav1.ObjectMeta{Name: "none"}, "", corev1.PodPending, false, map[string]string{"app": "web"})
	pod.OwnerReferences = nil
	pod.Spec.NodeName = ""
	pod.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "pc-data"}}}}
	pod.Status.ContainerStatuses = nil
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable",
		LastTransitionTime: metav1.NewTime(walkT0),
		// The scheduler's words for an unbound claim (v1.37.2 volumebinding).
		Message: `0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.`}}
	apiGroup := "snapshot.storage.k8s.io"
	pvc := corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "pc-data", UID: "pvc-uid", CreationTimestamp: metav1.NewTime(walkT0)},
		Spec:   corev1.PersistentVolumeClaimSpec{DataSource: &corev1.TypedLocalObjectReference{APIGroup: &apiGroup, Kind: "VolumeSnapshot", Name: "velero-pc-data-lmkpz"}},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}}
	ev := chain.Event{Type: "Warning", Reason: "ProvisioningFailed", Count: 9, First: walkT0, Last: walkT0.Add(4 * time.Minute),
		Object:  chain.ObjectRef{Kind: "PersistentVolumeClaim", Name: "pc-data", UID: "pvc-uid"},
		Message: `failed to provision volume with StorageClass "gp2-csi": error getting handle for DataSource Type VolumeSnapshot by Name velero-pc-data-lmkpz: requested volume size 104857600 is less than the size 1073741824 for the source snapshot velero-pc-data-lmkpz`}
	s := &chain.Snapshot{Kind: chain.KindPod, Namespace: "shop", Name: "web", Now: walkT0.Add(5 * time.Minute),
		Claims: []corev1.PersistentVolumeClaim{pvc}}
	s.Assemble(nil, []corev1.Pod{pod}, []chain.Event{ev})
	r := Walk(s, Options{})
	if r.Verdict.Cause != decode.ClaimSmallerThanSnapshot {
		t.Fatalf("verdict %s at %s (%s), want ClaimSmallerThanSnapshot\n%s", r.Verdict.Health, r.Verdict.Link, r.Verdict.Cause, linkLines(r))
	}
	if f := r.Link(r.Verdict.Link).Findings[0]; !strings.Contains(f.Summary, "velero-pc-data-lmkpz") {
		t.Errorf("summary %q does not name the snapshot", f.Summary)
	}
}

// TestWalkClaimNoClass: a StatefulSet's claim that says it has no class
// (storageClassName "", what kubectl prints as an empty StorageClass) and
// stays Pending with no event is ClaimNoStorageClass once its grace is
// past; a claim whose class the input leaves unset is only Pending, the
// PersistentVolume controller's event deciding (k3s#85,
// local-path-provisioner#35: claims without a class, no default class).
func TestWalkClaimNoClass(t *testing.T) {
	set, pod := claimedStatefulSet()
	none := ""
	for _, tc := range []struct {
		class *string
		want  chain.CauseID
	}{
		{&none, decode.ClaimNoStorageClass},
		{nil, decode.ClaimPending},
	} {
		pvc := corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "data-web-0", UID: "pvc-uid",
			CreationTimestamp: metav1.NewTime(walkT0)}, Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: tc.class},
			Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}}
		s := &chain.Snapshot{Kind: chain.KindStatefulSet, Namespace: "shop", Name: "web", Now: walkT0.Add(10 * time.Minute),
			StatefulSet: set, Claims: []corev1.PersistentVolumeClaim{pvc}}
		s.Assemble(nil, []corev1.Pod{pod}, nil)
		r := Walk(s, Options{})
		if r.Verdict.Link != chain.LinkClaims || r.Verdict.Cause != tc.want {
			t.Errorf("class %v: verdict %s at %s (%s), want at claims (%s)\n%s", tc.class, r.Verdict.Health, r.Verdict.Link, r.Verdict.Cause, tc.want, linkLines(r))
		}
	}
}

// claimedStatefulSet is a StatefulSet of one volume claim template
// ("data") at its current revision, and its pod web-0, Pending and not
// yet scheduled.
func claimedStatefulSet() (*appsv1.StatefulSet, corev1.Pod) {
	set := statefulSet(0, appsv1.OrderedReadyPodManagement)
	set.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data"}}}
	set.Status.UpdateRevision, set.Status.CurrentRevision = "web-new", "web-new"
	rev := map[string]string{appsv1.ControllerRevisionHashLabelKey: "web-new"}
	pod := kindPod("web-0", set, "StatefulSet", corev1.PodPending, false, rev)
	pod.Spec.NodeName = ""
	return set, pod
}
