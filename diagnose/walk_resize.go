package diagnose

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// resizePending reports a running pod whose in-place resize the kubelet
// did not grant: the PodResizePending condition (1.33+) with reason
// Infeasible (broken: the node can never hold it) or Deferred
// (progressing: it waits for room), or, from 1.27 to 1.32, status.resize
// with the same words. The pod runs on with its old resources, so nothing
// else on the chain shows it.
func (pc *podCtx) resizePending() bool {
	p := pc.p
	for _, c := range p.Status.Conditions {
		if c.Type != corev1.PodResizePending || c.Status != corev1.ConditionTrue {
			continue
		}
		pc.add(decode.Resize(c.Reason, c.Message), c.LastTransitionTime.Time, 0,
			chain.Evidence{Source: chain.SourceCondition, Object: pc.obj, Field: "status.conditions[PodResizePending]", Reason: c.Reason, Message: c.Message})
		return true
	}
	//nolint:staticcheck // status.resize is what 1.27-1.32 report; captures of them have nothing else.
	switch r := string(p.Status.Resize); r {
	case corev1.PodReasonInfeasible, corev1.PodReasonDeferred:
		pc.add(decode.Resize(r, ""), time.Time{}, 0,
			chain.Evidence{Source: chain.SourceObjectStatus, Object: pc.obj, Field: "status.resize", Message: r})
		return true
	}
	return false
}
