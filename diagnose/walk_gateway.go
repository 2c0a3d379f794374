package diagnose

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// gatewayLinks walks a Gateway's or a route's chain: the class of each
// Gateway (the target, or the route's parents), the Gateway accepted and
// programmed with its listeners, then for a route its acceptance by each
// parent, its backends, and the Services' own links.
func (w *walker) gatewayLinks() []chain.Link {
	links := []chain.Link{w.trafficStored(), w.gatewayClassLink(), w.gatewayLink()}
	if w.s.Route == nil {
		return links
	}
	return append(links, w.parentsLink(), w.routeBackends(), w.selectorLink(), w.workloadsLink(), w.endpointsLink())
}

// judgedGateways are the Gateways whose class and state the chain judges:
// the target, or the route's parents that exist.
func (w *walker) judgedGateways() []*gatewayv1.Gateway {
	if w.s.Gateway != nil {
		return []*gatewayv1.Gateway{w.s.Gateway}
	}
	var out []*gatewayv1.Gateway
	for _, k := range w.s.Route.ParentGateways() {
		if g := w.s.GatewayNamed(k); g != nil {
			out = append(out, g)
		}
	}
	return out
}

// noParent is the class and gateway links of a route none of whose
// parents exist: the parents link says why.
func (w *walker) noParent(id chain.LinkID) (chain.Link, bool) {
	if len(w.judgedGateways()) > 0 {
		return chain.Link{}, false
	}
	if g := w.s.Gap(chain.ResourceGateways); g != nil {
		return unknown(id, g), true
	}
	return notReached(id, "no parent Gateway exists"), true
}

// gatewayClassLink: each Gateway's class exists and a controller accepted
// it. Until one does, the class keeps the API's default status (Accepted
// Unknown, reason Pending, "Waiting for controller").
func (w *walker) gatewayClassLink() chain.Link {
	id := chain.LinkClass
	if l, ok := w.noParent(id); ok {
		return l
	}
	if g := w.s.Gap(chain.ResourceGatewayClasses); g != nil {
		return unknown(id, g)
	}
	c := &collector{}
	var parts []string
	for _, gw := range w.judgedGateways() {
		name := string(gw.Spec.GatewayClassName)
		gobj := objectName("gateway", gw.Name)
		class := w.s.GatewayClassNamed(name)
		if class == nil {
			var have []string
			for _, gc := range w.s.GatewayClasses {
				have = append(have, gc.Name)
			}
			c.add(sighting{d: decode.Decoded{Cause: decode.GatewayClassNotFound,
				Summary: fmt.Sprintf("Gateway %s names GatewayClass %s, which does not exist (the cluster has %s)", gw.Name, name, orNone(have))},
				object: gobj, since: gw.CreationTimestamp.Time,
				evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: gobj, Field: "spec.gatewayClassName", Message: fmt.Sprintf("gatewayClassName %s; GatewayClasses: %s", name, orNone(have))}}})
			parts = append(parts, "class "+name+" not found")
			continue
		}
		cobj := objectName("gatewayclass", class.Name)
		next := decode.Fill(mustCause(decode.GatewayClassNoController).Step, decode.Fields{decode.FieldClass: class.Name})
		switch acc := meta.FindStatusCondition(class.Status.Conditions, string(gatewayv1.GatewayClassConditionStatusAccepted)); {
		case acc == nil || acc.Status == metav1.ConditionUnknown:
			c.add(sighting{d: decode.Decoded{Cause: decode.GatewayClassNoController, Progressing: true,
				Summary:  fmt.Sprintf("GatewayClass %s: no controller has accepted it; %s does not seem to run", class.Name, class.Spec.ControllerName),
				NextStep: next},
				object: cobj, since: class.CreationTimestamp.Time, evidence: []chain.Evidence{condEvidence(cobj, acc, "Accepted")}})
			parts = append(parts, fmt.Sprintf("class %s not accepted yet", class.Name))
		case acc.Status == metav1.ConditionFalse:
			c.add(sighting{d: decode.Decoded{Cause: decode.GatewayClassNotAccepted,
				Summary:  fmt.Sprintf("GatewayClass %s refused by %s: %s", class.Name, class.Spec.ControllerName, cmp.Or(acc.Message, acc.Reason)),
				NextStep: decode.Fill(mustCause(decode.GatewayClassNotAccepted).Step, decode.Fields{decode.FieldClass: class.Name})},
				object: cobj, since: acc.LastTransitionTime.Time, evidence: []chain.Evidence{condEvidence(cobj, acc, "Accepted")}})
			parts = append(parts, fmt.Sprintf("class %s refused", class.Name))
		default:
			parts = append(parts, fmt.Sprintf("class %s accepted by %s", class.Name, class.Spec.ControllerName))
		}
	}
	return w.finish(id, strings.Join(uniq(parts), "; "), c, 0)
}

// gatewayLink: each Gateway is accepted and programmed, and each of its
// listeners too, without conflicts or unresolved certificates.
func (w *walker) gatewayLink() chain.Link {
	id := chain.LinkGateway
	if l, ok := w.noParent(id); ok {
		return l
	}
	c := &collector{}
	var parts, notes []string
	for _, gw := range w.judgedGateways() {
		if !w.classAccepted(gw) {
			// The class link has the cause; what the Gateway lacks
			// follows from it.
			parts = append(parts, fmt.Sprintf("%s not judged: its class is not accepted", gw.Name))
			continue
		}
		gobj := objectName("gateway", gw.Name)
		next := func(cause chain.CauseID) string {
			return decode.Fill(mustCause(cause).Step, decode.Fields{decode.FieldGateway: gw.Name})
		}
		add := func(cause chain.CauseID, progressing bool, summary string, cond *metav1.Condition, field string) {
			ev := condEvidence(gobj, cond, field)
			ev.Field = "status." + field
			c.add(sighting{d: decode.Decoded{Cause: cause, Progressing: progressing, Summary: summary, NextStep: next(cause)},
				object: gobj, since: conditionSince(cond, gw), evidence: []chain.Evidence{ev}})
		}
		before := len(c.order)
		w.listeners(gw, add)
		acc := meta.FindStatusCondition(gw.Status.Conditions, string(gatewayv1.GatewayConditionAccepted))
		prog := meta.FindStatusCondition(gw.Status.Conditions, string(gatewayv1.GatewayConditionProgrammed))
		switch {
		case acc != nil && acc.Status == metav1.ConditionFalse && len(c.order) == before:
			add(decode.GatewayNotAccepted, false, fmt.Sprintf("Gateway %s not accepted (%s): %s", gw.Name, acc.Reason, acc.Message), acc, "conditions[Accepted]")
		case acc != nil && acc.Status == metav1.ConditionFalse:
			// ListenersNotValid: the listeners' own conditions say which.
		case prog != nil && prog.Status == metav1.ConditionFalse:
			progressing := prog.Reason == string(gatewayv1.GatewayReasonPending) || prog.Reason == string(gatewayv1.GatewayReasonAddressNotAssigned)
			add(decode.GatewayNotProgrammed, progressing, fmt.Sprintf("Gateway %s not programmed (%s): %s", gw.Name, prog.Reason, prog.Message), prog, "conditions[Programmed]")
		case acc == nil || acc.Status == metav1.ConditionUnknown || prog == nil || prog.Status == metav1.ConditionUnknown:
			add(decode.GatewayNotProgrammed, true, fmt.Sprintf("Gateway %s: its class's controller has not programmed it yet", gw.Name), cmp.Or(prog, acc), "conditions[Programmed]")
		}
		if len(c.order) > before {
			parts = append(parts, fmt.Sprintf("%s not ready", gw.Name))
			continue
		}
		var addrs []string
		for _, a := range gw.Status.Addresses {
			addrs = append(addrs, a.Value)
		}
		parts = append(parts, fmt.Sprintf("%s programmed, address %s", gw.Name, orNone(addrs)))
		for _, ls := range gw.Status.Listeners {
			notes = append(notes, fmt.Sprintf("listener %s of %s: %s attached", ls.Name, gw.Name, plural(ls.AttachedRoutes, "route")))
		}
	}
	l := w.finish(id, strings.Join(parts, "; "), c, 0)
	l.Notes = append(l.Notes, notes...)
	return l
}

// classAccepted says a controller accepted the Gateway's class.
func (w *walker) classAccepted(gw *gatewayv1.Gateway) bool {
	gc := w.s.GatewayClassNamed(string(gw.Spec.GatewayClassName))
	return gc != nil && meta.IsStatusConditionTrue(gc.Status.Conditions, string(gatewayv1.GatewayClassConditionStatusAccepted))
}

// gatewayReady says the Gateway's class is accepted and the Gateway is
// accepted and programmed: its controller runs and has reconciled it.
func (w *walker) gatewayReady(gw *gatewayv1.Gateway) bool {
	return w.classAccepted(gw) && meta.IsStatusConditionTrue(gw.Status.Conditions, string(gatewayv1.GatewayConditionAccepted)) &&
		meta.IsStatusConditionTrue(gw.Status.Conditions, string(gatewayv1.GatewayConditionProgrammed))
}

// listeners adds a finding for each listener of gw whose conditions say
// it is conflicted, cannot resolve its certificates or route kinds, or is
// not accepted or programmed.
func (w *walker) listeners(gw *gatewayv1.Gateway, add func(chain.CauseID, bool, string, *metav1.Condition, string)) {
	for _, ls := range gw.Status.Listeners {
		field := fmt.Sprintf("listeners[%s].conditions", ls.Name)
		cond := func(t string) *metav1.Condition { return meta.FindStatusCondition(ls.Conditions, t) }
		say := func(c *metav1.Condition) string {
			return fmt.Sprintf("listener %s of Gateway %s: %s %s (%s): %s", ls.Name, gw.Name, c.Type, c.Status, c.Reason, c.Message)
		}
		if c := cond(string(gatewayv1.ListenerConditionConflicted)); c != nil && c.Status == metav1.ConditionTrue {
			add(decode.GatewayListenerConflicted, false, say(c), c, field+"[Conflicted]")
			continue
		}
		if c := cond(string(gatewayv1.ListenerConditionResolvedRefs)); c != nil && c.Status == metav1.ConditionFalse {
			cause := decode.GatewayListenerInvalid
			if c.Reason == string(gatewayv1.ListenerReasonInvalidCertificateRef) || c.Reason == string(gatewayv1.ListenerReasonRefNotPermitted) {
				cause = decode.GatewayListenerCertificateInvalid
			}
			add(cause, false, say(c), c, field+"[ResolvedRefs]")
			continue
		}
		for _, t := range []string{string(gatewayv1.ListenerConditionAccepted), string(gatewayv1.ListenerConditionProgrammed)} {
			if c := cond(t); c != nil && c.Status == metav1.ConditionFalse {
				add(decode.GatewayListenerInvalid, c.Reason == string(gatewayv1.ListenerReasonPending), say(c), c, field+"["+t+"]")
				break
			}
		}
	}
}

// condEvidence quotes a condition; a missing one is said to be missing.
func condEvidence(obj string, c *metav1.Condition, typ string) chain.Evidence {
	if c == nil {
		return chain.Evidence{Source: chain.SourceCondition, Object: obj, Field: "status.conditions", Message: "no " + typ + " condition: no controller has written status"}
	}
	return conditionEvidence(obj, c.Type, string(c.Status), c.Reason, c.Message)
}

func uniq(s []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// conditionSince is when a condition last changed, else (none, or the
// API's Unknown default of 1970, which no controller wrote) when obj was
// made.
func conditionSince(c *metav1.Condition, obj metav1.Object) time.Time {
	if c != nil && c.Status != metav1.ConditionUnknown && !c.LastTransitionTime.IsZero() {
		return c.LastTransitionTime.Time
	}
	return obj.GetCreationTimestamp().Time
}
