package capture

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// clock sets the snapshot's time: the capture's, else, for plain kubectl
// output, its newest timestamp.
func (b *Bundle) clock(s *chain.Snapshot) {
	s.Now = b.CapturedAt
	if s.Now.IsZero() {
		s.Now = newest(s)
	}
}

// otherPods are the bundle's pods of the namespace that a near-miss
// Service selects and that are not the workload's (chain.OtherPods).
func (b *Bundle) otherPods(s *chain.Snapshot) []corev1.Pod {
	mine := map[string]bool{}
	for i := range s.Pods {
		mine[s.Pods[i].Name] = true
	}
	var out []corev1.Pod
	for _, svc := range s.NearMisses() {
		sel := labels.SelectorFromSet(svc.Spec.Selector)
		for i := range b.podCount() {
			if ns, name, set := b.podAt(i); ns == s.Namespace && !mine[name] && sel.Matches(labels.Set(set)) {
				out = append(out, b.pod(i))
				break
			}
		}
	}
	return out
}

// autoscalers keeps the bundle's autoscalers of a scalable workload.
func (b *Bundle) autoscalers(s *chain.Snapshot) {
	if !chain.Scalable(s.KindOf()) {
		return
	}
	var in []autoscalingv2.HorizontalPodAutoscaler
	for i := range b.Autoscalers {
		if b.Autoscalers[i].Namespace == s.Namespace || b.Autoscalers[i].Namespace == "" {
			in = append(in, b.Autoscalers[i])
		}
	}
	s.Autoscalers = chain.Targeting(in, s.KindOf(), s.Name)
}
