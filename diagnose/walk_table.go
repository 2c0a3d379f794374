package diagnose

import (
	"fmt"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// walks are the walks, one per row of the kinds table (chain.KindTable):
// Walk dispatches on the kind here and nowhere else, and
// TestEveryKindHasAWalk fails on a row without one. (A function, not a
// variable: a Service's walk quotes the walks of the workloads it selects.)
func walks() map[chain.Kind]func(w *walker, r *chain.Report) {
	// Each link is judged with what the ones before it established; the
	// ready link also reads their statuses: it judges the rollout even
	// with no pod running, unless an earlier link already explains why.
	deployment := func(w *walker, r *chain.Report) {
		r.Links = []chain.Link{w.stored(), w.replicaSet(), w.podsLink(), w.nodeAssignment(), w.containers()}
		r.Links = append(r.Links, w.ready(r.Links, w.deploymentRollout()))
		w.progressDeadline(r.Links)
		r.ReplicaSets = w.replicaSetSummaries()
	}
	rollout := func(w *walker, r *chain.Report) {
		r.Links = w.rolloutLinks()
		r.ReplicaSets = w.replicaSetSummaries()
	}
	traffic := func(w *walker, r *chain.Report) { r.Links = w.trafficLinks() }
	// The other kinds have their own first links; the pods,
	// node-assignment, containers and ready links are the Deployment's,
	// judged on the pods the kind's own links picked.
	found := func(links func(w *walker) []chain.Link) func(w *walker, r *chain.Report) {
		return func(w *walker, r *chain.Report) {
			if w.s.Workload() == nil {
				r.Links = w.notFound(decode.WorkloadNotFound)
				return
			}
			r.Links = links(w)
		}
	}
	return map[chain.Kind]func(w *walker, r *chain.Report){
		chain.KindDeployment:  deployment,
		chain.KindRollout:     rollout,
		chain.KindStatefulSet: found((*walker).statefulSetLinks),
		chain.KindDaemonSet:   found((*walker).daemonSetLinks),
		chain.KindCloneSet:    found((*walker).cloneSetLinks),
		chain.KindJob:         found((*walker).jobLinks),
		chain.KindCronJob:     found((*walker).cronJobLinks),
		chain.KindPod:         found((*walker).podLinks),
		chain.KindService:     traffic,
		chain.KindIngress:     traffic,
		chain.KindGateway:     traffic,
		chain.KindHTTPRoute:   traffic,
		chain.KindGRPCRoute:   traffic,
		chain.KindTLSRoute:    traffic,
	}
}

// walkKind walks the links of a kind of the kinds table. One without a
// walk is a programming error (TestEveryKindHasAWalk): it says so on its
// stored link rather than falling silently into another walk.
func (w *walker) walkKind(r *chain.Report) {
	if walk, ok := walks()[w.s.KindOf()]; ok {
		walk(w, r)
		return
	}
	r.Links = []chain.Link{{ID: chain.LinkStored, Status: chain.StatusUnknown,
		Summary: fmt.Sprintf("kubectl chain has no walk for %s", w.s.KindOf())}}
}
