package paste

import (
	"regexp"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// svcPortRe is a Service's Port and NodePort lines: "http  80/TCP",
// "<unset>  80/TCP".
var svcPortRe = regexp.MustCompile(`^(\S+)\s+(\d+)/(\w+)$`)

// describeService rebuilds a Service from kubectl describe service
// (describeService): its selector, type, addresses and ports. Its
// Endpoints lines list the ready addresses only, so no EndpointSlice is
// built from them: kubectl describe endpointslices -l
// kubernetes.io/service-name=NAME shows them all.
func (p *parser) describeService(b block) {
	s := &corev1.Service{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"}, ObjectMeta: p.objectMeta(b, "Service")}
	if sel := labelsOf(field{val: b.value("Selector")}); len(sel) > 0 {
		s.Spec.Selector = sel
	}
	s.Spec.Type = corev1.ServiceType(b.value("Type"))
	s.Spec.ClusterIP = b.value("IP")
	if ips := b.value("IPs"); ips != "" {
		s.Spec.ClusterIPs = strings.Split(ips, ",")
	}
	if v := b.value("IP Families"); v != "" {
		for _, f := range strings.Split(v, ",") {
			s.Spec.IPFamilies = append(s.Spec.IPFamilies, corev1.IPFamily(f))
		}
	}
	if v := b.value("External IPs"); v != "" {
		s.Spec.ExternalIPs = strings.Split(v, ",")
	}
	s.Spec.ExternalName = b.value("External Name")
	s.Spec.SessionAffinity = corev1.ServiceAffinity(b.value("Session Affinity"))
	s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicy(b.value("External Traffic Policy"))
	for _, lb := range strings.Split(b.value("LoadBalancer Ingress"), ", ") {
		if lb = strings.TrimSpace(lb); lb != "" {
			ip, _, _ := strings.Cut(lb, " ")
			s.Status.LoadBalancer.Ingress = append(s.Status.LoadBalancer.Ingress, corev1.LoadBalancerIngress{IP: ip})
		}
	}
	// One Port line a port, with its TargetPort, NodePort and Endpoints
	// lines after it.
	for _, f := range b.fields {
		var port *corev1.ServicePort
		if n := len(s.Spec.Ports); n > 0 {
			port = &s.Spec.Ports[n-1]
		}
		switch f.key {
		case "Port":
			m := svcPortRe.FindStringSubmatch(f.val)
			if m == nil {
				continue
			}
			n, _ := strconv.Atoi(m[2])
			sp := corev1.ServicePort{Port: int32(n), Protocol: corev1.Protocol(m[3])}
			if m[1] != "<unset>" {
				sp.Name = m[1]
			}
			s.Spec.Ports = append(s.Spec.Ports, sp)
		case "TargetPort":
			if port != nil {
				tp, _, _ := strings.Cut(f.val, "/")
				port.TargetPort = intstr.Parse(tp)
			}
		case "NodePort":
			if m := svcPortRe.FindStringSubmatch(f.val); m != nil && port != nil {
				n, _ := strconv.Atoi(m[2])
				port.NodePort = int32(n)
			}
		}
	}
	p.res.Services = append(p.res.Services, *s)
	p.read(b, "Service", s.ObjectMeta)
}

// describeEndpoints reads kubectl describe endpoints (describeEndpoints)
// as the EndpointSlice of its Service it mirrors: its ready and not ready
// addresses and its ports. A slice described beside it is read instead.
func (p *parser) describeEndpoints(b block) {
	m := p.objectMeta(b, "Endpoints")
	slice := discoveryv1.EndpointSlice{TypeMeta: metav1.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSlice"},
		ObjectMeta: metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: UID("EndpointSlice", m.Namespace, m.Name),
			Labels: map[string]string{discoveryv1.LabelServiceName: m.Name}}, AddressType: discoveryv1.AddressTypeIPv4}
	if f, ok := b.get("Subsets"); ok {
		for _, k := range subFields(f.body) {
			switch k.key {
			case "Addresses", "NotReadyAddresses":
				ready := k.key == "Addresses"
				for _, ip := range strings.Split(k.val, ",") {
					if ip = strings.TrimSpace(ip); !none(ip) {
						slice.Endpoints = append(slice.Endpoints, discoveryv1.Endpoint{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}})
					}
				}
			case "Ports":
				slice.Ports = append(slice.Ports, slicePortsOf(k.body)...)
			}
		}
	}
	p.endpoints = append(p.endpoints, slice)
	p.read(b, "Endpoints", m)
}

// slicePortsOf reads a "Name  Port  Protocol" table.
func slicePortsOf(body []line) []discoveryv1.EndpointPort {
	var out []discoveryv1.EndpointPort
	for _, l := range body {
		c := columns(l.text)
		n, err := strconv.Atoi(c[min(1, len(c)-1)])
		if len(c) != 3 || err != nil {
			continue
		}
		port, proto := int32(n), corev1.Protocol(c[2])
		ep := discoveryv1.EndpointPort{Port: &port, Protocol: &proto}
		if c[0] != "<unset>" {
			name := c[0]
			ep.Name = &name
		}
		out = append(out, ep)
	}
	return out
}

// describeEndpointSlice rebuilds an EndpointSlice from kubectl describe
// endpointslice (describeEndpointSliceV1): its ports and each endpoint's
// addresses, readiness, pod, node and zone.
func (p *parser) describeEndpointSlice(b block) {
	s := discoveryv1.EndpointSlice{TypeMeta: metav1.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSlice"}, ObjectMeta: p.objectMeta(b, "EndpointSlice")}
	s.AddressType = discoveryv1.AddressType(b.value("AddressType"))
	if f, ok := b.get("Ports"); ok {
		s.Ports = slicePortsOf(f.body)
	}
	if f, ok := b.get("Endpoints"); ok {
		for _, l := range f.body {
			text := strings.TrimPrefix(l.text, "- ")
			k, v, _ := strings.Cut(text, ":")
			v = strings.TrimSpace(v)
			if strings.HasPrefix(l.text, "- Addresses:") {
				s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Addresses: strings.Split(v, ", ")})
				continue
			}
			if len(s.Endpoints) == 0 || none(v) {
				continue
			}
			e := &s.Endpoints[len(s.Endpoints)-1]
			switch k {
			case "Ready":
				e.Conditions.Ready = boolOf(v)
			case "Hostname":
				e.Hostname = &v
			case "TargetRef":
				kind, name, _ := strings.Cut(v, "/")
				e.TargetRef = &corev1.ObjectReference{Kind: kind, Name: name, Namespace: s.Namespace}
			case "NodeName":
				e.NodeName = &v
			case "Zone":
				e.Zone = &v
			}
		}
	}
	p.res.EndpointSlices = append(p.res.EndpointSlices, s)
	p.read(b, "EndpointSlice", s.ObjectMeta)
}

// backendRe is an Ingress backend as describe prints it: "web:80
// (10.244.2.7:8080)", "web:http ()", "web:80 (<error: ...>)".
var backendRe = regexp.MustCompile(`^([a-z0-9][-a-z0-9.]*):(\S+)(?: \((.*)\))?$`)

// describeIngress rebuilds an Ingress from kubectl describe ingress
// (describeIngressV1): its class, address, default backend and rules.
// The addresses after each backend are its Service's ready endpoints.
func (p *parser) describeIngress(b block) {
	in := &networkingv1.Ingress{TypeMeta: metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "Ingress"}, ObjectMeta: p.objectMeta(b, "Ingress")}
	if c := b.value("Ingress Class"); c != "" {
		in.Spec.IngressClassName = &c
	}
	for _, a := range strings.Split(b.value("Address"), ",") {
		if a = strings.TrimSpace(a); a != "" {
			in.Status.LoadBalancer.Ingress = append(in.Status.LoadBalancer.Ingress, networkingv1.IngressLoadBalancerIngress{IP: a})
		}
	}
	if d := b.value("Default backend"); d != "" && d != "<default>" {
		in.Spec.DefaultBackend = backendOf(d)
		p.notFoundBackends(in.Namespace, d)
	}
	if f, ok := b.get("Rules"); ok {
		var rule *networkingv1.IngressRule
		for _, l := range f.body {
			c := columns(l.text)
			if len(c) == 0 || c[0] == "Host" || strings.Trim(l.text, "- ") == "" {
				continue
			}
			if len(c) == 1 && backendRe.FindStringSubmatch(c[0]) == nil || len(c) == 3 {
				host := c[0]
				if host == "*" {
					host = ""
				}
				in.Spec.Rules = append(in.Spec.Rules, networkingv1.IngressRule{Host: host, IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{}}})
				rule = &in.Spec.Rules[len(in.Spec.Rules)-1]
				if len(c) != 3 {
					continue
				}
				c = c[1:] // "*  *  backend": no rules, the default backend
			}
			if rule == nil {
				continue
			}
			path, be := "", c[len(c)-1]
			if len(c) > 1 {
				path = c[0]
			}
			p.notFoundBackends(in.Namespace, be)
			if bk := backendOf(be); bk != nil {
				rule.HTTP.Paths = append(rule.HTTP.Paths, networkingv1.HTTPIngressPath{Path: path, Backend: *bk})
			}
		}
	}
	p.res.Ingresses = append(p.res.Ingresses, *in)
	p.read(b, "Ingress", in.ObjectMeta)
}

// ingressClassType is what a rebuilt IngressClass is.
var ingressClassType = metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "IngressClass"}

// describeIngressClass rebuilds an IngressClass from kubectl describe
// ingressclass (describeIngressClassV1): its controller, and whether it
// is the default (its annotation).
func (p *parser) describeIngressClass(b block) {
	ic := &networkingv1.IngressClass{TypeMeta: ingressClassType, ObjectMeta: p.objectMeta(b, "IngressClass")}
	ic.Spec.Controller = b.value("Controller")
	p.res.IngressClasses = append(p.res.IngressClasses, *ic)
	p.read(b, "IngressClass", ic.ObjectMeta)
}

// ingressClassRow reads a row of kubectl get ingressclass: NAME (with
// " (default)" after the default class's, as kubectl 1.32 prints it),
// CONTROLLER, PARAMETERS, AGE.
func (p *parser) ingressClassRow(t table, raw string) bool {
	cells, ok := t.cells(raw)
	if !ok {
		cells = columns(raw)
	}
	name, controller := t.cell(cells, "NAME"), t.cell(cells, "CONTROLLER")
	if name == "" || controller == "" {
		return false
	}
	var meta metav1.ObjectMeta
	if n, ok := strings.CutSuffix(name, " (default)"); ok {
		name, meta.Annotations = n, map[string]string{networkingv1.AnnotationIsDefaultIngressClass: "true"}
	}
	meta.Name, meta.UID = name, UID("IngressClass", "", name)
	p.res.IngressClasses = append(p.res.IngressClasses, networkingv1.IngressClass{
		TypeMeta: ingressClassType, ObjectMeta: meta,
		Spec: networkingv1.IngressClassSpec{Controller: controller}})
	return true
}

// serviceNotFoundRe is the error describe ingress prints after a backend
// whose Service it could not get: the API server's NotFound.
var serviceNotFoundRe = regexp.MustCompile(`^<error: services "([^"]+)" not found>$`)

// notFoundBackends records the backends of a describe ingress line whose
// Service kubectl found missing.
func (p *parser) notFoundBackends(namespace, v string) {
	if m := backendRe.FindStringSubmatch(strings.TrimSpace(v)); m != nil {
		if nf := serviceNotFoundRe.FindStringSubmatch(m[3]); nf != nil {
			p.res.ServicesNotFound = append(p.res.ServicesNotFound, namespace+"/"+nf[1])
		}
	}
}

// backendOf reads one backend, nil when it is no Service's.
func backendOf(v string) *networkingv1.IngressBackend {
	m := backendRe.FindStringSubmatch(strings.TrimSpace(v))
	if m == nil {
		return nil
	}
	port := networkingv1.ServiceBackendPort{}
	if n, err := strconv.Atoi(m[2]); err == nil {
		port.Number = int32(n)
	} else {
		port.Name = m[2]
	}
	return &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: m[1], Port: port}}
}
