package diagnose

import (
	"fmt"
	"slices"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// policyNotes say, for each NetworkPolicy that selects the pods, which
// traffic it lets in and out. They judge nothing: whether a client is
// allowed depends on the client, which the chain does not know.
func (w *walker) policyNotes() []string {
	if g := w.s.Gap(chain.ResourceNetworkPolicies); g != nil {
		return []string{fmt.Sprintf("NetworkPolicies not read (%s): which traffic reaches the pods is not known", g.Message)}
	}
	var out []string
	for i := range w.s.NetworkPolicies {
		out = append(out, policyNote(&w.s.NetworkPolicies[i]))
	}
	return out
}

// policyNote is one NetworkPolicy in a line: "NetworkPolicy web selects
// the pods: ingress only from pods app=front to 8080/TCP; egress not
// restricted".
func policyNote(p *networkingv1.NetworkPolicy) string {
	types := p.Spec.PolicyTypes
	if len(types) == 0 {
		// The API's default: Ingress always, Egress when rules are given.
		types = []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}
		if len(p.Spec.Egress) > 0 {
			types = append(types, networkingv1.PolicyTypeEgress)
		}
	}
	var ingress, egress []string
	for _, r := range p.Spec.Ingress {
		ingress = append(ingress, policyRule("from", r.From, r.Ports))
	}
	for _, r := range p.Spec.Egress {
		egress = append(egress, policyRule("to", r.To, r.Ports))
	}
	var parts []string
	deny := false
	for _, d := range []struct {
		typ   networkingv1.PolicyType
		word  string
		rules []string
	}{{networkingv1.PolicyTypeIngress, "ingress", ingress}, {networkingv1.PolicyTypeEgress, "egress", egress}} {
		switch {
		case !slices.Contains(types, d.typ):
		case len(d.rules) == 0:
			parts, deny = append(parts, "denies all "+d.word), true
		default:
			parts = append(parts, d.word+" only "+strings.Join(d.rules, "; or "))
		}
	}
	what := fmt.Sprintf("NetworkPolicy %s selects the pods", p.Name)
	if deny {
		what += " (a deny-all)"
	}
	return what + ": " + strings.Join(parts, "; ")
}

// policyRule is one rule's peers and ports: "from pods app=front in
// namespaces team=shop to 8080/TCP".
func policyRule(dir string, peers []networkingv1.NetworkPolicyPeer, ports []networkingv1.NetworkPolicyPort) string {
	var who []string
	for _, peer := range peers {
		var p []string
		switch {
		case peer.IPBlock != nil:
			s := "addresses " + peer.IPBlock.CIDR
			if len(peer.IPBlock.Except) > 0 {
				s += " except " + strings.Join(peer.IPBlock.Except, ", ")
			}
			p = append(p, s)
		default:
			if peer.PodSelector != nil {
				p = append(p, "pods "+selectorText(peer.PodSelector, "any"))
			}
			if peer.NamespaceSelector != nil {
				p = append(p, "in namespaces "+selectorText(peer.NamespaceSelector, "any"))
			} else if peer.PodSelector != nil {
				p = append(p, "of this namespace")
			}
		}
		who = append(who, strings.Join(p, " "))
	}
	s := dir + " anywhere"
	if len(who) > 0 {
		s = dir + " " + strings.Join(who, ", ")
	}
	if len(ports) == 0 {
		return s + ", any port"
	}
	var ps []string
	for _, port := range ports {
		proto := "TCP"
		if port.Protocol != nil {
			proto = string(*port.Protocol)
		}
		n := "any"
		if port.Port != nil {
			n = port.Port.String()
			if port.EndPort != nil {
				n += fmt.Sprintf("-%d", *port.EndPort)
			}
		}
		ps = append(ps, n+"/"+proto)
	}
	return s + " to " + strings.Join(ps, ", ")
}

// selectorText is a label selector as kubectl prints it, def when empty.
func selectorText(s *metav1.LabelSelector, def string) string {
	sel, err := metav1.LabelSelectorAsSelector(s)
	if err != nil || sel.Empty() {
		return def
	}
	return sel.String()
}
