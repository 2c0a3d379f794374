package capture

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// traffic selects a Service or an Ingress from the bundle with what the
// live reader reads for it: the Services it sends to, their EndpointSlices,
// the namespace's pods and workloads, the IngressClasses, and the
// snapshots of the workloads it would have followed.
func (b *Bundle) traffic(namespace string, ref chain.Ref) (*chain.Snapshot, error) {
	s := &chain.Snapshot{Kind: ref.Kind, Name: ref.Name, Namespace: namespace}
	sel, err := selectionOf(ref.Kind)
	if err != nil {
		return nil, err
	}
	obj := sel.find(b, namespace, ref.Name)
	if obj != nil {
		row, _ := chain.RowOf(ref.Kind)
		row.Store(s, obj)
	}
	if obj == nil {
		return nil, fmt.Errorf("no %s %q in the input", ref.Kind, ref.Name)
	}
	ns := obj.GetNamespace()
	s.Namespace = ns
	inNS := func(o string) bool { return o == ns || o == "" }
	if s.Service != nil {
		s.Services = []corev1.Service{*s.Service}
	} else {
		for i := range b.Services {
			if inNS(b.Services[i].Namespace) {
				s.Services = append(s.Services, b.Services[i])
			}
		}
		s.IngressClasses = b.IngressClasses
	}
	s.GatewayClasses, s.Gateways = b.GatewayClasses, b.Gateways
	if s.Gateway != nil {
		s.Gateways = []gatewayv1.Gateway{*s.Gateway}
	}
	s.ServicesRead = true
	backends := map[string]bool{}
	for _, n := range s.BackendServices() {
		backends[n] = true
	}
	for i := range b.EndpointSlices {
		if sl := &b.EndpointSlices[i]; inNS(sl.Namespace) && backends[sl.Labels[discoveryv1.LabelServiceName]] {
			s.EndpointSlices = append(s.EndpointSlices, *sl)
		}
	}
	for _, row := range chain.KindTable() {
		if row.Class != chain.ClassWorkload || !row.Serves() {
			continue
		}
		for _, obj := range b.ObjectsOf(row.Kind) {
			if inNS(obj.GetNamespace()) {
				s.Templates = appendTemplate(s.Templates, row.Kind, obj)
			}
		}
	}
	s.Pods = b.podsIn(ns)
	s.AssembleTraffic(s.Pods, b.eventsAbout(s))
	for _, r := range s.BehindRefs() {
		if behind, err := b.Read(ns, r); err == nil {
			s.Behind = append(s.Behind, behind)
		}
	}
	b.clock(s)
	return s, nil
}

func appendTemplate(ts []chain.Template, kind chain.Kind, obj metav1.Object) []chain.Template {
	if t, ok := chain.TemplateOf(kind, obj); ok {
		return append(ts, t)
	}
	return ts
}

// TrafficObjects are the bundle's traffic objects in namespace ("" for
// any): every Service, Ingress, Gateway and route, in that order.
func (b *Bundle) TrafficObjects(namespace string) []Workload {
	var out []Workload
	add := func(k chain.Kind, m metav1.Object) {
		if namespace == "" || m.GetNamespace() == namespace {
			out = append(out, Workload{Namespace: m.GetNamespace(), Ref: chain.Ref{Kind: k, Name: m.GetName()}, Object: m})
		}
	}
	for i := range b.Services {
		add(chain.KindService, &b.Services[i])
	}
	for i := range b.Ingresses {
		add(chain.KindIngress, &b.Ingresses[i])
	}
	for i := range b.Gateways {
		add(chain.KindGateway, &b.Gateways[i])
	}
	for _, r := range b.Routes {
		add(r.Kind, r)
	}
	return out
}

// Traffic are the traffic objects in namespace ("" for any) that -A,
// --all and a selector judge beside the workloads: every Ingress, Gateway
// and route, and the Services no workload's chain covers, those that
// select no workload's pod template and seem meant for none (a Service
// meant for a workload is judged on that workload's serving link).
func (b *Bundle) Traffic(namespace string) []Workload {
	tmpls := map[string][]chain.Template{} // by namespace
	for _, w := range b.Workloads(namespace) {
		if t, ok := chain.TemplateOf(w.Kind, w.Object); ok {
			tmpls[w.Namespace] = append(tmpls[w.Namespace], t)
		}
	}
	return slices.DeleteFunc(b.TrafficObjects(namespace), func(w Workload) bool {
		svc, ok := w.Object.(*corev1.Service)
		return ok && !orphan(svc, tmpls[svc.Namespace])
	})
}

// orphan says a Service with a selector relates to none of its
// namespace's workload templates: no workload's serving link judges it.
func orphan(svc *corev1.Service, tmpls []chain.Template) bool {
	if len(svc.Spec.Selector) == 0 || svc.Spec.Type == corev1.ServiceTypeExternalName {
		return false
	}
	for _, t := range tmpls {
		if chain.RelationOf(svc, t.Template.Labels, t.Ref.Name) != chain.Unrelated {
			return false
		}
	}
	return true
}
