package paste

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestCreators rebuilds the owners that a paste shows only by their
// controller's FailedCreate rows.
func TestCreators(t *testing.T) {
	type ownerSum struct {
		Kind, Name, Owner string
		Want, Have        int32
		Selector          string
	}
	tests := []struct {
		name  string
		files []string
		want  []ownerSum
	}{{
		// A describe's row alone: the ReplicaSet its message names, and
		// the Deployment its name shows.
		name:  "rs row",
		files: []string{"coder-logstream-kube-3-rs-event-row.txt"},
		want: []ownerSum{{Kind: "Deployment", Name: "coder-benzo-my-workspace", Want: 1, Selector: "pod-template-hash=6df987574"},
			{Kind: "ReplicaSet", Name: "coder-benzo-my-workspace-6df987574", Owner: "Deployment/coder-benzo-my-workspace", Want: 1, Selector: "pod-template-hash=6df987574"}},
	}, {
		// Refused before it was named: pods "NAME-HASH-".
		name:  "generate name",
		files: []string{"kube-stresscheck-7-rs-event-row.txt"},
		want: []ownerSum{{Kind: "Deployment", Name: "kube-stresscheck", Want: 1, Selector: "pod-template-hash=7f75dbbcb7"},
			{Kind: "ReplicaSet", Name: "kube-stresscheck-7f75dbbcb7", Owner: "Deployment/kube-stresscheck", Want: 1, Selector: "pod-template-hash=7f75dbbcb7"}},
	}, {
		// get events rows of before 1.14 without their header; one pod of
		// the ReplicaSet is shown (by its Killing event).
		name:  "old get events",
		files: []string{"cloud-platform-590-get-events.txt"},
		want: []ownerSum{{Kind: "Deployment", Name: "allocation-manager", Want: 2, Have: 1, Selector: "pod-template-hash=6597bc46dc"},
			{Kind: "ReplicaSet", Name: "allocation-manager-6597bc46dc", Owner: "Deployment/allocation-manager", Want: 2, Have: 1, Selector: "pod-template-hash=6597bc46dc"}},
	}, {
		// The StatefulSet controller's wording: it wants the ordinal it
		// could not create.
		name:  "statefulset",
		files: []string{"cnp-flux-config-13765-event-rows.txt"},
		want:  []ownerSum{{Kind: "StatefulSet", Name: "fpl-case-service-pr-3308-es-master", Want: 1}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Parse(readPaste(t, tc.files...))
			var got []ownerSum
			for _, d := range r.Deployments {
				got = append(got, ownerSum{Kind: "Deployment", Name: d.Name, Want: *d.Spec.Replicas, Have: d.Status.Replicas, Selector: metav1.FormatLabelSelector(d.Spec.Selector)})
			}
			for _, rs := range r.ReplicaSets {
				s := ownerSum{Kind: "ReplicaSet", Name: rs.Name, Want: *rs.Spec.Replicas, Have: rs.Status.Replicas, Selector: metav1.FormatLabelSelector(rs.Spec.Selector)}
				if ref := metav1.GetControllerOf(&rs); ref != nil {
					s.Owner = ref.Kind + "/" + ref.Name
				}
				got = append(got, s)
			}
			for _, s := range r.StatefulSets {
				got = append(got, ownerSum{Kind: "StatefulSet", Name: s.Name, Want: *s.Spec.Replicas, Have: s.Status.Replicas})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("owners (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPodsOfRowsAndEvents reads pods from rows without a header, framed
// rows, Init: statuses and the kubelet's events alone.
func TestPodsOfRowsAndEvents(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		want  []podSum
	}{{
		// Two listings of one pod: the later; Init:CrashLoopBackOff.
		name:  "init crash loop",
		files: []string{"certificate-init-container-13-get-pods.txt"},
		want: []podSum{{Name: "tls-app-dc7787455-69rhx", Node: unknownNode, Phase: "Pending",
			Containers: []ctrSum{{Name: "#1", State: "waiting CrashLoopBackOff", Restarts: 1}}}},
	}, {
		// Rows without their header (-o wide): Evicted, Running. An
		// evicted row's containers are the ones READY counts (the walk
		// judges the pod by its reason).
		name:  "headerless wide",
		files: []string{"pmem-csi-261-get-pods.txt"},
		want: []podSum{
			{Name: "pmem-csi-node-testing-dml4m", Node: "host-1", Phase: "Failed", Containers: []ctrSum{{Name: "#1", State: "running"}}},
			{Name: "pmem-csi-node-testing-fn86q", Node: "host-3", Phase: "Running", Containers: []ctrSum{{Name: "#1", State: "running", Ready: true}}, Conditions: []string{"Ready=True"}},
			{Name: "pmem-csi-node-testing-pz64d", Node: "host-2", Phase: "Running", Containers: []ctrSum{{Name: "#1", State: "running", Ready: true}}, Conditions: []string{"Ready=True"}},
			{Name: "pmem-csi-node-w56mn", Node: "host-1", Phase: "Failed", Containers: []ctrSum{{Name: "#1", State: "running"}, {Name: "#2", State: "running"}}},
		},
	}, {
		// Framed by a terminal UI's bars, a message wrapped: the pull's
		// state and its image.
		name:  "framed rows",
		files: []string{"kubelet-csr-approver-8-event-rows.txt"},
		want: []podSum{{Name: unnamed, Node: unknownNode, Phase: "Pending",
			Containers: []ctrSum{{Name: "#1", Image: "pf/kubelet-csr-approver:0.1.0", State: "waiting ImagePullBackOff Back-off pulling image \"pf/kubelet-csr-approver:0.1.0\""}}}},
	}, {
		// Started after a failed mount: it runs.
		name:  "started after a failed mount",
		files: []string{"openebs-92-events.txt"},
		want: []podSum{{Name: "tests-fio", Node: "kubeminion-01", Phase: "Running",
			Containers: []ctrSum{{Name: "tests-fio", State: "running", Ready: true}}, Conditions: []string{"Ready=True"}}},
	}, {
		// Killed by its liveness probe: it runs again, restarted.
		name:  "liveness kill",
		files: []string{"trivy-dojo-report-operator-24-events.txt"},
		want: []podSum{{Name: "chart-name-trivy-dojo-report-operator-operator-57c9f5c84-qzjh7", Namespace: "default", Node: "minikube", Phase: "Running",
			Containers: []ctrSum{{Name: "trivy-dojo-report-operator", Image: "registry.example.com/telekom-mms/docker-trivy-dojo-operator:trivy-dojo-report-operator-0.3.3", State: "running", Restarts: 1}},
			Conditions: []string{"Ready=False"}}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Parse(readPaste(t, tc.files...))
			var got []podSum
			for _, p := range r.Pods {
				got = append(got, sumPod(p))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("pods (-want +got):\n%s", diff)
			}
		})
	}
}
