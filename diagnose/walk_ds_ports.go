package diagnose

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// daemonNode is the node a daemon pod is pinned to: since 1.12 the
// DaemonSet controller gives each pod a required node affinity on
// metadata.name In [node] (pkg/controller/daemon/util
// ReplaceDaemonSetPodNodeNameNodeAffinity), and the default scheduler
// places it; "" when the pod carries no such pin.
func daemonNode(p *corev1.Pod) string {
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, f := range t.MatchFields {
			if f.Key == "metadata.name" && f.Operator == corev1.NodeSelectorOpIn && len(f.Values) == 1 {
				return f.Values[0]
			}
		}
	}
	return ""
}

// daemonPinned drops, for a daemon pod pinned to its node, the scheduler's
// "didn't match Pod's node affinity/selector" beside its other reasons:
// every other node fails the pin by design, so it says nothing about why
// the pod's own node does not take it (canonical/microk8s#2589: "1 node(s)
// didn't have free ports for the requested pod ports, 1 node(s) didn't
// match Pod's node affinity/selector").
func (w *walker) daemonPinned(p *corev1.Pod, rs []decode.Decoded) []decode.Decoded {
	if w.s.Kind != chain.KindDaemonSet || daemonNode(p) == "" {
		return rs
	}
	out := rs[:0:0]
	for _, r := range rs {
		if r.Cause != decode.NodeAffinityMismatch {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return rs
	}
	return out
}

// daemonPortNodes names, on the finding that host ports are taken, the
// nodes the pending daemon pods are pinned to and the host ports the
// template asks for: "1 of 2 nodes" alone does not say where to look for
// the process or pod that holds the port.
func (w *walker) daemonPortNodes(c *collector) {
	if w.s.Kind != chain.KindDaemonSet || w.s.DaemonSet == nil {
		return
	}
	pinned := map[string]string{}
	for _, p := range w.pods {
		if n := daemonNode(p); n != "" && p.Spec.NodeName == "" {
			pinned[objectName("pod", p.Name)] = n
		}
	}
	var ports []string
	for _, ctr := range w.s.DaemonSet.Spec.Template.Spec.Containers {
		for _, port := range ctr.Ports {
			if port.HostPort > 0 {
				proto := port.Protocol
				if proto == "" {
					proto = corev1.ProtocolTCP
				}
				ports = appendUnique(ports, fmt.Sprintf("%d/%s", port.HostPort, proto))
			}
		}
	}
	for _, k := range c.order {
		f := c.byKey[k]
		if f.Cause != decode.NodePortConflict {
			continue
		}
		var nodes []string
		for _, o := range f.Objects {
			if n, ok := pinned[o]; ok {
				nodes = appendUnique(nodes, n)
			}
		}
		sort.Strings(nodes)
		var where []string
		if len(ports) > 0 {
			where = append(where, "host port "+strings.Join(ports, ", "))
			f.Details = append(f.Details, chain.Detail{Key: "host ports", Value: strings.Join(ports, ", ")})
		}
		if len(nodes) > 0 {
			where = append(where, "taken on "+someNames(nodes))
			f.Details = append(f.Details, chain.Detail{Key: "nodes", Value: someNames(nodes)})
		}
		if len(where) > 0 {
			f.Summary += " (" + strings.Join(where, ", ") + ")"
		}
	}
}
