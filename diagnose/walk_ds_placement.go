package diagnose

import (
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// daemonPlacementFailures: until 1.12 the DaemonSet controller placed its
// pods itself and said why it could not place one on a node in a
// FailedPlacement event on the DaemonSet ("failed to place pod on
// NODE: Node didn't have enough resource: memory, ...",
// kubernetes#46386); it created no pod there, so no pod carries a
// FailedScheduling event. The newest one, not older than the newest pod,
// names the node and what it lacked.
func (w *walker) daemonPlacementFailures(c *collector, ds *appsv1.DaemonSet, newestPod time.Time) {
	evs := w.s.EventsFor("DaemonSet", ds.Name, ds.UID)
	for i := len(evs) - 1; i >= 0; i-- {
		e := evs[i]
		if e.Reason != "FailedPlacement" || !newestPod.IsZero() && e.Last.Before(newestPod) {
			continue
		}
		d, ok := decode.WorkloadWords(eventMessage(e))
		if !ok {
			continue
		}
		c.add(sighting{d: d, object: objectName(strings.ToLower(e.Object.Kind), ds.Name), since: e.First, repeats: e.Count,
			evidence: []chain.Evidence{eventEvidence(e)}})
		return
	}
}
