package diagnose

import (
	"fmt"
	"slices"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// childLinks are the first links of each chain that read objects other
// than the workload itself: its ReplicaSets, revisions, nodes or pods.
var childLinks = []chain.LinkID{chain.LinkReplicaSet, chain.LinkRevision, chain.LinkNodes, chain.LinkPods}

// aloneInput is what to read with a workload for its whole chain.
var aloneInput = map[chain.Kind]string{
	chain.KindDeployment:  "kubectl get deploy,rs,pods,events -o yaml",
	chain.KindRollout:     "kubectl get rollout,rs,pods,events -o yaml",
	chain.KindStatefulSet: "kubectl get sts,controllerrevisions,pvc,pods,events -o yaml",
	chain.KindDaemonSet:   "kubectl get ds,pods,nodes,events -o yaml",
	chain.KindCloneSet:    "kubectl get clonesets,pods,events -o yaml",
	chain.KindJob:         "kubectl get job,pods,events -o yaml",
	chain.KindCronJob:     "kubectl get cj,jobs,pods,events -o yaml",
}

// alone: a workload read alone (a file holding only it, as kubectl get
// deploy web -o yaml prints it) is walked as far as the object itself
// tells (stored: paused, suspended, its generation observed; a Rollout's
// own phase; a CronJob's schedule), then judged by its own status as any
// resource is (its kind's check in the catalogue, else kstatus): the
// ReplicaSets, pods and nodes its next links read were left out of the
// input, not found missing.
func (w *walker) alone(links []chain.Link) []chain.Link {
	var out []chain.Link
	for _, l := range links {
		if slices.Contains(childLinks, l.ID) {
			break
		}
		out = append(out, l)
	}
	if w.s.Job != nil {
		// A Job's own Failed condition (BackoffLimitExceeded,
		// DeadlineExceeded) is told by the object itself: its completion
		// link judges it as on the cluster.
		for _, l := range links {
			if l.ID == chain.LinkCompletion && l.Status == chain.StatusBroken {
				return append(out, l)
			}
		}
	}
	st := w.resourceStatus(w.s.Object)
	kind := w.s.KindOf()
	st.Notes = append(st.Notes, fmt.Sprintf("the input held the %s alone, so its own status judges it past the links above; for its whole chain give what it leads to as well (%s), or walk it on the cluster", kind, aloneInput[kind]))
	return append(out, st)
}
