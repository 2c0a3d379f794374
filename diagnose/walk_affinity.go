package diagnose

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// affinityNamed says what the pods ask for when the scheduler found no
// node that matches their node selector or required node affinity
// (NodeAffinityMismatch, whose words name neither): the selector and the
// required terms from the pod's spec and, when the nodes were read (a
// DaemonSet's, a capture's), the labels of the selector no node has.
func (w *walker) affinityNamed(links []chain.Link) {
	for i := range links {
		for j := range links[i].Findings {
			f := &links[i].Findings[j]
			if f.Cause != decode.NodeAffinityMismatch || len(f.Objects) == 0 {
				continue
			}
			p := w.podNamed(strings.TrimPrefix(f.Objects[0], "pod/"))
			if p == nil {
				continue
			}
			asks := nodeAsks(p)
			if len(asks) == 0 {
				continue
			}
			f.Summary += "; the pods ask for " + strings.Join(asks, " and ")
			f.Details = append(f.Details, chain.Detail{Key: "asks", Value: strings.Join(asks, "; ")})
			if missing := labelsNoNodeHas(p.Spec.NodeSelector, w.s.Nodes); len(missing) > 0 {
				f.Summary += "; no node has " + strings.Join(missing, ", ")
			}
			if len(p.Spec.NodeSelector) > 0 {
				f.NextStep = fmt.Sprintf("kubectl get nodes -l %s (none match); %s", labels.SelectorFromSet(p.Spec.NodeSelector), f.NextStep)
			}
		}
	}
}

// nodeAsks are the pod's node selector and required node affinity terms,
// as kubectl writes them ("nodeSelector disktype=ssd", "node affinity
// zone In (a, b)").
func nodeAsks(p *corev1.Pod) []string {
	var out []string
	if len(p.Spec.NodeSelector) > 0 {
		out = append(out, "nodeSelector "+labels.SelectorFromSet(p.Spec.NodeSelector).String())
	}
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return out
	}
	var terms []string
	for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		var exprs []string
		for _, e := range t.MatchExpressions {
			expr := fmt.Sprintf("%s %s", e.Key, e.Operator)
			if len(e.Values) > 0 {
				expr += " (" + strings.Join(e.Values, ", ") + ")"
			}
			exprs = append(exprs, expr)
		}
		if len(exprs) > 0 {
			terms = append(terms, strings.Join(exprs, ", "))
		}
	}
	if len(terms) > 0 {
		out = append(out, "node affinity "+strings.Join(terms, " or "))
	}
	return out
}

// labelsNoNodeHas are the selector's key=value pairs that none of the
// nodes carries, sorted; none when no node was read.
func labelsNoNodeHas(sel map[string]string, nodes []corev1.Node) []string {
	if len(nodes) == 0 {
		return nil
	}
	var out []string
	for k, v := range sel {
		if !slices.ContainsFunc(nodes, func(n corev1.Node) bool { return n.Labels[k] == v }) {
			out = append(out, k+"="+v)
		}
	}
	sort.Strings(out)
	return out
}
