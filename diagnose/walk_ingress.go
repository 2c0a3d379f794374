package diagnose

import (
	"cmp"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// ingressClass: the class the Ingress asks for exists (or a default one
// does), and its controller has acted: an address in
// status.loadBalancer, or at least an event about the Ingress.
func (w *walker) ingressClass() chain.Link {
	id, ing := chain.LinkClass, w.s.Ingress
	name, by := "", ""
	switch {
	case ing.Spec.IngressClassName != nil && *ing.Spec.IngressClassName != "":
		name, by = *ing.Spec.IngressClassName, "spec.ingressClassName"
	case ing.Annotations[chain.LegacyIngressClassAnnotation] != "":
		name, by = ing.Annotations[chain.LegacyIngressClassAnnotation], "annotation "+chain.LegacyIngressClassAnnotation
	}
	obj := objectName("ingress", ing.Name)
	c := &collector{}
	var notes []string
	var class *networkingv1.IngressClass
	gap := w.s.Gap(chain.ResourceIngressClasses)
	for i := range w.s.IngressClasses {
		ic := &w.s.IngressClasses[i]
		if name != "" && ic.Name == name || name == "" && ic.Annotations[chain.DefaultIngressClassAnnotation] == "true" {
			class = ic
		}
	}
	served := len(ing.Status.LoadBalancer.Ingress) > 0 || len(w.s.EventsFor("Ingress", ing.Name, ing.UID)) > 0
	switch {
	case class != nil:
		if name == "" {
			name, by = class.Name, "the default IngressClass"
		}
	case gap != nil && by != "annotation "+chain.LegacyIngressClassAnnotation:
		return unknown(id, gap)
	case by == "spec.ingressClassName" && len(w.s.IngressClasses) == 0 && served:
		// No IngressClass at all in what was read (kubectl get ingress
		// -o yaml alone), and a controller has acted on the Ingress:
		// the class it names is one that controller serves.
		notes = append(notes, fmt.Sprintf("no IngressClass was read; a controller has acted on the Ingress, so class %s is served", name))
	case by == "spec.ingressClassName":
		var have []string
		for _, ic := range w.s.IngressClasses {
			have = append(have, ic.Name)
		}
		c.add(sighting{d: decode.Decoded{Cause: decode.IngressClassNotFound,
			Summary:  fmt.Sprintf("Ingress %s: spec.ingressClassName %s names no IngressClass (the cluster has %s)", ing.Name, name, orNone(have)),
			NextStep: mustCause(decode.IngressClassNotFound).Step},
			object: obj, since: ing.CreationTimestamp.Time,
			evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "spec.ingressClassName", Message: fmt.Sprintf("ingressClassName %s; IngressClasses: %s", name, orNone(have))}}})
		return w.finish(id, "class "+name+" not found", c, 0)
	case name == "" && served:
		// No class, no default class, and yet an address or a
		// controller's event: a controller that takes Ingresses without
		// a class serves it (every controller before 1.18's
		// IngressClass, GKE's, ingress-nginx with
		// --watch-ingress-without-class).
		notes = append(notes, "no class and no default IngressClass, but a controller has acted on it (an address or an event): one that serves Ingresses without a class")
		name, by = "none", "no spec.ingressClassName"
	case name == "":
		c.add(sighting{d: decode.Decoded{Cause: decode.IngressClassNotFound,
			Summary:  fmt.Sprintf("Ingress %s names no class and no IngressClass is the default", ing.Name),
			NextStep: mustCause(decode.IngressClassNotFound).Step},
			object: obj, since: ing.CreationTimestamp.Time,
			evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "spec.ingressClassName", Message: "no spec.ingressClassName, no " + chain.LegacyIngressClassAnnotation + " annotation, no IngressClass annotated " + chain.DefaultIngressClassAnnotation}}})
		return w.finish(id, "no class", c, 0)
	default:
		notes = append(notes, fmt.Sprintf("class %s comes from the deprecated %s annotation and no IngressClass has that name: only a controller configured for that class serves it", name, by))
	}
	summary := fmt.Sprintf("class %s (%s)", name, by)
	if class != nil {
		summary = fmt.Sprintf("class %s, controller %s (%s)", name, class.Spec.Controller, by)
	}
	var addrs []string
	for _, a := range ing.Status.LoadBalancer.Ingress {
		addrs = append(addrs, cmp.Or(a.IP, a.Hostname))
	}
	events := w.s.EventsFor("Ingress", ing.Name, ing.UID)
	failedLB := lbFailedEvent(events)
	switch {
	case len(addrs) > 0:
		summary += "; address " + strings.Join(firstN(addrs, 3), ", ")
	case failedLB != nil:
		// The controller acted and failed to build the load balancer: its
		// own words say why (subnets, a certificate, permissions).
		c.add(sighting{d: decode.Decoded{Cause: decode.IngressLoadBalancerFailed,
			Summary:  fmt.Sprintf("Ingress %s: its controller could not build its load balancer: %s", ing.Name, firstLine(failedLB.Message)),
			NextStep: decode.Fill(mustCause(decode.IngressLoadBalancerFailed).Step, decode.Fields{decode.FieldName: ing.Name})},
			object: obj, since: failedLB.First, repeats: failedLB.Count, evidence: []chain.Evidence{eventEvidence(*failedLB)}})
	case len(events) > 0:
		last := events[len(events)-1]
		notes = append(notes, fmt.Sprintf("no address in status.loadBalancer yet, but a controller has acted on the Ingress (%s %s: %s)", last.Type, last.Reason, last.Message))
	default:
		controller := "its class's controller"
		if class != nil {
			controller = class.Spec.Controller
		}
		c.add(sighting{d: decode.Decoded{Cause: decode.IngressClassNoController, Progressing: true,
			Summary:  fmt.Sprintf("Ingress %s: no controller has acted on it (no address, no event); %s does not seem to run", ing.Name, controller),
			NextStep: decode.Fill(mustCause(decode.IngressClassNoController).Step, decode.Fields{decode.FieldClass: name})},
			object: obj, since: ing.CreationTimestamp.Time,
			evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "status.loadBalancer", Message: fmt.Sprintf("no address; no event about ingress %s", ing.Name)}}})
	}
	return w.finishNoted(id, summary, c, notes)
}

// lbFailedEvent is the latest Warning event about an Ingress whose words
// say its controller failed to build or program its load balancer (the AWS
// Load Balancer Controller's FailedBuildModel, ingress-gce's Sync), nil
// when none.
func lbFailedEvent(events []chain.Event) *chain.Event {
	for i := len(events) - 1; i >= 0; i-- {
		e := events[i]
		if e.Type != corev1.EventTypeWarning {
			continue
		}
		if d, ok := decode.Serving(e.Reason, e.Message); ok && d.Cause == decode.IngressLoadBalancerFailed {
			return &events[i]
		}
	}
	return nil
}

// ingressBackends: each backend names a Service of the namespace and a
// port that Service has. TLS secrets are not read (kubectl chain never
// reads Secrets): a controller's event that says one is missing is the
// only evidence taken.
func (w *walker) ingressBackends() chain.Link {
	id, ing := chain.LinkBackends, w.s.Ingress
	if g := w.s.Gap(chain.ResourceServices); g != nil {
		return unknown(id, g)
	}
	obj := objectName("ingress", ing.Name)
	c := &collector{}
	var notes, named []string
	for _, b := range chain.IngressBackends(ing) {
		if b.Service == nil {
			if b.Resource != nil {
				notes = append(notes, fmt.Sprintf("backend %s %s is not a Service: not judged", b.Resource.Kind, b.Resource.Name))
			}
			continue
		}
		port := backendPort(b.Service.Port)
		named = append(named, b.Service.Name+":"+port)
		svc := w.s.ServiceNamed(b.Service.Name)
		if svc == nil {
			c.add(sighting{d: decode.Decoded{Cause: decode.IngressBackendNotFound,
				Summary:  fmt.Sprintf("Ingress %s sends to Service %s, which does not exist", ing.Name, b.Service.Name),
				NextStep: mustCause(decode.IngressBackendNotFound).Step},
				object: obj, since: ing.CreationTimestamp.Time,
				evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "backend.service", Message: noServiceMessage(w.s, b.Service.Name, port, ing.Namespace)}}})
			continue
		}
		if !servicePortExists(svc, b.Service.Port) {
			have := servicePorts(svc)
			c.add(sighting{d: decode.Decoded{Cause: decode.IngressBackendPortNotFound,
				Summary:  fmt.Sprintf("Ingress %s sends to port %s of Service %s, which has no such port (it has %s)", ing.Name, port, svc.Name, orNone(have)),
				NextStep: decode.Fill(mustCause(decode.IngressBackendPortNotFound).Step, decode.Fields{decode.FieldService: svc.Name})},
				object: obj, since: laterOf(ing.CreationTimestamp.Time, svc.CreationTimestamp.Time),
				evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "backend.service.port", Message: fmt.Sprintf("port %s; Service %s ports: %s", port, svc.Name, orNone(have))}}})
		}
	}
	for _, t := range ing.Spec.TLS {
		if e := w.secretMissingEvent(ing, t.SecretName); e != nil {
			c.add(sighting{d: decode.Decoded{Cause: decode.IngressTLSSecretMissing,
				Summary:  fmt.Sprintf("Ingress %s: the controller reports TLS secret %s missing", ing.Name, t.SecretName),
				NextStep: mustCause(decode.IngressTLSSecretMissing).Step},
				object: obj, since: e.First, repeats: e.Count, evidence: []chain.Evidence{eventEvidence(*e)}})
			continue
		}
		if t.SecretName == "" {
			continue // no secret named: the controller's default certificate, or a managed one
		}
		notes = append(notes, fmt.Sprintf("TLS secret %s not checked: kubectl chain never reads Secrets, and no controller event says it is missing", t.SecretName))
	}
	summary := fmt.Sprintf("%s: %s", plural(int32(len(named)), "Service backend"), strings.Join(firstN(named, 4), ", "))
	if len(named) == 0 {
		summary = "no Service backend"
	}
	return w.finishNoted(id, summary, c, notes)
}

// secretMissingEvent is a Warning event about the Ingress that names the
// secret and says it is absent, nil when none. A tls entry that names no
// secret is one a controller may still look up: GKE's says secret ""
// does not exist (ingress-gce#1334).
func (w *walker) secretMissingEvent(ing *networkingv1.Ingress, secret string) *chain.Event {
	if secret == "" {
		secret = `secret ""`
	}
	for _, e := range w.s.EventsFor("Ingress", ing.Name, ing.UID) {
		m := strings.ToLower(e.Message)
		if e.Type == corev1.EventTypeWarning && strings.Contains(e.Message, secret) &&
			(strings.Contains(m, "not found") || strings.Contains(m, "does not exist") || strings.Contains(m, "missing")) {
			return &e
		}
	}
	return nil
}

func backendPort(p networkingv1.ServiceBackendPort) string {
	if p.Name != "" {
		return p.Name
	}
	return fmt.Sprint(p.Number)
}

func servicePortExists(svc *corev1.Service, p networkingv1.ServiceBackendPort) bool {
	for _, sp := range svc.Spec.Ports {
		if p.Name != "" && sp.Name == p.Name || p.Name == "" && sp.Port == p.Number {
			return true
		}
	}
	return false
}
