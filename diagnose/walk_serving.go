package diagnose

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// serviceNameLabel is the label the EndpointSlice controller puts on every
// slice it writes for a Service (discovery/v1 LabelServiceName).
const serviceNameLabel = discoveryv1.LabelServiceName

// serving is the link past ready: the Services of the namespace that select
// the workload's pods, whether their ports reach a declared container port,
// whether the EndpointSlice controller lists the ready pods as ready
// endpoints, and whether a LoadBalancer Service got an address. A Service
// that selects none of the pods but is meant for them (see meantFor) is the
// commonest reason a workload that runs cannot be reached.
func (w *walker) serving() chain.Link {
	id := chain.LinkServing
	tmpl := w.s.PodTemplate()
	switch {
	case tmpl == nil:
		return notReached(id, "no "+w.s.KindOf().Resource())
	case w.s.Gap(chain.ResourceServices) != nil:
		return unknown(id, w.s.Gap(chain.ResourceServices))
	case !w.s.ServicesRead:
		// Not judged, so not ok: its mark says the link was not walked.
		return notReached(id, "no Service in the input: not judged")
	case w.s.Gap(chain.ResourceEndpointSlices) != nil && len(w.s.EndpointSliceOwners()) > 0:
		return unknown(id, w.s.Gap(chain.ResourceEndpointSlices))
	}
	c := &collector{}
	var notes, selecting, meant []string
	pods := w.servedPods()
	for i := range w.s.Services {
		svc := &w.s.Services[i]
		rel := chain.RelationOf(svc, tmpl.Labels, w.s.Name)
		if rel == chain.Unrelated && slices.Contains(w.s.Meant, svc.Name) {
			rel = chain.MaybeMeant // of the same --manifests release
		}
		switch rel {
		case chain.Selects:
			selecting = append(selecting, svc.Name)
			w.servicePorts(c, svc, tmpl)
			notes = append(notes, w.serviceEndpoints(c, svc, pods, declaredPorts(&tmpl.Spec))...)
			w.loadBalancer(c, svc)
		case chain.MaybeMeant:
			if w.meantFor(svc) {
				meant = append(meant, svc.Name)
				w.selectorMismatch(c, svc, tmpl.Labels)
			}
		}
	}
	if sts, ok := w.s.Workload().(*appsv1.StatefulSet); ok {
		w.headlessService(c, sts)
	}
	var summary string
	switch {
	case len(selecting) > 0:
		summary = fmt.Sprintf("%s the pods: %s", map[bool]string{true: "1 Service selects", false: fmt.Sprintf("%d Services select", len(selecting))}[len(selecting) == 1],
			strings.Join(firstN(selecting, 3), ", "))
	case len(meant) > 0:
		summary = fmt.Sprintf("no Service selects the pods; %s, meant for them, selects none", strings.Join(firstN(meant, 3), ", "))
	default:
		summary = "no Service selects the pods"
		notes = append(notes, "not every workload serves: no Service of the namespace selects the pods' labels "+labels.Set(tmpl.Labels).String())
	}
	if len(selecting) > 0 {
		notes = append(notes, w.policyNotes()...)
	}
	return w.finishNoted(id, summary, c, notes)
}

// servedPods are the workload's pods that can be endpoints: not deleted,
// not finished.
func (w *walker) servedPods() []*corev1.Pod {
	all := make([]*corev1.Pod, len(w.s.Pods))
	for i := range w.s.Pods {
		all[i] = &w.s.Pods[i]
	}
	return livePods(all)
}

// livePods keeps the pods that can be endpoints: not deleted, not
// finished.
func livePods(pods []*corev1.Pod) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range pods {
		if p.DeletionTimestamp == nil && !podFinished(p) {
			out = append(out, p)
		}
	}
	return out
}

// meantFor says a Service that may be meant for the pods (chain.MaybeMeant)
// is: it selects no pod at all. A Service whose EndpointSlices hold
// endpoints, or that selects one of the namespace's other pods (a Pending
// one has no endpoint), serves other pods (a tier=db Service beside
// tier=web pods shares app=shop on purpose).
func (w *walker) meantFor(svc *corev1.Service) bool {
	if w.s.SelectsOther(svc) {
		return false
	}
	for _, sl := range w.slicesOf(svc) {
		if len(sl.Endpoints) > 0 {
			return false
		}
	}
	return true
}

// selectorMismatch names the labels the Service asks for and what the pods
// carry under the same keys.
func (w *walker) selectorMismatch(c *collector, svc *corev1.Service, podLabels map[string]string) {
	keys := make([]string, 0, len(svc.Spec.Selector))
	for k := range svc.Spec.Selector {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var want, have []string
	for _, k := range keys {
		want = append(want, k+"="+svc.Spec.Selector[k])
		if v, ok := podLabels[k]; ok {
			have = append(have, k+"="+v)
		} else {
			have = append(have, "no "+k)
		}
	}
	obj := objectName("service", svc.Name)
	c.add(sighting{
		d: decode.Decoded{Cause: decode.ServiceSelectorMismatch,
			Summary:  fmt.Sprintf("Service %s selects none of the pods: selector %s; the pods carry %s", svc.Name, strings.Join(want, ","), strings.Join(have, ",")),
			NextStep: serviceStep(decode.ServiceSelectorMismatch, svc.Name)},
		object: obj, since: w.later(svc.CreationTimestamp.Time),
		evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "spec.selector",
			Message: fmt.Sprintf("selector %s; pod template labels %s", strings.Join(want, ","), labels.Set(podLabels).String())}},
	})
}

// slicesOf are the Service's EndpointSlices, by the controller's label.
func (w *walker) slicesOf(svc *corev1.Service) []*discoveryv1.EndpointSlice {
	var out []*discoveryv1.EndpointSlice
	for i := range w.s.EndpointSlices {
		sl := &w.s.EndpointSlices[i]
		if sl.Labels[serviceNameLabel] == svc.Name && sl.Namespace == svc.Namespace {
			out = append(out, sl)
		}
	}
	return out
}

// serviceEndpoints compares the pods that are ready with what the
// EndpointSlice controller wrote: each ready pod should be a ready endpoint
// of every Service that selects it. Fewer is the controller behind (a grace,
// then a failure); terminating endpoints during a rollout are progress. A
// numbered targetPort no container declares is noted here too.
func (w *walker) serviceEndpoints(c *collector, svc *corev1.Service, pods []*corev1.Pod, declared containerPorts) []string {
	var notes []string
	for _, p := range svc.Spec.Ports {
		proto := p.Protocol
		if proto == "" {
			proto = corev1.ProtocolTCP
		}
		if p.TargetPort.Type == intstr.Int && len(declared) > 0 {
			n := p.TargetPort.IntVal
			if n == 0 {
				n = p.Port
			}
			if !declared.byNumber(n, proto) {
				notes = append(notes, fmt.Sprintf("Service %s port %s sends to %d/%s, which no container declares (they declare %s): traffic reaches it only if the program listens there",
					svc.Name, portLabel(p), n, proto, declared))
			}
		}
	}
	ready := map[string]*corev1.Pod{}
	for _, p := range pods {
		if isReady(p) && p.Status.PodIP != "" {
			ready[p.Name] = p
		}
	}
	slices := w.slicesOf(svc)
	endpoint, terminating := map[string]bool{}, 0
	for _, sl := range slices {
		for _, e := range sl.Endpoints {
			if e.TargetRef == nil || e.TargetRef.Kind != "Pod" {
				continue
			}
			if e.Conditions.Ready == nil || *e.Conditions.Ready {
				endpoint[e.TargetRef.Name] = true
			}
			if e.Conditions.Terminating != nil && *e.Conditions.Terminating {
				terminating++
			}
		}
	}
	if svc.Spec.PublishNotReadyAddresses {
		notes = append(notes, fmt.Sprintf("Service %s publishes not-ready addresses: its endpoints do not wait for readiness", svc.Name))
	}
	if terminating > 0 {
		notes = append(notes, fmt.Sprintf("Service %s: %s terminating (a rollout or scale-down drains them)", svc.Name, plural(int32(terminating), "endpoint")))
	}
	var missing []string
	var since time.Time
	for _, name := range sortedKeys(ready) {
		if endpoint[name] {
			continue
		}
		missing = append(missing, name)
		if t := readySince(ready[name]); since.IsZero() || t.After(since) {
			since = t
		}
	}
	obj := objectName("service", svc.Name)
	if len(missing) == 0 {
		if len(ready) > 0 {
			notes = append(notes, fmt.Sprintf("Service %s: %d/%d ready pods are ready endpoints", svc.Name, len(ready), len(ready)))
		}
		return notes
	}
	what := fmt.Sprintf("%d of its EndpointSlices", len(slices))
	if len(slices) == 0 {
		what = "no EndpointSlice"
	}
	c.add(sighting{
		d: decode.Decoded{Cause: decode.EndpointsMissing, Progressing: true,
			Summary:  fmt.Sprintf("Service %s: %d/%d ready pods are not ready endpoints (%s)", svc.Name, len(missing), len(ready), what),
			NextStep: serviceStep(decode.EndpointsMissing, svc.Name)},
		object: obj, since: w.later(since),
		evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "endpointslices",
			Message: fmt.Sprintf("%s list no ready endpoint for %s", what, strings.Join(firstN(missing, 3), ", "))}},
	})
	return notes
}

// loadBalancer judges a LoadBalancer Service without an address by the
// service controller's events (k8s.io/cloud-provider controllers/service:
// EnsuringLoadBalancer when it starts, SyncLoadBalancerFailed with the
// cloud's error; before 1.9 the controller in kubernetes said
// CreatingLoadBalancer and CreatingLoadBalancerFailed) and other
// implementations' failures (MetalLB's AllocationFailed, the AWS Load
// Balancer Controller's FailedBuildModel and FailedDeployModel): none at
// all means no controller handles the Service
// (no cloud provider, bare metal, kind), which is progress for the grace,
// then a failure.
func (w *walker) loadBalancer(c *collector, svc *corev1.Service) {
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer || len(svc.Status.LoadBalancer.Ingress) > 0 {
		return
	}
	obj := objectName("service", svc.Name)
	var failed, ensuring *chain.Event
	for _, e := range w.s.EventsFor("Service", svc.Name, svc.UID) {
		switch {
		case e.Reason == "SyncLoadBalancerFailed" || e.Reason == "CreatingLoadBalancerFailed":
			failed = &e
		case e.Reason == "EnsuringLoadBalancer" || e.Reason == "CreatingLoadBalancer":
			ensuring = &e
		case e.Type == corev1.EventTypeWarning && lbFailedWords(e):
			// Another implementation's failure: MetalLB's AllocationFailed,
			// the AWS Load Balancer Controller's FailedBuildModel.
			failed = &e
		}
	}
	switch {
	case failed != nil:
		c.add(sighting{d: decode.Decoded{Cause: decode.LoadBalancerFailed,
			Summary:  fmt.Sprintf("Service %s: the load balancer failed: %s", svc.Name, decode.CloudWords(failed.Message)),
			NextStep: serviceStep(decode.LoadBalancerFailed, svc.Name)},
			object: obj, since: w.later(failed.First), repeats: failed.Count, evidence: []chain.Evidence{eventEvidence(*failed)}})
	case ensuring != nil:
		c.add(sighting{d: decode.Decoded{Cause: decode.LoadBalancerPending, Progressing: true,
			Summary:  fmt.Sprintf("Service %s: the service controller is ensuring its load balancer", svc.Name),
			NextStep: serviceStep(decode.LoadBalancerPending, svc.Name)},
			object: obj, evidence: []chain.Evidence{eventEvidence(*ensuring)}})
	default:
		why := "no address in status.loadBalancer and no event of a service controller"
		if svc.Spec.LoadBalancerClass != nil {
			why += fmt.Sprintf(" (spec.loadBalancerClass %s: only that class's controller acts on it)", *svc.Spec.LoadBalancerClass)
		}
		c.add(sighting{d: decode.Decoded{Cause: decode.LoadBalancerNoController, Progressing: true,
			Summary:  fmt.Sprintf("Service %s of type LoadBalancer: no controller has given it an address", svc.Name),
			NextStep: serviceStep(decode.LoadBalancerNoController, svc.Name)},
			object: obj, since: w.later(svc.CreationTimestamp.Time),
			evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "status.loadBalancer", Message: why}}})
	}
}

// lbFailedWords says an event's words are a load-balancer implementation's
// failure to give the Service its address. The AWS controller words its
// Service's and its Ingress's alike ("Failed build model due to ..."):
// about a Service, it is the Service's.
func lbFailedWords(e chain.Event) bool {
	d, ok := decode.Serving(e.Reason, e.Message)
	return ok && (d.Cause == decode.LoadBalancerFailed || d.Cause == decode.IngressLoadBalancerFailed)
}

// headlessService: the StatefulSet controller names each pod's hostname and
// subdomain after spec.serviceName, and only a headless Service of that
// name makes the names POD.SERVICE resolve. An empty serviceName (optional
// since 1.32) asks for none.
func (w *walker) headlessService(c *collector, sts *appsv1.StatefulSet) {
	name := sts.Spec.ServiceName
	if name == "" {
		return
	}
	obj := objectName("statefulset", sts.Name)
	var svc *corev1.Service
	for i := range w.s.Services {
		if w.s.Services[i].Name == name {
			svc = &w.s.Services[i]
		}
	}
	summary := fmt.Sprintf("spec.serviceName %s names no Service in the namespace", name)
	switch {
	case svc == nil:
	case svc.Spec.ClusterIP != corev1.ClusterIPNone:
		summary = fmt.Sprintf("spec.serviceName %s names a Service that is not headless (clusterIP %s)", name, svc.Spec.ClusterIP)
	default:
		return
	}
	c.add(sighting{d: decode.Decoded{Cause: decode.HeadlessServiceMissing, Summary: summary,
		NextStep: decode.Fill(mustCause(decode.HeadlessServiceMissing).Step, decode.Fields{decode.FieldService: name})},
		object: obj, since: w.later(sts.CreationTimestamp.Time),
		evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "spec.serviceName", Message: summary}}})
}

// later is the later of t and the workload's creation: a grace counted
// from a Service older than the workload would end before its pods exist.
func (w *walker) later(t time.Time) time.Time {
	if wl := w.s.Workload(); wl != nil && wl.GetCreationTimestamp().After(t) {
		return wl.GetCreationTimestamp().Time
	}
	return t
}

// serviceStep is the catalogue's next step for the Service.
func serviceStep(id chain.CauseID, service string) string {
	return decode.Fill(mustCause(id).Step, decode.Fields{decode.FieldService: service})
}

// readySince is when the pod turned ready.
func readySince(p *corev1.Pod) time.Time {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.LastTransitionTime.Time
		}
	}
	return p.CreationTimestamp.Time
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return append(append([]string(nil), s[:n]...), fmt.Sprintf("and %d more", len(s)-n))
	}
	return s
}
