package paste

import (
	"cmp"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// fromPods gives the pasted StatefulSets and DaemonSets what their
// describe does not print and their pasted pods show: a DaemonSet's
// namespace (kubectl describe daemonset prints none), a StatefulSet's
// ready count and, when all its pods have one controller-revision-hash,
// its revision. Neither describe prints a generation: the status printed
// is taken as the controller's answer to the spec printed (generation
// and observedGeneration 1).
func (p *parser) fromPods() {
	for i := range p.res.DaemonSets {
		d := &p.res.DaemonSets[i]
		if d.Namespace == "" {
			if ns := p.ownedNamespace("DaemonSet", d.Name); ns != "" {
				p.moveTo(&d.ObjectMeta, "DaemonSet", ns)
			}
		}
		d.Generation, d.Status.ObservedGeneration = 1, 1
		pods := p.ownedPods("DaemonSet", d.Namespace, d.Name)
		if len(pods) > 0 {
			d.Status.NumberReady = ready(pods)
		}
	}
	for i := range p.res.StatefulSets {
		s := &p.res.StatefulSets[i]
		s.Generation, s.Status.ObservedGeneration = 1, 1
		pods := p.ownedPods("StatefulSet", s.Namespace, s.Name)
		if len(pods) == 0 {
			continue
		}
		s.Status.ReadyReplicas = ready(pods)
		s.Status.AvailableReplicas = s.Status.ReadyReplicas
		if int32(len(pods)) != s.Status.Replicas {
			continue // not all its pods are pasted: which revision each runs is not known
		}
		// A partitioned update leaves the pods below the partition at the
		// current revision and updates those at or above it.
		partition := 0
		if ru := s.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.Partition != nil {
			partition = int(*ru.Partition)
		}
		current, update, n := "", "", int32(0)
		for _, pod := range pods {
			rev := pod.Labels["controller-revision-hash"]
			at := &update
			if ordinal(pod.Name) < partition {
				at = &current
			} else {
				n++
			}
			if rev == "" || *at != "" && *at != rev {
				current, update = "", ""
				break
			}
			*at = rev
		}
		if update == "" {
			continue
		}
		s.Status.UpdateRevision, s.Status.UpdatedReplicas = update, n
		s.Status.CurrentRevision, s.Status.CurrentReplicas = cmp.Or(current, update), s.Status.Replicas-n
		if current == "" {
			s.Status.CurrentReplicas = s.Status.Replicas
		}
	}
}

// ordinal is a StatefulSet pod's index, from its name (NAME-N); -1 when
// the name has none.
func ordinal(pod string) int {
	i := strings.LastIndex(pod, "-")
	n, err := strconv.Atoi(pod[i+1:])
	if i < 0 || err != nil {
		return -1
	}
	return n
}

// ownedPods are the pasted pods kind/name controls in namespace.
func (p *parser) ownedPods(kind, namespace, name string) []*corev1.Pod {
	var out []*corev1.Pod
	for _, pod := range p.controlledBy(kind, name) {
		if pod.Namespace == namespace {
			out = append(out, pod)
		}
	}
	return out
}

// ownedNamespace is the namespace of the pasted pods kind/name controls,
// "" when they are in none or several.
func (p *parser) ownedNamespace(kind, name string) string {
	ns := ""
	for _, pod := range p.controlledBy(kind, name) {
		if pod.Namespace == "" {
			continue
		}
		if ns != "" && ns != pod.Namespace {
			return ""
		}
		ns = pod.Namespace
	}
	return ns
}

// controlledBy are the pasted pods whose controller is kind/name, in any
// namespace.
func (p *parser) controlledBy(kind, name string) []*corev1.Pod {
	var out []*corev1.Pod
	for _, pt := range p.pods {
		if c := metav1.GetControllerOf(pt.pod); c != nil && c.Kind == kind && c.Name == name {
			out = append(out, pt.pod)
		}
	}
	return out
}

// moveTo gives an object read without its namespace the one its pods
// show, with the UID its pods' owner references have, and its events.
func (p *parser) moveTo(m *metav1.ObjectMeta, kind, ns string) {
	for _, e := range p.events {
		if e.row.kind == kind && e.row.name == m.Name && e.row.namespace == "" {
			e.row.namespace = ns
		}
	}
	m.Namespace, m.UID = ns, UID(kind, ns, m.Name)
}

// ready counts the pods that are ready.
func ready(pods []*corev1.Pod) int32 {
	n := int32(0)
	for _, pod := range pods {
		if chain.PodReady(pod) {
			n++
		}
	}
	return n
}
