package paste

import (
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// describeNode rebuilds a Node from kubectl describe node (describeNode):
// its taints, whether it is cordoned, its conditions with their reasons
// and messages (the kubelet's, or the node lifecycle controller's when
// the kubelet stopped posting), addresses, capacity, allocatable and
// versions; the pods its Non-terminated Pods table lists run on it. It
// replaces a kubectl get nodes row of the same node, which shows less.
func (p *parser) describeNode(b block) {
	n := &corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}, ObjectMeta: p.objectMeta(b, "Node")}
	n.Namespace, n.UID = "", UID("Node", "", n.Name)
	if f, ok := b.get("Taints"); ok {
		n.Spec.Taints = taintsOf(f)
	}
	n.Spec.Unschedulable = b.value("Unschedulable") == "true"
	n.Spec.PodCIDR = b.value("PodCIDR")
	if v := b.value("PodCIDRs"); v != "" {
		n.Spec.PodCIDRs = strings.Split(v, ",")
	}
	n.Spec.ProviderID = b.value("ProviderID")
	if f, ok := b.get("Conditions"); ok {
		n.Status.Conditions = p.nodeConditionsOf(f)
	}
	if f, ok := b.get("Addresses"); ok {
		for _, l := range f.body {
			if l.key != "" && l.val != "" {
				n.Status.Addresses = append(n.Status.Addresses, corev1.NodeAddress{Type: corev1.NodeAddressType(l.key), Address: l.val})
			}
		}
	}
	if f, ok := b.get("Capacity"); ok {
		n.Status.Capacity = resourcesOf(f)
	}
	if f, ok := b.get("Allocatable"); ok {
		n.Status.Allocatable = resourcesOf(f)
	}
	if f, ok := b.get("System Info"); ok {
		for _, l := range f.body {
			switch l.key {
			case "Kubelet Version":
				n.Status.NodeInfo.KubeletVersion = l.val
			case "Container Runtime Version":
				n.Status.NodeInfo.ContainerRuntimeVersion = l.val
			case "Operating System":
				n.Status.NodeInfo.OperatingSystem = l.val
			case "Architecture":
				n.Status.NodeInfo.Architecture = l.val
			case "Kernel Version":
				n.Status.NodeInfo.KernelVersion = l.val
			case "OS Image":
				n.Status.NodeInfo.OSImage = l.val
			}
		}
	}
	if f, ok := b.get("Non-terminated Pods"); ok {
		for _, l := range f.body {
			if c := columns(l.text); len(c) >= 2 && c[0] != "Namespace" && strings.Trim(l.text, "- ") != "" {
				p.onNode = append(p.onNode, podOnNode{namespace: c[0], pod: c[1], node: n.Name})
			}
		}
	}
	kept := false
	for i, o := range p.nodes {
		if o.Name == n.Name {
			p.nodes[i], kept = n, true
		}
	}
	if !kept {
		p.nodes = append(p.nodes, n)
	}
	p.read(b, "Node", n.ObjectMeta)
}

// podOnNode is a row of a node's Non-terminated Pods.
type podOnNode struct{ namespace, pod, node string }

// taintRe is one taint as Taint.ToString prints it: "key=value:Effect",
// "key:Effect".
var taintRe = regexp.MustCompile(`^([^=:\s]+)(?:=([^:\s]*))?:(\w+)$`)

func taintsOf(f field) []corev1.Taint {
	var out []corev1.Taint
	for _, v := range append([]string{f.val}, texts(f.body)...) {
		if m := taintRe.FindStringSubmatch(strings.TrimSpace(v)); m != nil {
			out = append(out, corev1.Taint{Key: m[1], Value: m[2], Effect: corev1.TaintEffect(m[3])})
		}
	}
	return out
}

// nodeConditionsOf reads a node's Conditions table: Type, Status,
// LastHeartbeatTime, LastTransitionTime, Reason, Message (the times RFC
// 1123 with blanks inside, the cells parted by two blanks or more).
func (p *parser) nodeConditionsOf(f field) []corev1.NodeCondition {
	var out []corev1.NodeCondition
	for _, l := range f.body {
		c := columns(l.text)
		if len(c) < 2 || c[1] != "True" && c[1] != "False" && c[1] != "Unknown" {
			if len(out) > 0 && len(c) == 1 && strings.Trim(l.text, "- ") != "" {
				// A message a paste wrapped.
				out[len(out)-1].Message += " " + l.text
			}
			continue
		}
		nc := corev1.NodeCondition{Type: corev1.NodeConditionType(c[0]), Status: corev1.ConditionStatus(c[1])}
		if len(c) >= 4 {
			nc.LastHeartbeatTime, nc.LastTransitionTime = p.absolute(c[2]), p.absolute(c[3])
		}
		if len(c) >= 5 {
			nc.Reason = c[4]
		}
		if len(c) >= 6 {
			nc.Message = strings.Join(c[5:], "  ")
		}
		out = append(out, nc)
	}
	return out
}
