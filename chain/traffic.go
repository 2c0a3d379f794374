package chain

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// The traffic kinds: objects that send traffic to pods rather than run
// them. Their chain runs from the object to the workloads whose pods serve
// it, and quotes those workloads' own chains.
const (
	KindService Kind = "Service"
	KindIngress Kind = "Ingress"
)

// The links of the traffic kinds' chains (ChainOf), in the order traffic
// depends on them: the Ingress's class and its controller, its backend
// Services, the Services' selectors, the workloads they select, and the
// EndpointSlices the EndpointSlice controller writes for the ready pods.
const (
	LinkClass     LinkID = "class"
	LinkBackends  LinkID = "backends"
	LinkSelector  LinkID = "selector"
	LinkWorkloads LinkID = "workloads"
	LinkEndpoints LinkID = "endpoints"
)

var routeChain = []LinkID{LinkStored, LinkClass, LinkGateway, LinkParents, LinkBackends, LinkSelector, LinkWorkloads, LinkEndpoints}

// trafficTitles are the traffic links' titles with the component that owns
// each step.
var trafficTitles = map[LinkID]string{
	LinkClass:     "class (IngressClass or GatewayClass, its controller)",
	LinkGateway:   "gateway (the Gateway accepted and programmed, its listeners)",
	LinkParents:   "parents (the route accepted by each parent Gateway)",
	LinkBackends:  "backends (the Services and ports the rules name)",
	LinkSelector:  "selector (Service selector, target ports)",
	LinkWorkloads: "workloads (the selected pods' own chains)",
	LinkEndpoints: "endpoints (EndpointSlice controller, load balancers)",
}

// TrafficKinds are the traffic kinds, in the order a table of several
// lists them (after the workload kinds).
func TrafficKinds() []Kind { return KindsOf(ClassTraffic, false) }

// IsTraffic says the kind is a traffic kind.
func IsTraffic(k Kind) bool {
	r, ok := RowOf(k)
	return ok && r.Class == ClassTraffic
}

// DefaultIngressClassAnnotation marks the IngressClass an Ingress without
// spec.ingressClassName gets (networking/v1 AnnotationIsDefaultIngressClass).
const DefaultIngressClassAnnotation = networkingv1.AnnotationIsDefaultIngressClass

// LegacyIngressClassAnnotation is the class annotation of Ingresses written
// before spec.ingressClassName; many controllers still honour it.
const LegacyIngressClassAnnotation = "kubernetes.io/ingress.class"

// BackendServices are the names of the Services the snapshot's traffic
// object sends to, in the order its spec names them, each once: the
// Service itself, or an Ingress's default backend then its rules' paths.
func (s *Snapshot) BackendServices() []string {
	switch {
	case s.Service != nil:
		return []string{s.Service.Name}
	case s.Route != nil:
		return s.Route.routeBackendServices()
	case s.Ingress == nil:
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, b := range IngressBackends(s.Ingress) {
		if b.Service != nil && !seen[b.Service.Name] {
			seen[b.Service.Name] = true
			out = append(out, b.Service.Name)
		}
	}
	return out
}

// IngressBackends are the Ingress's backends: the default one, then each
// rule's paths, in order.
func IngressBackends(ing *networkingv1.Ingress) []networkingv1.IngressBackend {
	var out []networkingv1.IngressBackend
	if ing.Spec.DefaultBackend != nil {
		out = append(out, *ing.Spec.DefaultBackend)
	}
	for _, r := range ing.Spec.Rules {
		if r.HTTP == nil {
			continue
		}
		for _, p := range r.HTTP.Paths {
			out = append(out, p.Backend)
		}
	}
	return out
}

// ServiceNamed is the snapshot's Service of that name, nil when none.
func (s *Snapshot) ServiceNamed(name string) *corev1.Service {
	for i := range s.Services {
		if s.Services[i].Name == name {
			return &s.Services[i]
		}
	}
	return nil
}

// SelectedPods are the snapshot's pods the Service's selector matches
// (none for a Service without a selector: its endpoints are kept by hand).
func (s *Snapshot) SelectedPods(svc *corev1.Service) []*corev1.Pod {
	if len(svc.Spec.Selector) == 0 {
		return nil
	}
	sel := labels.SelectorFromSet(svc.Spec.Selector)
	var out []*corev1.Pod
	for i := range s.Pods {
		if p := &s.Pods[i]; p.Namespace == svc.Namespace && sel.Matches(labels.Set(p.Labels)) {
			out = append(out, p)
		}
	}
	return out
}

// Template is a workload of the namespace and the template of its pods:
// what a Service's selector is matched against when it selects no pod yet.
type Template struct {
	Ref      Ref
	Template corev1.PodTemplateSpec
	// Object is the workload itself, which a capture writes.
	Object metav1.Object
}

// TemplateOf is the workload's Template, false for a kind without one
// running pods a Service selects (Jobs, CronJobs).
func TemplateOf(kind Kind, obj metav1.Object) (Template, bool) {
	r, ok := RowOf(kind)
	if kind == "" || !ok || r.Class != ClassWorkload || !r.Serves() {
		return Template{}, false
	}
	t := r.Template(obj)
	if t == nil {
		return Template{}, false
	}
	return Template{Ref: Ref{Kind: kind, Name: obj.GetName()}, Template: *t, Object: obj}, true
}

// SelectedTemplates are the workloads whose pods the Service selects.
func (s *Snapshot) SelectedTemplates(svc *corev1.Service) []Template {
	var out []Template
	for _, t := range s.Templates {
		if RelationOf(svc, t.Template.Labels, t.Ref.Name) == Selects {
			out = append(out, t)
		}
	}
	return out
}

// BehindOf is the snapshot read for the workload, nil when none was.
func (s *Snapshot) BehindOf(ref Ref) *Snapshot {
	for _, b := range s.Behind {
		if b.Ref() == ref {
			return b
		}
	}
	return nil
}

// AssembleTraffic fills a traffic snapshot's pods and the events about its
// object and the Services it sends to, as Assemble does for a workload.
func (s *Snapshot) AssembleTraffic(pods []corev1.Pod, evs []Event) {
	sort.SliceStable(pods, func(i, j int) bool { return pods[i].Name < pods[j].Name })
	sort.SliceStable(s.Services, func(i, j int) bool { return s.Services[i].Name < s.Services[j].Name })
	sort.SliceStable(s.EndpointSlices, func(i, j int) bool { return s.EndpointSlices[i].Name < s.EndpointSlices[j].Name })
	sort.SliceStable(s.IngressClasses, func(i, j int) bool { return s.IngressClasses[i].Name < s.IngressClasses[j].Name })
	for i := range pods {
		pods[i].ManagedFields = nil
	}
	for i := range s.Services {
		s.Services[i].ManagedFields = nil
	}
	for i := range s.EndpointSlices {
		s.EndpointSlices[i].ManagedFields = nil
	}
	s.Pods = pods
	s.Events = Concerning(evs, Owned{Workload: s.Workload(), Kind: s.KindOf(), Services: s.Services})
	SortEvents(s.Events)
}

// ReadyEndpoints counts the ready endpoints of the Service's
// EndpointSlices (an endpoint without the condition counts as ready, as
// the API documents).
func (s *Snapshot) ReadyEndpoints(svc *corev1.Service) int {
	n := 0
	for i := range s.EndpointSlices {
		sl := &s.EndpointSlices[i]
		if sl.Labels[discoveryv1.LabelServiceName] != svc.Name || sl.Namespace != svc.Namespace {
			continue
		}
		for _, e := range sl.Endpoints {
			if e.Conditions.Ready == nil || *e.Conditions.Ready {
				n++
			}
		}
	}
	return n
}

// BehindRefs are the workloads whose own chains a traffic walk quotes: of
// each Service it sends to that has a selected pod not ready, no selected
// pod or no ready endpoint, the workloads whose templates it selects, each
// once, in the order of the Services.
func (s *Snapshot) BehindRefs() []Ref {
	var out []Ref
	seen := map[Ref]bool{}
	for _, name := range s.BackendServices() {
		svc := s.ServiceNamed(name)
		if svc == nil || len(svc.Spec.Selector) == 0 || svc.Spec.Type == corev1.ServiceTypeExternalName {
			continue
		}
		pods := s.SelectedPods(svc)
		short := len(pods) == 0 || s.ReadyEndpoints(svc) == 0
		for _, p := range pods {
			if p.DeletionTimestamp == nil && !PodReady(p) && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
				short = true
			}
		}
		if !short {
			continue
		}
		for _, t := range s.SelectedTemplates(svc) {
			if !seen[t.Ref] {
				seen[t.Ref] = true
				out = append(out, t.Ref)
			}
		}
	}
	return out
}
