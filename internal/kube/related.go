package kube

import (
	"context"
	"fmt"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/internal/capture"
)

// Related reads the objects the snapshot's evidence refers to, which a
// capture carries beside it (capture.Related): one list of claims, one of
// quotas, one GET per node named by a pod.
func (r *Reader) Related(ctx context.Context, s *chain.Snapshot) *capture.Related {
	out := &capture.Related{}
	claims := map[string]bool{}
	nodes := map[string]bool{}
	for _, p := range s.Pods {
		for _, v := range p.Spec.Volumes {
			if v.PersistentVolumeClaim != nil {
				claims[v.PersistentVolumeClaim.ClaimName] = true
			}
		}
		for _, n := range []string{p.Spec.NodeName, p.Status.NominatedNodeName} {
			if n != "" {
				nodes[n] = true
			}
		}
	}
	if len(claims) > 0 {
		l, err := r.Client.CoreV1().PersistentVolumeClaims(s.Namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			out.Missing = append(out.Missing, fmt.Sprintf("PersistentVolumeClaims (%v)", err))
		} else {
			for _, c := range l.Items {
				if claims[c.Name] {
					c.ManagedFields = nil
					out.Claims = append(out.Claims, c)
				}
			}
		}
	}
	if l, err := r.Client.CoreV1().ResourceQuotas(s.Namespace).List(ctx, metav1.ListOptions{}); err != nil {
		out.Missing = append(out.Missing, fmt.Sprintf("ResourceQuotas (%v)", err))
	} else {
		for _, q := range l.Items {
			q.ManagedFields = nil
			out.Quotas = append(out.Quotas, q)
		}
	}
	names := make([]string, 0, len(nodes))
	for n := range nodes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		node, err := r.Client.CoreV1().Nodes().Get(ctx, n, metav1.GetOptions{})
		if err != nil {
			out.Missing = append(out.Missing, fmt.Sprintf("node %s (%v)", n, err))
			continue
		}
		node.ManagedFields = nil
		node.Status.Images = nil // long, and not evidence
		out.Nodes = append(out.Nodes, *node)
	}
	return out
}
