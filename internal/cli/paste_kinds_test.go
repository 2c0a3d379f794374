package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// describePastes joins fixtures of internal/paste/testdata/describe:
// kubectl describe output printed by kubectl's own describers (their
// provenance is in its gen/main.go).
func describePastes(t *testing.T, names ...string) string {
	t.Helper()
	var b strings.Builder
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join("..", "paste", "testdata", "describe", n))
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
		b.WriteString("\n")
	}
	return b.String()
}

// TestPasteKinds: a paste of kubectl describe of each kind is walked as
// the same objects read from a cluster are, to the first broken link and
// its cause; node- and namespace-level causes name the node or quota.
func TestPasteKinds(t *testing.T) {
	type verdict struct {
		Kind          chain.Kind
		Name          string
		Link          chain.LinkID
		Cause         chain.CauseID
		Code          int
		Names, Stderr string
	}
	tests := []struct {
		name  string
		files []string
		args  []string // the target named, if any
		want  verdict
	}{{
		name:  "deployment-quota",
		files: []string{"deployment-quota.txt", "namespace.txt"},
		want:  verdict{chain.KindDeployment, "allocation-manager", chain.LinkPods, "QuotaExceeded", ExitBroken, "exceeded quota: namespace-quota", ""},
	}, {
		name:  "job-quota",
		files: []string{"job-quota.txt"},
		want:  verdict{chain.KindJob, "job-test-4", chain.LinkPods, "QuotaExceeded", ExitBroken, "exceeded quota: default", ""},
	}, {
		name:  "cronjob-backoff",
		files: []string{"cronjob.txt"},
		want:  verdict{chain.KindCronJob, "nightly", chain.LinkCompletion, "BackoffLimitExceeded", ExitBroken, "backoff limit 2", ""},
	}, {
		name:  "statefulset-claim",
		files: []string{"statefulset.txt", "sts-pod.txt", "pvc.txt"},
		want:  verdict{chain.KindStatefulSet, "db", chain.LinkClaims, "ClaimStorageClassNotFound", ExitBroken, `"fast"`, ""},
	}, {
		// The node's condition is the cause's evidence, named.
		name:  "daemonset-node-gone",
		files: []string{"daemonset.txt", "node-unknown.txt"},
		want:  verdict{chain.KindDaemonSet, "node-exporter", chain.LinkNodeAssignment, "NodeNotReady", ExitProgressing, "Kubelet stopped posting node status.", ""},
	}, {
		name:  "pod-node-gone",
		files: []string{"pod-on-lost-node.txt", "node-unknown.txt"},
		want:  verdict{chain.KindPod, "web-7c9d8f6b5-x2x7q", chain.LinkNodeAssignment, "NodeNotReady", ExitProgressing, "Kubelet stopped posting node status.", ""},
	}, {
		// A describe cut in its pod template: walked as far as it goes
		// (its claim templates are cut off: the pod's scheduling is what
		// the paste still shows), the cut named.
		name:  "statefulset-cut",
		files: []string{"cut:statefulset.txt", "sts-pod.txt"},
		want: verdict{chain.KindStatefulSet, "db", chain.LinkNodeAssignment, "UnboundPVC", ExitBroken, "unbound immediate",
			"the kubectl describe of statefulset shop/db is cut after Pod Template"},
	}, {
		// Traffic: the Ingress to the Service to its slice, whose only
		// address is the pod on the node gone.
		name:  "ingress",
		files: []string{"ingress.txt", "service.txt", "endpointslice.txt", "pod-on-lost-node.txt", "node-unknown.txt"},
		args:  []string{"ing/web"},
		want:  verdict{chain.KindIngress, "web", "workloads", "NoReadyEndpoint", ExitBroken, "paste kubectl get ingressclass too", ""},
	}, {
		// A Service alone: its pods are not in the paste, not missing.
		name:  "service-alone",
		files: []string{"service.txt", "endpoints.txt"},
		want:  verdict{chain.KindService, "web", chain.LinkSelector, "EvidenceUnavailable", ExitUnknown, "paste kubectl get pods -n shop --show-labels too", ""},
	}, {
		name:  "claim",
		files: []string{"pvc.txt"},
		args:  []string{"pvc/data-db-0"},
		want:  verdict{"PersistentVolumeClaim", "data-db-0", "status", "ClaimStorageClassNotFound", ExitBroken, `storageclass.storage.k8s.io \"fast\" not found`, ""},
	}, {
		// A quota is judged by its own status (kstatus): a full one is no
		// failure of its own; the workload it refuses names it.
		name:  "quota",
		files: []string{"resourcequota.txt"},
		args:  []string{"quota/namespace-quota"},
		want:  verdict{"ResourceQuota", "namespace-quota", "", "", ExitHealthy, "", ""},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in strings.Builder
			for _, f := range tt.files {
				text := describePastes(t, strings.TrimPrefix(f, "cut:"))
				if f != strings.TrimPrefix(f, "cut:") {
					text, _, _ = strings.Cut(text, "    Mounts:")
				}
				in.WriteString(text + "\n")
			}
			r := runStdin(t, in.String(), append([]string{"-f", "-", "-o", "json"}, tt.args...)...)
			var rep chain.Report
			decodeJSON(t, r.stdout, &rep)
			got := verdict{rep.Kind, rep.Name, rep.Verdict.Link, rep.Verdict.Cause, r.code, tt.want.Names, tt.want.Stderr}
			if !strings.Contains(r.stdout, tt.want.Names) {
				got.Names = "(not in the report)"
			}
			if !strings.Contains(r.stderr, tt.want.Stderr) {
				got.Stderr = r.stderr
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestPasteAllPods: --all over a paste of pods whose workloads it lacks
// judges each owner's pods, in JSON and exit code as for objects; a
// workload described beside them is judged with its own pods.
func TestPasteAllPods(t *testing.T) {
	in := describePastes(t, "pod-on-lost-node.txt", "node-unknown.txt", "statefulset.txt", "sts-pod.txt", "pvc.txt", "daemonset.txt")
	r := runStdin(t, in, "-f", "-", "--all", "-o", "json")
	var l chain.ReportList
	decodeJSON(t, r.stdout, &l)
	var got []string
	for _, rep := range l.Items {
		got = append(got, strings.Join([]string{string(rep.Kind), rep.Namespace, rep.Name, rep.Via, string(rep.Verdict.Health), string(rep.Verdict.Cause)}, " "))
	}
	want := []string{
		"StatefulSet shop db  broken ClaimStorageClassNotFound",
		"DaemonSet shop node-exporter  progressing NodeNotReady",
		"Pod shop web-7c9d8f6b5-x2x7q replicaset/web-7c9d8f6b5 progressing NodeNotReady",
	}
	if diff := cmp.Diff(want, got); diff != "" || r.code != ExitBroken || l.Health != chain.Broken {
		t.Errorf("exit %d, health %s (-want +got):\n%s\n%s", r.code, l.Health, diff, r.stderr)
	}
	// A get pods table alone: one walk per owner, by the
	// pod-template-hash shape of the names.
	r = runStdin(t, realPaste(t, "aegis-293-get-pods.txt")+realPaste(t, "aegis-293-event-rows.txt"), "-f", "-", "--all", "-o", "json")
	l = chain.ReportList{}
	decodeJSON(t, r.stdout, &l)
	got = nil
	for _, rep := range l.Items {
		got = append(got, rep.Name+" "+rep.Via+" "+string(rep.Verdict.Cause))
	}
	want = []string{"aegis-workload-demo-54744f95f7-2zm7d replicaset/aegis-workload-demo-54744f95f7 ",
		"aegis-workload-demo-76f5f7dc46-vfldl replicaset/aegis-workload-demo-76f5f7dc46 ConfigKeyNotFound"}
	if diff := cmp.Diff(want, got); diff != "" || r.code != ExitBroken {
		t.Errorf("exit %d (-want +got):\n%s", r.code, diff)
	}
}
