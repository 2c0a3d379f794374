package diagnose

import (
	"fmt"
	"slices"

	"k8s.io/utils/ptr"

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
	st, ok := w.countedDone()
	if !ok {
		st = w.resourceStatus(w.s.Object)
	}
	kind := w.s.KindOf()
	st.Notes = append(st.Notes, fmt.Sprintf("the input held the %s alone, so its own status judges it past the links above; for its whole chain give what it leads to as well (%s), or walk it on the cluster", kind, aloneInput[kind]))
	return append(out, st)
}

// countedDone judges a Deployment whose input shows no conditions (a
// kubectl describe cut before its Conditions, pulumi-kubernetes#497) by
// its replica counts, when they say the rollout is done: every replica
// wanted is updated and available, none unavailable, none left over. The
// Deployment controller then holds Available True and Progressing
// NewReplicaSetAvailable; with no conditions, kstatus would read it as
// not Available. Counts that say less are left to kstatus.
func (w *walker) countedDone() (chain.Link, bool) {
	d := w.s.Deployment
	if d == nil || len(d.Status.Conditions) > 0 || d.Spec.Paused {
		return chain.Link{}, false
	}
	want := ptr.Deref(d.Spec.Replicas, 1)
	st := d.Status
	if st.UpdatedReplicas != want || st.AvailableReplicas != want || st.Replicas != want || st.UnavailableReplicas != 0 {
		return chain.Link{}, false
	}
	return chain.Link{ID: chain.LinkStatus, Status: chain.StatusOK,
		Summary: fmt.Sprintf("%d/%d replicas updated and available (the input shows no conditions: judged by these counts)", st.AvailableReplicas, want)}, true
}
