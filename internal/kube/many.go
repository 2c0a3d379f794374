package kube

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/internal/capture"
)

// pageSize bounds each response when reading a whole namespace or cluster.
const pageSize = 500

// Many reads every workload of a namespace ("" for all namespaces) that
// matches a label selector ("" for all): its Deployments, StatefulSets,
// DaemonSets, Jobs and CronJobs, with all ReplicaSets, Pods and events of
// that scope (and the revisions, claims and nodes when a StatefulSet or
// DaemonSet is among them), as one bundle the walk can cut per workload.
// The cost is one request per resource (see Mirror), whatever the number
// of workloads. A forbidden list other than the Deployments' is a gap
// every snapshot cut from the bundle carries.
func (r *Reader) Many(ctx context.Context, namespace, selector string) (*capture.Bundle, []chain.Gap, int, error) {
	m, err := r.Mirror(ctx, namespace, selector, false, nil)
	if err != nil {
		return nil, nil, 0, err
	}
	return m.Bundle(), m.Gaps, m.Requests, nil
}

// paged runs a list page by page, counting each request.
func paged(ctx context.Context, requests *int, opts metav1.ListOptions, list func(metav1.ListOptions) (string, error)) error {
	opts.Limit = pageSize
	for {
		next, err := list(opts)
		*requests++
		if err != nil || next == "" {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		opts.Continue = next
	}
}
