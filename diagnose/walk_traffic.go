package diagnose

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// trafficLinks walks a Service's or an Ingress's chain: the object, an
// Ingress's class and backends, the Services' selectors, the workloads
// they select (each judged by its own chain, whose first broken link is
// quoted), and the EndpointSlices and load balancers.
func (w *walker) trafficLinks() []chain.Link {
	if w.s.Workload() == nil {
		return w.notFound(decode.TrafficObjectNotFound)
	}
	if chain.IsGatewayAPI(w.s.KindOf()) {
		return w.gatewayLinks()
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
	case w.s.Gateway != nil:
		l.Summary = fmt.Sprintf("Gateway of class %s, %s", w.s.Gateway.Spec.GatewayClassName, plural(int32(len(w.s.Gateway.Spec.Listeners)), "listener"))
	case w.s.Route != nil:
		l.Summary = fmt.Sprintf("%s, %s, %s", w.s.Route.Kind, plural(int32(len(w.s.Route.ParentRefs)), "parent"), plural(int32(len(w.s.Route.BackendRefs)), "backend"))
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
	return w.finishNoted(id, summary, c, notes)
}

// selectsNothing: a Service whose selector matches no pod and no template.
// One meant for a workload (chain.MaybeMeant) gets the label difference.
func (w *walker) selectsNothing(c *collector, svc *corev1.Service) {
	for _, t := range w.s.Templates {
		if chain.RelationOf(svc, t.Template.Labels, t.Ref.Name) == chain.MaybeMeant || slices.Contains(w.s.MeantFor, t.Ref) {
			w.selectorMismatch(c, svc, t.Template.Labels)
			return
		}
	}
	obj := objectName("service", svc.Name)
	c.add(sighting{d: decode.Decoded{Cause: decode.ServiceSelectsNoPods,
		Summary:  fmt.Sprintf("Service %s selects no pod: nothing in namespace %s carries %s", svc.Name, svc.Namespace, labels.Set(svc.Spec.Selector)),
		NextStep: serviceStep(decode.ServiceSelectsNoPods, svc.Name)},
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
	prefix := fmt.Sprintf("Service %s has %s", svc.Name, plural(int32(ready), "ready endpoint"))
	if ready == 0 {
		prefix = fmt.Sprintf("Service %s has no ready endpoint", svc.Name)
	}
	f := quoteWalk(ref, r, fmt.Sprintf("%s: %s %s", prefix, ref, verdictState(r.Verdict)))
	if f.Cause == "" {
		f.Cause = decode.NoReadyEndpoint
	}
	return f
}

// verdictState words a walk's verdict for a sentence about it: "is broken
// at containers: ...".
func verdictState(v chain.Verdict) string {
	state := map[chain.Health]string{chain.Broken: "is broken", chain.Progressing: "is progressing", chain.Unknown: "cannot be judged"}[v.Health]
	return fmt.Sprintf("%s at %s: %s", state, v.Link, v.Summary)
}

// quoteWalk is the finding that quotes another object's walk: its cause,
// next step and the evidence of its first link not ok.
func quoteWalk(ref chain.Ref, r *chain.Report, summary string) chain.Finding {
	v := r.Verdict
	f := chain.Finding{
		Cause:       v.Cause,
		Summary:     summary,
		NextStep:    v.NextStep,
		Terminal:    v.Terminal,
		Progressing: v.Health != chain.Broken,
		Objects:     []string{ref.String()},
	}
	if l := r.Link(v.Link); l != nil && len(l.Findings) > 0 {
		f.Evidence, f.Since, f.Repeats = l.Findings[0].Evidence, l.Findings[0].Since, l.Findings[0].Repeats
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
	c.add(sighting{d: decode.Decoded{Cause: decode.NoReadyEndpoint, Progressing: true,
		Summary:  fmt.Sprintf("Service %s has no ready endpoint: none of its %s is ready", svc.Name, plural(int32(len(pods)), "pod")),
		NextStep: decode.Fill(mustCause(decode.NoReadyEndpoint).Step, decode.Fields{decode.FieldSelector: labels.Set(svc.Spec.Selector).String()})},
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
			var declared containerPorts
			if ts := w.s.SelectedTemplates(svc); len(ts) > 0 {
				declared = declaredPorts(&ts[0].Template.Spec)
			} else if len(pods) > 0 {
				declared = declaredPorts(&pods[0].Spec)
			}
			notes = append(notes, w.serviceEndpoints(c, svc, livePods(pods), declared)...)
		}
		w.loadBalancer(c, svc)
	}
	summary := strings.Join(firstN(parts, 4), "; ")
	if summary == "" {
		summary = "no Service"
	}
	return w.finishNoted(id, summary, c, notes)
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
