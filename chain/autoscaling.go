package chain

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ResourceAutoscalers are the namespace's HorizontalPodAutoscalers, read
// beside a scalable workload (a Deployment, StatefulSet or Rollout).
const ResourceAutoscalers Resource = "horizontalpodautoscalers"

// Scalable says the kind's replicas can be an autoscaler's: its read lists
// the namespace's HorizontalPodAutoscalers.
func Scalable(k Kind) bool {
	r, ok := RowOf(k)
	return ok && r.Scales
}

// Targeting keeps the autoscalers whose scaleTargetRef is the workload of
// kind k named name (its API group as the ref names it: apps, or
// argoproj.io for a Rollout).
func Targeting(all []autoscalingv2.HorizontalPodAutoscaler, k Kind, name string) []autoscalingv2.HorizontalPodAutoscaler {
	r, _ := RowOf(k)
	group := r.Group
	var out []autoscalingv2.HorizontalPodAutoscaler
	for _, h := range all {
		ref := h.Spec.ScaleTargetRef
		gv, _ := schema.ParseGroupVersion(ref.APIVersion)
		if ref.Kind == string(k) && ref.Name == name && (gv.Group == group || ref.APIVersion == "") {
			h.ManagedFields = nil
			out = append(out, h)
		}
	}
	return out
}
