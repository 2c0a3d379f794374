package decode

import (
	"testing"

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
		// The CloneSet controller's wrapper (kruise cloneset_scale.go
		// createOnePod) around the API server's errors of the rows above.
		{`failed to create pod: pods "sample-x7k2p" is forbidden: exceeded quota: compute-resources, requested: pods=1, used: pods=10, limited: pods=10, pod: {"metadata":{"name":"sample-x7k2p","generateName":"sample-","namespace":"shop"}}`, QuotaExceeded},
		{`failed to create pvc: PersistentVolumeClaim "data-sample-x7k2p" is invalid: spec.accessModes: Required value: at least 1 access mode is required, pvc: {"metadata":{"name":"data-sample-x7k2p","namespace":"shop"}}`, ClaimCreateFailed},
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

func FuzzWorkloadWords(f *testing.F) {
	for _, s := range []string{`failed to place pod on "n": Node didn't have enough resource: cpu, requested: 1, used: 2, capacity: 3`,
		"create Claim data-web-0 for Pod web-0 in StatefulSet web failed error: x", `failed to provision volume with StorageClass "": `,
		"Found failed daemon pod a/b on node c, will try to kill it", `persistentvolumeclaim "" is being deleted`,
		`failed to create pvc: x, pvc: {"metadata":{"name":"`, "failed to create pod: , pod: {"} {
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
