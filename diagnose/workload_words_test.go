package diagnose

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// TestWorkloadWords: the daemon set, StatefulSet, PV and node lifecycle
// controllers' real messages (testdata/real/messages/daemonsets, statefulsets,
// claims, nodes) decode to their causes.
func TestWorkloadWords(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want chain.CauseID
	}{
		{"Found failed daemon pod instana-agent/hello-daemonset-hd67x on node ip-172-31-38-104.ec2.internal, will try to kill it", FailedPodRecreated},
		{"StatefulSet default/polardbx-tjxuol-dn is recreating failed Pod polardbx-tjxuol-dn-0", FailedPodRecreated},
		{`failed to place pod on "k8s-master": host port conflict`, NodePortConflict},
		{`failed to place pod on "ip-xx-xx-xx-xx.us-west-2.compute.internal": Node didn't have enough resource: memory, requested: 1073741824, used: 25347227648, capacity: 26225393664`, InsufficientMemory},
		{"This daemon set is selecting all pods. A non-empty selector is required.", SelectorMissing},
		{`create Pod web-1 in StatefulSet web failed error: pods "web-1" is forbidden: exceeded quota: compute-resources, requested: pods=1, used: pods=10, limited: pods=10`, QuotaExceeded},
		{`create Pod nginx-sts-0 in StatefulSet nginx-sts failed error: failed to create PVC data-nginx-sts-0: PersistentVolumeClaim "data-nginx-sts-0" is invalid: spec.accessModes: Required value: at least 1 access mode is required`, ClaimCreateFailed},
		{`storageclass.storage.k8s.io "swarm-storage" not found`, ClaimStorageClassNotFound},
		{"no persistent volumes available for this claim and no storage class is set", ClaimNoStorageClass},
		{"waiting for first consumer to be created before binding", ClaimWaitingForConsumer},
		{"waiting for pod web-0 to be scheduled", ClaimWaitingForConsumer},
		{`waiting for a volume to be created, either by external provisioner "disk.csi.azure.com" or manually created by system administrator`, ClaimPending},
		{`failed to provision volume with StorageClass "ebs-sc": rpc error: code = Internal desc = Could not create volume "pvc-xyz": could not create volume in EC2: UnauthorizedOperation: You are not authorized to perform this operation.`, ClaimProvisionerUnauthorized},
		{`Failed to provision volume with StorageClass "fast": googleapi: Error 403: Quota 'SSD_TOTAL_GB' exceeded. Limit: 100.0 in region us-west1., quotaExceeded`, ClaimStorageQuotaExceeded},
		{`failed to provision volume with StorageClass "local-path": failed to create volume pvc-cf3ec07d-00c6-431c-a2bd-cedf177b4b7f: create process timeout after 120 seconds`, ClaimProvisioningFailed},
		{"Bound claim has lost its PersistentVolume. Data on the volume is lost!", ClaimLost},
		{`persistentvolumeclaim "nginx-logs-nginx-deployment-1" is being deleted`, ClaimDeleting},
		{"Kubelet stopped posting node status.", NodeNotReady},
		{"Node is not ready", NodeNotReady},
		{"Node 10.6.0.188 which was running pod web-0 is unresponsive", NodeNotReady},
		{"Node ip-10-0-3-17.ec2.internal status is now: NodeNotReady", NodeNotReady},
	} {
		d, ok := WorkloadWords(tc.msg)
		if !ok || d.Cause != tc.want {
			t.Errorf("WorkloadWords(%q) = %s (%v), want %s", tc.msg, d.Cause, ok, tc.want)
		}
		if got := first(Explain("", tc.msg)); got != tc.want {
			t.Errorf("Explain(%q) = %s, want %s", tc.msg, got, tc.want)
		}
	}
	for _, msg := range []string{"", "Node is ready", "waiting for the condition", `failed to place pod on "n1"`} {
		if d, ok := WorkloadWords(msg); ok {
			t.Errorf("WorkloadWords(%q) = %s, want nothing", msg, d.Cause)
		}
	}
}

// first is the cause Explain leads with.
func first(ds []Decoded) chain.CauseID {
	if len(ds) == 0 {
		return ""
	}
	return ds[0].Cause
}

// TestWalkClaimStorageClassNotFound: a StatefulSet's claim whose class does
// not exist is broken at claims with the class named (ethersphere/helm#143).
func TestWalkClaimStorageClassNotFound(t *testing.T) {
	set := statefulSet(0, appsv1.OrderedReadyPodManagement)
	set.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data"}}}
	set.Status.UpdateRevision, set.Status.CurrentRevision = "web-new", "web-new"
	rev := map[string]string{appsv1.ControllerRevisionHashLabelKey: "web-new"}
	pod := kindPod("web-0", set, "StatefulSet", corev1.PodPending, false, rev)
	pod.Spec.NodeName = ""
	pvc := corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "data-web-0", UID: "pvc-uid"},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}}
	ev := chain.Event{Type: "Warning", Reason: "ProvisioningFailed", Count: 22, First: walkT0, Last: walkT0.Add(5 * time.Minute),
		Object:  chain.ObjectRef{Kind: "PersistentVolumeClaim", Name: "data-web-0", UID: "pvc-uid"},
		Message: `storageclass.storage.k8s.io "swarm-storage" not found`}
	s := &chain.Snapshot{Kind: chain.KindStatefulSet, Namespace: "shop", Name: "web", Now: walkT0.Add(6 * time.Minute),
		StatefulSet: set, Claims: []corev1.PersistentVolumeClaim{pvc}}
	s.Assemble(nil, []corev1.Pod{pod}, []chain.Event{ev})
	r := Walk(s, Options{})
	if r.Verdict.Link != chain.LinkClaims || r.Verdict.Cause != ClaimStorageClassNotFound {
		t.Fatalf("verdict %s at %s (%s), want at claims (ClaimStorageClassNotFound)\n%s", r.Verdict.Health, r.Verdict.Link, r.Verdict.Cause, linkLines(r))
	}
}

func FuzzWorkloadWords(f *testing.F) {
	for _, s := range []string{`failed to place pod on "n": Node didn't have enough resource: cpu, requested: 1, used: 2, capacity: 3`,
		"create Claim data-web-0 for Pod web-0 in StatefulSet web failed error: x", `failed to provision volume with StorageClass "": `,
		"Found failed daemon pod a/b on node c, will try to kill it", `persistentvolumeclaim "" is being deleted`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		if d, ok := WorkloadWords(msg); ok {
			if _, known := Lookup(d.Cause); !known {
				t.Fatalf("WorkloadWords(%q) = unknown cause %q", msg, d.Cause)
			}
		}
	})
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
		{[]chain.Event{wait}, ClaimPending},
		{[]chain.Event{failed, wait}, ClaimProvisionerUnauthorized},
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
