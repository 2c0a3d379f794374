package component

import (
	"context"
	"strconv"
	"strings"

	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"

	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

// controllers are the kube-controller-manager controllers the lab runs:
// those that act on a walked workload's chain (deployment, replicaset,
// statefulset, daemonset, job, cronjob, quota, service accounts and root
// CA, namespaces, garbage collection, nodes and their taints, volumes and
// their protection, and the EndpointSlices of the serving link) and RBAC's
// aggregated roles.
// Every controller costs its own ServiceAccount and token at start (about
// 0.1 s each on 2 cores), so the rest stay off: cloud and node IPAM
// (node CIDRs are set by the simulated kubelet), certificate signers and
// bootstrap tokens (no TLS bootstrap), the legacy service-account token
// controller (pods get projected tokens), and what no chain reads
// (replication controllers, disruption budgets, the legacy Endpoints,
// finished Jobs' TTL).
var controllers = []string{
	"clusterrole-aggregation-controller",
	"cronjob-controller",
	"daemonset-controller",
	"deployment-controller",
	"endpointslice-controller",
	"garbage-collector-controller",
	"horizontal-pod-autoscaler-controller",
	"job-controller",
	"namespace-controller",
	"node-lifecycle-controller",
	"persistentvolume-binder-controller",
	"persistentvolume-protection-controller",
	"persistentvolumeclaim-protection-controller",
	"pod-garbage-collector-controller",
	"replicaset-controller",
	"resourcequota-controller",
	"root-ca-certificate-publisher-controller",
	"serviceaccount-controller",
	"statefulset-controller",
	"taint-eviction-controller",
}

// frozenOff are the controllers a frozen lab leaves off, so the objects
// `lab fill` writes keep their statuses: the workload controllers would
// create and delete pods, the node lifecycle and taint eviction
// controllers would mark the filled nodes (which no kubelet heartbeats)
// unreachable and their pods not ready, and garbage collection would
// act on owners it did not see created.
var frozenOff = map[string]bool{
	"cronjob-controller": true, "daemonset-controller": true, "deployment-controller": true,
	"garbage-collector-controller": true, "horizontal-pod-autoscaler-controller": true, "job-controller": true, "node-lifecycle-controller": true,
	"pod-garbage-collector-controller": true, "replicaset-controller": true,
	"statefulset-controller": true, "taint-eviction-controller": true,
}

// controllersOf are the controllers a lab of spec s runs.
func controllersOf(s state.Spec) []string {
	if !s.Frozen {
		return controllers
	}
	var on []string
	for _, c := range controllers {
		if !frozenOff[c] {
			on = append(on, c)
		}
	}
	return on
}

// controllerManagerArgs connects upstream's kube-controller-manager as
// system:kube-controller-manager, with one service-account identity per
// controller as kubeadm does. Leader election is off: a lab has one replica
// and a restarted one must not wait out a stale lease.
func controllerManagerArgs(l state.Layout, s state.Spec) []string {
	kc := l.ComponentKubeconfig(state.ControllerManager)
	return []string{
		"--kubeconfig=" + kc,
		"--authentication-kubeconfig=" + kc,
		"--authorization-kubeconfig=" + kc,
		"--bind-address=" + state.Host,
		"--secure-port=" + strconv.Itoa(s.Ports.ControllerManager),
		"--root-ca-file=" + l.Cert("ca"),
		"--use-service-account-credentials=true",
		"--controllers=" + strings.Join(controllersOf(s), ","),
		"--cluster-name=" + s.Name,
		"--service-cluster-ip-range=" + ServiceCIDR,
		"--kube-api-qps=" + strconv.Itoa(clientQPS),
		"--kube-api-burst=" + strconv.Itoa(clientBurst),
		"--leader-elect=false",
		"--profiling=false",
	}
}

// runControllerManager runs upstream's unmodified kube-controller-manager.
func runControllerManager(ctx context.Context, l state.Layout, s state.Spec) error {
	cmd := controllermanager.NewControllerManagerCommand()
	if err := awaitAPIServer(ctx, l.ComponentKubeconfig(state.ControllerManager)); err != nil {
		return err
	}
	cmd.SetArgs(controllerManagerArgs(l, s))
	return cmd.ExecuteContext(ctx)
}
