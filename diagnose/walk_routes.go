package diagnose

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// acceptReasons are the route's Accepted False reasons that have a cause
// of their own; any other is RouteNotAccepted.
var acceptReasons = map[gatewayv1.RouteConditionReason]chain.CauseID{
	gatewayv1.RouteReasonNotAllowedByListeners:      decode.RouteNotAllowedByListeners,
	gatewayv1.RouteReasonNoMatchingListenerHostname: decode.RouteHostnameMismatch,
	gatewayv1.RouteReasonNoMatchingParent:           decode.RouteNoMatchingParent,
}

// refsReasons are the route's ResolvedRefs False reasons, each a cause.
var refsReasons = map[gatewayv1.RouteConditionReason]chain.CauseID{
	gatewayv1.RouteReasonBackendNotFound:      decode.RouteBackendNotFound,
	gatewayv1.RouteReasonRefNotPermitted:      decode.RouteRefNotPermitted,
	gatewayv1.RouteReasonInvalidKind:          decode.RouteBackendInvalidKind,
	gatewayv1.RouteReasonUnsupportedProtocol:  decode.RouteBackendUnsupportedProtocol,
	gatewayv1.RouteConditionReason("Invalid"): decode.RouteBackendNotFound,
}

// routeObject is the route's name as the report writes objects.
func (w *walker) routeObject() string {
	return objectName(w.s.Route.Kind.Resource(), w.s.Route.Name)
}

// parentStatus is what the route's status says for the parent reference,
// nil when no controller wrote it.
func parentStatus(r *chain.Route, p gatewayv1.ParentReference) *gatewayv1.RouteParentStatus {
	want := chain.ParentKeyOf(r.Namespace, p)
	for i := range r.Status.Parents {
		st := &r.Status.Parents[i]
		if chain.ParentKeyOf(r.Namespace, st.ParentRef) == want && ptr.Equal(st.ParentRef.SectionName, p.SectionName) && ptr.Equal(st.ParentRef.Port, p.Port) {
			return st
		}
	}
	return nil
}

// parentsLink: each parent Gateway exists and its controller accepted the
// route. A parent with no status is a controller that does not watch the
// route (or does not run): progress for the grace.
func (w *walker) parentsLink() chain.Link {
	id, r := chain.LinkParents, w.s.Route
	gap := w.s.Gap(chain.ResourceGateways)
	c := &collector{}
	obj := w.routeObject()
	var parts, notes []string
	for _, p := range r.ParentRefs {
		key := chain.ParentKeyOf(r.Namespace, p)
		if !chain.IsGatewayParent(p) {
			notes = append(notes, fmt.Sprintf("parent %s %s is not a Gateway: not judged", cmp.Or(string(ptr.Deref(p.Kind, "")), "?"), p.Name))
			continue
		}
		name := parentName(r, p)
		gw := w.s.GatewayNamed(key)
		if gw == nil {
			if gap != nil {
				return unknown(id, gap)
			}
			c.add(sighting{d: decode.Decoded{Cause: decode.RouteParentNotFound,
				Summary: fmt.Sprintf("%s %s names parent Gateway %s, which does not exist", r.Kind, r.Name, name)},
				object: obj, since: r.CreationTimestamp.Time,
				evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "spec.parentRefs", Message: fmt.Sprintf("parentRef %s; no Gateway %s/%s", name, key.Namespace, key.Name)}}})
			parts = append(parts, name+" not found")
			continue
		}
		st := parentStatus(r, p)
		var acc *metav1.Condition
		if st != nil {
			acc = meta.FindStatusCondition(st.Conditions, string(gatewayv1.RouteConditionAccepted))
		}
		field := fmt.Sprintf("status.parents[%s].conditions[Accepted]", name)
		switch {
		case (acc == nil || acc.Status == metav1.ConditionUnknown) && !w.gatewayReady(gw):
			// The class or gateway link has the cause: a Gateway its
			// controller has not programmed writes no route status.
			parts = append(parts, name+" not judged: its Gateway is not ready")
		case acc == nil || acc.Status == metav1.ConditionUnknown:
			ctl := "its class's controller"
			if gc := w.s.GatewayClassNamed(string(gw.Spec.GatewayClassName)); gc != nil {
				ctl = string(gc.Spec.ControllerName)
			}
			ev := condEvidence(obj, acc, "Accepted")
			ev.Field = field
			c.add(sighting{d: decode.Decoded{Cause: decode.RouteNoController, Progressing: true,
				Summary:  fmt.Sprintf("%s %s: no status from the controller of parent %s (%s)", r.Kind, r.Name, name, ctl),
				NextStep: decode.Fill(mustCause(decode.RouteNoController).Step, decode.Fields{decode.FieldGateway: gw.Name})},
				object: obj, since: r.CreationTimestamp.Time, evidence: []chain.Evidence{ev}})
			parts = append(parts, name+" no status")
		case acc.Status == metav1.ConditionFalse:
			cause, ok := acceptReasons[gatewayv1.RouteConditionReason(acc.Reason)]
			if !ok {
				cause = decode.RouteNotAccepted
			}
			ev := conditionEvidence(obj, acc.Type, string(acc.Status), acc.Reason, acc.Message)
			ev.Field = field
			c.add(sighting{d: decode.Decoded{Cause: cause,
				Summary:  fmt.Sprintf("%s %s not accepted by %s (%s): %s", r.Kind, r.Name, name, acc.Reason, acc.Message),
				NextStep: decode.Fill(mustCause(cause).Step, decode.Fields{decode.FieldGateway: gw.Name})},
				object: obj, since: conditionSince(acc, r), evidence: []chain.Evidence{ev}})
			parts = append(parts, name+" refused")
		default:
			parts = append(parts, name+" accepted")
			if acc.ObservedGeneration > 0 && acc.ObservedGeneration < r.Generation {
				notes = append(notes, fmt.Sprintf("parent %s's status is of generation %d; the route is at %d: its controller has not seen the last change yet", name, acc.ObservedGeneration, r.Generation))
			}
		}
	}
	summary := strings.Join(firstN(parts, 4), "; ")
	if summary == "" {
		summary = "no parent Gateway"
	}
	return w.finishNoted(id, summary, c, notes)
}

// parentName is how the report names a parent reference: its Gateway
// (with namespace when not the route's), and listener when it names one.
func parentName(r *chain.Route, p gatewayv1.ParentReference) string {
	key := chain.ParentKeyOf(r.Namespace, p)
	name := key.Name
	if key.Namespace != r.Namespace {
		name = key.Namespace + "/" + key.Name
	}
	if p.SectionName != nil {
		name += "/" + string(*p.SectionName)
	}
	if p.Port != nil {
		name += fmt.Sprintf(":%d", *p.Port)
	}
	return name
}

// routeBackends: each parent's controller resolved the route's backends
// (ResolvedRefs), and each Service backend of the route's namespace exists
// with the port it names, which kubectl chain checks itself, with or
// without a controller.
func (w *walker) routeBackends() chain.Link {
	id, r := chain.LinkBackends, w.s.Route
	if g := w.s.Gap(chain.ResourceServices); g != nil {
		return unknown(id, g)
	}
	obj := w.routeObject()
	c := &collector{}
	var notes, named []string
	own := map[chain.CauseID]bool{}
	// What the parents' controllers say of the references, quoted beside
	// a cause kubectl chain found itself, or a cause of its own.
	said := w.resolvedRefs(obj)
	for _, b := range r.BackendRefs {
		ns := string(ptr.Deref(b.Namespace, ""))
		switch {
		case !chain.IsServiceBackend(b):
			notes = append(notes, fmt.Sprintf("backend %s %s is not a Service: not judged", cmp.Or(string(ptr.Deref(b.Kind, "")), "?"), b.Name))
			continue
		case ns != "" && ns != r.Namespace:
			notes = append(notes, fmt.Sprintf("backend Service %s/%s is in another namespace: not read (a ReferenceGrant there must allow it; the controller's ResolvedRefs says whether one does)", ns, b.Name))
			continue
		}
		port := "(no port)"
		if b.Port != nil {
			port = fmt.Sprint(*b.Port)
		}
		named = append(named, fmt.Sprintf("%s:%s", b.Name, port))
		svc := w.s.ServiceNamed(string(b.Name))
		if svc == nil {
			own[decode.RouteBackendNotFound] = true
			c.add(sighting{d: decode.Decoded{Cause: decode.RouteBackendNotFound,
				Summary: fmt.Sprintf("%s %s sends to Service %s, which does not exist", r.Kind, r.Name, b.Name)},
				object: obj, since: r.CreationTimestamp.Time,
				evidence: append([]chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "spec.rules[].backendRefs", Message: noServiceMessage(w.s, string(b.Name), port, r.Namespace)}}, said[decode.RouteBackendNotFound].evidence...)})
			continue
		}
		if b.Port != nil && !hasServicePort(svc, int32(*b.Port)) {
			own[decode.RouteBackendPortNotFound] = true
			c.add(sighting{d: decode.Decoded{Cause: decode.RouteBackendPortNotFound,
				Summary:  fmt.Sprintf("%s %s sends to port %s of Service %s, which has no such port (it has %s)", r.Kind, r.Name, port, svc.Name, orNone(servicePorts(svc))),
				NextStep: decode.Fill(mustCause(decode.RouteBackendPortNotFound).Step, decode.Fields{decode.FieldService: svc.Name})},
				object: obj, since: laterOf(r.CreationTimestamp.Time, svc.CreationTimestamp.Time),
				evidence: append([]chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "spec.rules[].backendRefs[].port", Message: fmt.Sprintf("port %s; Service %s ports: %s", port, svc.Name, orNone(servicePorts(svc)))}}, said[decode.RouteBackendPortNotFound].evidence...)})
		}
	}
	for _, cause := range slices.Sorted(maps.Keys(said)) {
		if !own[cause] {
			c.add(said[cause].sighting)
		}
	}
	summary := fmt.Sprintf("%s: %s", plural(int32(len(named)), "Service backend"), strings.Join(firstN(named, 4), ", "))
	if len(named) == 0 {
		summary = "no Service backend in the route's namespace"
	}
	return w.finishNoted(id, summary, c, notes)
}

// controllerSaid is what the parents' controllers wrote of a cause: its
// sighting, should kubectl chain not have found the cause itself, and the
// conditions to quote beside its own.
type controllerSaid struct {
	sighting sighting
	evidence []chain.Evidence
}

// resolvedRefs reads each parent's ResolvedRefs False condition as a cause
// of the backends link.
func (w *walker) resolvedRefs(obj string) map[chain.CauseID]controllerSaid {
	r := w.s.Route
	said := map[chain.CauseID]controllerSaid{}
	for _, st := range r.Status.Parents {
		ref := meta.FindStatusCondition(st.Conditions, string(gatewayv1.RouteConditionResolvedRefs))
		if ref == nil || ref.Status != metav1.ConditionFalse {
			continue
		}
		cause, ok := refsReasons[gatewayv1.RouteConditionReason(ref.Reason)]
		if !ok {
			cause = decode.RouteBackendNotFound
			if ds := decode.Explain(ref.Reason, ref.Message); len(ds) > 0 && mustCause(ds[0].Cause).Link == chain.LinkBackends {
				cause = ds[0].Cause
			}
		}
		ev := conditionEvidence(obj, ref.Type, string(ref.Status), ref.Reason, ref.Message)
		ev.Field = fmt.Sprintf("status.parents[%s].conditions[ResolvedRefs]", parentName(r, st.ParentRef))
		cs, seen := said[cause]
		if !seen {
			cs.sighting = sighting{d: decode.Decoded{Cause: cause,
				Summary: fmt.Sprintf("%s %s: %s cannot resolve its backends (%s): %s", r.Kind, r.Name, st.ControllerName, ref.Reason, ref.Message)},
				object: obj, since: conditionSince(ref, r)}
		}
		cs.evidence = append(cs.evidence, ev)
		cs.sighting.evidence = cs.evidence
		said[cause] = cs
	}
	return said
}

// noServiceMessage is the evidence of a backend that names a Service the
// namespace does not have, with the Services it has (the one meant is
// often among them, a letter or a suffix away).
func noServiceMessage(s *chain.Snapshot, name, port, ns string) string {
	var have []string
	for i := range s.Services {
		have = append(have, s.Services[i].Name)
	}
	slices.Sort(have)
	return fmt.Sprintf("service %s port %s; no Service %s in namespace %s (its Services: %s)", name, port, name, ns, orNone(have))
}

func hasServicePort(svc *corev1.Service, port int32) bool {
	for _, p := range svc.Spec.Ports {
		if p.Port == port {
			return true
		}
	}
	return false
}

// servicePorts are the Service's ports as "name number".
func servicePorts(svc *corev1.Service) []string {
	var have []string
	for _, p := range svc.Spec.Ports {
		have = append(have, fmt.Sprintf("%s %d", cmp.Or(p.Name, "(unnamed)"), p.Port))
	}
	return have
}
