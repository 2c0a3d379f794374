package diagnose

import (
	"fmt"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// selectsNodes says the template asks for nodes: a nodeSelector or a
// required node affinity.
func selectsNodes(t *corev1.PodTemplateSpec) bool {
	a := t.Spec.Affinity
	return len(t.Spec.NodeSelector) > 0 || a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil
}

// taintedOut is the finding for nodes a selecting DaemonSet is kept off by
// taints it does not tolerate (excluded maps each reason of excludedBy to
// its nodes), and says whether there were any. A DaemonSet that selects
// no nodes means every node: a taint
// that keeps it off some may be on purpose (the control plane, a
// dedicated pool), and stays a note.
func (w *walker) taintedOut(c *collector, ds *appsv1.DaemonSet, excluded map[string][]string) bool {
	if !selectsNodes(&ds.Spec.Template) {
		return false
	}
	var taints, nodes []string
	for why, ns := range excluded {
		if taint, ok := strings.CutPrefix(why, "taint "); ok {
			taints = append(taints, taint)
			nodes = append(nodes, ns...)
		}
	}
	if len(taints) == 0 {
		return false
	}
	sort.Strings(taints)
	sort.Strings(nodes)
	obj := objectName("daemonset", ds.Name)
	c.add(sighting{d: decode.Decoded{Cause: decode.DaemonSetTaintNotTolerated,
		Summary: fmt.Sprintf("no pod on %s its nodeSelector or affinity selects: taint %s, not tolerated (%s)",
			plural(int32(len(nodes)), "node"), strings.Join(taints, ", "), someNames(nodes)),
		Details: []chain.Detail{{Key: "taints", Value: strings.Join(taints, ", ")}, {Key: "nodes", Value: someNames(nodes)}}},
		object: obj, since: ds.CreationTimestamp.Time,
		evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "spec.template.spec.tolerations",
			Message: fmt.Sprintf("%d tolerations; none matches %s", len(ds.Spec.Template.Spec.Tolerations), strings.Join(taints, ", "))}}})
	return true
}
