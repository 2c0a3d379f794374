package diagnose

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// trafficLinks walks a Service's or an Ingress's chain: the object, an
// Ingress's class and backends, the Services' selectors, the workloads
// they select (each judged by its own chain, whose first broken link is
// quoted), and the EndpointSlices and load balancers.
func (w *walker) trafficLinks() []chain.Link {
	if w.s.Workload() == nil {
		return w.notFound(TrafficObjectNotFound)
	}
	links := []chain.Link{w.trafficStored()}
	if w.s.Ingress != nil {
		links = append(links, w.ingressClass(), w.ingressBackends())
	}
	return append(links, w.selectorLink(), w.workloadsLink(), w.endpointsLink())
}

// trafficStored: the API server holds the object; one being deleted is
// going away.
func (w *walker) trafficStored() chain.Link {
	obj := w.s.Workload()
	l := chain.Link{ID: chain.LinkStored, Status: chain.StatusOK}
	switch svc := w.s.Service; {
	case svc != nil && svc.Spec.Type == corev1.ServiceTypeExternalName:
		l.Summary = fmt.Sprintf("ExternalName Service: DNS answers with %s", svc.Spec.ExternalName)
	case svc != nil:
		l.Summary = fmt.Sprintf("%s Service, %s", serviceType(svc), plural(int32(len(svc.Spec.Ports)), "port"))
	default:
		l.Summary = fmt.Sprintf("Ingress, %s", plural(int32(len(chain.IngressBackends(w.s.Ingress))), "backend"))
	}
	if obj.GetDeletionTimestamp() != nil {
		l.Notes = append(l.Notes, fmt.Sprintf("being deleted since %s", obj.GetDeletionTimestamp().UTC().Format("2006-01-02T15:04:05Z")))
	}
	return l
}

func serviceType(svc *corev1.Service) string {
	switch {
	case svc.Spec.Type == "":
		return string(corev1.ServiceTypeClusterIP)
	case svc.Spec.ClusterIP == corev1.ClusterIPNone:
		return "headless"
	}
	return string(svc.Spec.Type)
}

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
	switch {
	case class != nil:
		if name == "" {
			name, by = class.Name, "the default IngressClass"
		}
	case gap != nil && by != "annotation "+chain.LegacyIngressClassAnnotation:
		return unknown(id, gap)
	case by == "spec.ingressClassName":
		var have []string
		for _, ic := range w.s.IngressClasses {
			have = append(have, ic.Name)
		}
		c.add(sighting{d: Decoded{Cause: IngressClassNotFound,
			Summary:  fmt.Sprintf("Ingress %s: spec.ingressClassName %s names no IngressClass (the cluster has %s)", ing.Name, name, orNone(have)),
			NextStep: mustCause(IngressClassNotFound).NextStep},
			object: obj, since: ing.CreationTimestamp.Time,
			evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "spec.ingressClassName", Message: fmt.Sprintf("ingressClassName %s; IngressClasses: %s", name, orNone(have))}}})
		return w.finish(id, "class "+name+" not found", c, 0)
	case name == "":
		c.add(sighting{d: Decoded{Cause: IngressClassNotFound,
			Summary:  fmt.Sprintf("Ingress %s names no class and no IngressClass is the default", ing.Name),
			NextStep: mustCause(IngressClassNotFound).NextStep},
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
		addrs = append(addrs, firstNonEmpty(a.IP, a.Hostname))
	}
	events := w.s.EventsFor("Ingress", ing.Name, ing.UID)
	switch {
	case len(addrs) > 0:
		summary += "; address " + strings.Join(firstN(addrs, 3), ", ")
	case len(events) > 0:
		last := events[len(events)-1]
		notes = append(notes, fmt.Sprintf("no address in status.loadBalancer yet, but a controller has acted on the Ingress (%s %s: %s)", last.Type, last.Reason, last.Message))
	default:
		controller := "its class's controller"
		if class != nil {
			controller = class.Spec.Controller
		}
		c.add(sighting{d: Decoded{Cause: IngressClassNoController, Progressing: true,
			Summary:  fmt.Sprintf("Ingress %s: no controller has acted on it (no address, no event); %s does not seem to run", ing.Name, controller),
			NextStep: strings.ReplaceAll(mustCause(IngressClassNoController).NextStep, "CLASS", name)},
			object: obj, since: ing.CreationTimestamp.Time,
			evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "status.loadBalancer", Message: fmt.Sprintf("no address; no event about ingress %s", ing.Name)}}})
	}
	l := w.finish(id, summary, c, 0)
	l.Notes = append(l.Notes, notes...)
	return l
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
			c.add(sighting{d: Decoded{Cause: IngressBackendNotFound,
				Summary:  fmt.Sprintf("Ingress %s sends to Service %s, which does not exist", ing.Name, b.Service.Name),
				NextStep: mustCause(IngressBackendNotFound).NextStep},
				object: obj, since: ing.CreationTimestamp.Time,
				evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "backend.service", Message: fmt.Sprintf("service %s port %s; no Service %s in namespace %s", b.Service.Name, port, b.Service.Name, ing.Namespace)}}})
			continue
		}
		if !servicePortExists(svc, b.Service.Port) {
			var have []string
			for _, p := range svc.Spec.Ports {
				have = append(have, fmt.Sprintf("%s %d", firstNonEmpty(p.Name, "(unnamed)"), p.Port))
			}
			c.add(sighting{d: Decoded{Cause: IngressBackendPortNotFound,
				Summary:  fmt.Sprintf("Ingress %s sends to port %s of Service %s, which has no such port (it has %s)", ing.Name, port, svc.Name, orNone(have)),
				NextStep: strings.ReplaceAll(mustCause(IngressBackendPortNotFound).NextStep, "SERVICE", svc.Name)},
				object: obj, since: laterOf(ing.CreationTimestamp.Time, svc.CreationTimestamp.Time),
				evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "backend.service.port", Message: fmt.Sprintf("port %s; Service %s ports: %s", port, svc.Name, orNone(have))}}})
		}
	}
	for _, t := range ing.Spec.TLS {
		if t.SecretName == "" {
			continue
		}
		if e := w.secretMissingEvent(ing, t.SecretName); e != nil {
			c.add(sighting{d: Decoded{Cause: IngressTLSSecretMissing,
				Summary:  fmt.Sprintf("Ingress %s: the controller reports TLS secret %s missing", ing.Name, t.SecretName),
				NextStep: mustCause(IngressTLSSecretMissing).NextStep},
				object: obj, since: e.First, repeats: e.Count, evidence: []chain.Evidence{eventEvidence(*e)}})
			continue
		}
		notes = append(notes, fmt.Sprintf("TLS secret %s not checked: kubectl chain never reads Secrets, and no controller event says it is missing", t.SecretName))
	}
	summary := fmt.Sprintf("%s: %s", plural(int32(len(named)), "Service backend"), strings.Join(firstN(named, 4), ", "))
	if len(named) == 0 {
		summary = "no Service backend"
	}
	l := w.finish(id, summary, c, 0)
	l.Notes = append(l.Notes, notes...)
	return l
}

// secretMissingEvent is a Warning event about the Ingress that names the
// secret and says it is absent, nil when none.
func (w *walker) secretMissingEvent(ing *networkingv1.Ingress, secret string) *chain.Event {
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

// backends are the Services the object sends to that exist.
func (w *walker) backends() []*corev1.Service {
	var out []*corev1.Service
	for _, name := range w.s.BackendServices() {
		if svc := w.s.ServiceNamed(name); svc != nil {
			out = append(out, svc)
		}
	}
	return out
}

// selectorLink: each Service's selector matches pods or a workload's pod
// template, and its named target ports are ports of them.
func (w *walker) selectorLink() chain.Link {
	id := chain.LinkSelector
	for _, res := range []chain.Resource{chain.ResourcePods, chain.ResourceDeployments, chain.ResourceStatefulSets, chain.ResourceDaemonSets} {
		if g := w.s.Gap(res); g != nil {
			return unknown(id, g)
		}
	}
	c := &collector{}
	var notes, parts []string
	for _, svc := range w.backends() {
		switch {
		case svc.Spec.Type == corev1.ServiceTypeExternalName:
			notes = append(notes, fmt.Sprintf("Service %s is an ExternalName (%s): no selector, no endpoints", svc.Name, svc.Spec.ExternalName))
			continue
		case len(svc.Spec.Selector) == 0:
			notes = append(notes, fmt.Sprintf("Service %s has no selector: its EndpointSlices are written by hand or by another controller", svc.Name))
			continue
		}
		pods, tmpls := w.s.SelectedPods(svc), w.s.SelectedTemplates(svc)
		var refs []string
		for _, t := range tmpls {
			refs = append(refs, t.Ref.String())
			w.servicePorts(c, svc, &t.Template)
		}
		if len(tmpls) == 0 && len(pods) > 0 {
			w.servicePorts(c, svc, &corev1.PodTemplateSpec{ObjectMeta: pods[0].ObjectMeta, Spec: pods[0].Spec})
		}
		if len(pods) == 0 && len(tmpls) == 0 {
			w.selectsNothing(c, svc)
			parts = append(parts, fmt.Sprintf("%s selects nothing", svc.Name))
			continue
		}
		what := plural(int32(len(pods)), "pod")
		if len(refs) > 0 {
			what += " of " + strings.Join(firstN(refs, 3), ", ")
		}
		parts = append(parts, fmt.Sprintf("%s selects %s", svc.Name, what))
	}
	summary := strings.Join(parts, "; ")
	if summary == "" {
		summary = "no Service with a selector"
	}
	l := w.finish(id, summary, c, 0)
	l.Notes = append(l.Notes, notes...)
	return l
}

// selectsNothing: a Service whose selector matches no pod and no template.
// One meant for a workload (chain.MaybeMeant) gets the label difference.
func (w *walker) selectsNothing(c *collector, svc *corev1.Service) {
	for _, t := range w.s.Templates {
		if chain.RelationOf(svc, t.Template.Labels, t.Ref.Name) == chain.MaybeMeant {
			w.selectorMismatch(c, svc, t.Template.Labels)
			return
		}
	}
	obj := objectName("service", svc.Name)
	c.add(sighting{d: Decoded{Cause: ServiceSelectsNoPods,
		Summary:  fmt.Sprintf("Service %s selects no pod: nothing in namespace %s carries %s", svc.Name, svc.Namespace, labels.Set(svc.Spec.Selector)),
		NextStep: serviceStep(ServiceSelectsNoPods, svc.Name)},
		object: obj, since: svc.CreationTimestamp.Time,
		evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "spec.selector",
			Message: fmt.Sprintf("selector %s; no pod or workload template matches", labels.Set(svc.Spec.Selector))}}})
}

// workloadsLink quotes the chains of the workloads the Services select,
// read because an endpoint was missing: the first one not healthy is why
// the Service has no ready endpoint. Pods no workload owns that are not
// ready have no chain to quote.
func (w *walker) workloadsLink() chain.Link {
	l := chain.Link{ID: chain.LinkWorkloads, Status: chain.StatusOK}
	var parts []string
	unjudged := false
	for _, svc := range w.backends() {
		if len(svc.Spec.Selector) == 0 || svc.Spec.Type == corev1.ServiceTypeExternalName {
			continue
		}
		ready := w.s.ReadyEndpoints(svc)
		tmpls := w.s.SelectedTemplates(svc)
		for _, t := range tmpls {
			b := w.s.BehindOf(t.Ref)
			if b == nil {
				parts = append(parts, t.Ref.String()+" not read (its Service has ready endpoints)")
				continue
			}
			r := w.behind(b)
			parts = append(parts, fmt.Sprintf("%s %s", t.Ref, r.Verdict.Health))
			if r.Verdict.Health == chain.Healthy {
				continue
			}
			unjudged = unjudged || r.Verdict.Health == chain.Unknown
			l.Findings = append(l.Findings, quoteVerdict(svc, ready, t.Ref, r))
		}
		if len(tmpls) == 0 {
			w.unownedNotReady(&l, svc, ready)
		}
	}
	l.Summary = strings.Join(firstN(parts, 4), "; ")
	if l.Summary == "" {
		l.Summary = "no workload selected"
	}
	l.Status = statusOfFindings(l.Findings)
	if l.Status == chain.StatusProgressing && unjudged {
		l.Status = chain.StatusUnknown
	}
	return l
}

// behind walks a selected workload's snapshot at the traffic snapshot's
// time, without its own serving link: the Services are this chain's.
func (w *walker) behind(b *chain.Snapshot) *chain.Report {
	cp := *b
	cp.Now = w.s.Now
	cp.Services, cp.EndpointSlices, cp.ServicesRead = nil, nil, false
	return Walk(&cp, w.o)
}

// quoteVerdict is the finding that names a selected workload's first link
// not ok and its cause, with its evidence.
func quoteVerdict(svc *corev1.Service, ready int, ref chain.Ref, r *chain.Report) chain.Finding {
	v := r.Verdict
	state := map[chain.Health]string{chain.Broken: "is broken", chain.Progressing: "is progressing", chain.Unknown: "cannot be judged"}[v.Health]
	prefix := fmt.Sprintf("Service %s has %s", svc.Name, plural(int32(ready), "ready endpoint"))
	if ready == 0 {
		prefix = fmt.Sprintf("Service %s has no ready endpoint", svc.Name)
	}
	f := chain.Finding{
		Cause:       v.Cause,
		Summary:     fmt.Sprintf("%s: %s %s at %s: %s", prefix, ref, state, v.Link, v.Summary),
		NextStep:    v.NextStep,
		Terminal:    v.Terminal,
		Progressing: v.Health != chain.Broken,
		Objects:     []string{ref.String()},
	}
	if l := r.Link(v.Link); l != nil && len(l.Findings) > 0 {
		f.Evidence, f.Since, f.Repeats = l.Findings[0].Evidence, l.Findings[0].Since, l.Findings[0].Repeats
	}
	if f.Cause == "" {
		f.Cause = NoReadyEndpoint
	}
	return f
}

// unownedNotReady: pods the Service selects that no workload of the
// namespace templates (bare pods, an operator's) and none ready.
func (w *walker) unownedNotReady(l *chain.Link, svc *corev1.Service, ready int) {
	pods := w.s.SelectedPods(svc)
	if ready > 0 || len(pods) == 0 {
		return
	}
	for _, p := range pods {
		if isReady(p) {
			return
		}
	}
	obj := objectName("service", svc.Name)
	c := &collector{}
	c.add(sighting{d: Decoded{Cause: NoReadyEndpoint, Progressing: true,
		Summary:  fmt.Sprintf("Service %s has no ready endpoint: none of its %s is ready", svc.Name, plural(int32(len(pods)), "pod")),
		NextStep: strings.ReplaceAll(mustCause(NoReadyEndpoint).NextStep, "SELECTOR", labels.Set(svc.Spec.Selector).String())},
		object: obj, since: newestCreation(pods),
		evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: "pod/" + pods[0].Name, Field: "status.conditions[Ready]", Message: fmt.Sprintf("phase %s, not ready", pods[0].Status.Phase)}}})
	done := w.finish(chain.LinkWorkloads, "", c, 0)
	l.Findings = append(l.Findings, done.Findings...)
}

// endpointsLink: for each Service, the ready pods are ready endpoints of
// its EndpointSlices, and a LoadBalancer has an address.
func (w *walker) endpointsLink() chain.Link {
	id := chain.LinkEndpoints
	if g := w.s.Gap(chain.ResourceEndpointSlices); g != nil {
		return unknown(id, g)
	}
	c := &collector{}
	var notes, parts []string
	for _, svc := range w.backends() {
		ready := w.s.ReadyEndpoints(svc)
		parts = append(parts, fmt.Sprintf("%s: %s", svc.Name, plural(int32(ready), "ready endpoint")))
		if svc.Spec.Type != corev1.ServiceTypeExternalName && len(svc.Spec.Selector) > 0 {
			pods := w.s.SelectedPods(svc)
			var live []*corev1.Pod
			var declared containerPorts
			for _, p := range pods {
				if p.DeletionTimestamp == nil && !podFinished(p) {
					live = append(live, p)
				}
			}
			if ts := w.s.SelectedTemplates(svc); len(ts) > 0 {
				declared = declaredPorts(&ts[0].Template.Spec)
			} else if len(pods) > 0 {
				declared = declaredPorts(&pods[0].Spec)
			}
			notes = append(notes, w.serviceEndpoints(c, svc, live, declared)...)
		}
		w.loadBalancer(c, svc)
	}
	summary := strings.Join(firstN(parts, 4), "; ")
	if summary == "" {
		summary = "no Service"
	}
	l := w.finish(id, summary, c, 0)
	l.Notes = append(l.Notes, notes...)
	return l
}

// statusOfFindings is a link's status from findings made elsewhere:
// broken when one is not progress, else progressing, ok with none.
func statusOfFindings(fs []chain.Finding) chain.Status {
	st := chain.StatusOK
	for _, f := range fs {
		if !f.Progressing {
			return chain.StatusBroken
		}
		st = chain.StatusProgressing
	}
	return st
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(firstN(s, 5), ", ")
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func laterOf(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// newestCreation is when the newest of the pods was created.
func newestCreation(pods []*corev1.Pod) time.Time {
	var t time.Time
	for _, p := range pods {
		t = laterOf(t, p.CreationTimestamp.Time)
	}
	return t
}
