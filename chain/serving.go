package chain

import (
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// ServiceRelation is how a Service concerns a workload's pods.
type ServiceRelation int

// Service relations, from none to the closest.
const (
	// Unrelated Services neither select the pods nor look meant for them.
	Unrelated ServiceRelation = iota
	// MaybeMeant Services select none of the pods but carry the
	// workload's name, or all but one of two or more selector labels
	// match: meant for the pods if they select no other pod (the walk
	// reads their EndpointSlices to know).
	MaybeMeant
	// Selects: the Service's selector picks the pods.
	Selects
)

// RelationOf says how svc concerns pods with podLabels of the workload
// named workload. A Service without a selector (endpoints written by
// hand) or of type ExternalName selects nothing, as the EndpointSlice
// controller reads it.
func RelationOf(svc *corev1.Service, podLabels map[string]string, workload string) ServiceRelation {
	if len(svc.Spec.Selector) == 0 || svc.Spec.Type == corev1.ServiceTypeExternalName {
		return Unrelated
	}
	if selectsLabels(svc.Spec.Selector, podLabels) {
		return Selects
	}
	if svc.Name == workload {
		return MaybeMeant
	}
	miss := 0
	for k, v := range svc.Spec.Selector {
		if podLabels[k] != v {
			miss++
		}
	}
	if len(svc.Spec.Selector) >= 2 && miss == 1 {
		return MaybeMeant
	}
	return Unrelated
}

// ServingServices keeps, of a namespace's Services, those the serving
// link reads: the ones that select the pods or may be meant for them, and
// the one a StatefulSet's spec.serviceName names.
func (s *Snapshot) ServingServices(all []corev1.Service) []corev1.Service {
	tmpl := s.PodTemplate()
	if tmpl == nil {
		return nil
	}
	governing := s.GoverningService()
	var out []corev1.Service
	for i := range all {
		if all[i].Name == governing || RelationOf(&all[i], tmpl.Labels, s.Name) != Unrelated {
			out = append(out, all[i])
		}
	}
	return out
}

// GoverningService is the Service a StatefulSet's spec.serviceName names,
// "" for any other kind.
func (s *Snapshot) GoverningService() string {
	if s.StatefulSet == nil {
		return ""
	}
	return s.StatefulSet.Spec.ServiceName
}

// EndpointSliceOwners are the names of the Services whose EndpointSlices
// the serving link reads: those that select the pods or may be meant for
// them.
func (s *Snapshot) EndpointSliceOwners() []string {
	tmpl := s.PodTemplate()
	if tmpl == nil {
		return nil
	}
	var out []string
	for i := range s.Services {
		if RelationOf(&s.Services[i], tmpl.Labels, s.Name) != Unrelated {
			out = append(out, s.Services[i].Name)
		}
	}
	return out
}

// NearMisses are the Services that may be meant for the pods
// (MaybeMeant): the serving link blames one only when it selects no other
// pod (OtherPods).
func (s *Snapshot) NearMisses() []*corev1.Service {
	tmpl := s.PodTemplate()
	if tmpl == nil {
		return nil
	}
	var out []*corev1.Service
	for i := range s.Services {
		if RelationOf(&s.Services[i], tmpl.Labels, s.Name) == MaybeMeant {
			out = append(out, &s.Services[i])
		}
	}
	return out
}

// SelectsOther says svc selects one of the OtherPods: it serves pods that
// are not the workload's.
func (s *Snapshot) SelectsOther(svc *corev1.Service) bool {
	for i := range s.OtherPods {
		if s.OtherPods[i].Namespace == svc.Namespace && selectsLabels(svc.Spec.Selector, s.OtherPods[i].Labels) {
			return true
		}
	}
	return false
}

// Served says a Service selects the workload's pods: only then are the
// NetworkPolicies that select them read (what traffic they let in is a
// question only when traffic is expected).
func (s *Snapshot) Served() bool {
	tmpl := s.PodTemplate()
	if tmpl == nil {
		return false
	}
	for i := range s.Services {
		if RelationOf(&s.Services[i], tmpl.Labels, s.Name) == Selects {
			return true
		}
	}
	return false
}

// PoliciesSelecting keeps the NetworkPolicies whose podSelector selects
// pods with these labels (an empty podSelector selects every pod).
func PoliciesSelecting(all []networkingv1.NetworkPolicy, podLabels map[string]string) []networkingv1.NetworkPolicy {
	var out []networkingv1.NetworkPolicy
	for i := range all {
		sel, err := metav1.LabelSelectorAsSelector(&all[i].Spec.PodSelector)
		if err == nil && sel.Matches(labels.Set(podLabels)) {
			out = append(out, all[i])
		}
	}
	return out
}

// ReleaseMeant says, of a release's Services and the pod templates of its
// workloads (all of one namespace), which Service is meant for which
// workload by membership alone: a Service with a selector that selects
// none of the templates is meant for the release's only workload, or, of
// several, for the one whose pod labels match the most of its selector
// (none on a tie, or when none matches any).
func ReleaseMeant(svcs []*corev1.Service, tmpls []Template) map[Ref][]string {
	out := map[Ref][]string{}
	for _, svc := range svcs {
		if len(svc.Spec.Selector) == 0 || svc.Spec.Type == corev1.ServiceTypeExternalName {
			continue
		}
		best, bestN, tie, selects := -1, 0, false, false
		for i, t := range tmpls {
			if RelationOf(svc, t.Template.Labels, t.Ref.Name) == Selects {
				selects = true
				break
			}
			n := 0
			for k, v := range svc.Spec.Selector {
				if t.Template.Labels[k] == v {
					n++
				}
			}
			switch {
			case n > bestN:
				best, bestN, tie = i, n, false
			case n == bestN:
				tie = true
			}
		}
		switch {
		case selects:
		case len(tmpls) == 1:
			out[tmpls[0].Ref] = append(out[tmpls[0].Ref], svc.Name)
		case best >= 0 && !tie:
			out[tmpls[best].Ref] = append(out[tmpls[best].Ref], svc.Name)
		}
	}
	return out
}

// selectsLabels says a Service's selector (equality on each pair, as
// labels.SelectorFromSet matches) picks labels, without building the
// selector: -A asks it for every Service and workload of a namespace.
func selectsLabels(selector, podLabels map[string]string) bool {
	for k, v := range selector {
		if got, ok := podLabels[k]; !ok || got != v {
			return false
		}
	}
	return true
}
