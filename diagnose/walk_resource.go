package diagnose

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// resourceLinks walks any other kind: stored, its own status as kstatus
// computes it, then the workloads it owns.
func (w *walker) resourceLinks() []chain.Link {
	obj := w.s.Object
	if obj == nil {
		return w.notFound(decode.ResourceNotFound)
	}
	stored := chain.Link{ID: chain.LinkStored, Status: chain.StatusOK, Summary: w.s.API.Kind + " " + w.s.API.APIVersion()}
	status, owned := w.resourceStatus(obj), w.ownedLink()
	pointDown(&status, &owned)
	return []chain.Link{stored, status, owned}
}

// pointDown: a controller that gave up (its status broken) because a
// workload it owns is broken says less than that workload's own cause,
// one link down. The status stays the first broken link, and its next
// step becomes the owned workload's, named.
func pointDown(status, owned *chain.Link) {
	if status.Status != chain.StatusBroken || owned.Status != chain.StatusBroken {
		return
	}
	for _, o := range owned.Findings {
		if o.Cause == "" || o.Cause == decode.OwnedNotHealthy || o.Progressing {
			continue
		}
		for i := range status.Findings {
			status.Findings[i].NextStep = fmt.Sprintf("the cause is likely below it: %s (%s); %s", o.Summary, o.Cause, o.NextStep)
		}
		return
	}
}

// resourceStatus is the object's own status: an autoscaler's conditions,
// else the health check its kind's community keeps (walk_health.go), else
// kstatus's verdict, its conditions quoted: Current is ok, Failed broken,
// InProgress and Terminating progress, anything else unknown.
func (w *walker) resourceStatus(obj *unstructured.Unstructured) chain.Link {
	if l, ok := w.autoscalerStatus(obj, w.s.Ref().String()); ok {
		return l
	}
	if l, ok := w.vpaStatus(obj, w.s.Ref().String()); ok {
		return l
	}
	if l, ok := w.claimStatus(obj); ok {
		return l
	}
	res, err := status.Compute(obj)
	l, ok, note := w.checkedStatus(obj, res)
	if !ok {
		l = w.kstatusLink(obj, res, err)
		if note != "" {
			l.Notes = append(l.Notes, note)
		}
	}
	w.producerWords(&l, obj)
	w.missingRefs(&l, obj)
	return l
}

// producerWords: an object whose status does not say it is well, and
// whose controller says why in words a producer's decoder knows, has that
// cause: a condition of its own not in its healthy state (a cert-manager
// CertificateRequest whose Ready False says its Issuer is not found), else
// one of its newest try's (a Certificate's CertificateRequest), else its
// newest Warning event (the sealed-secrets controller before v0.15
// wrote no status, only its ErrUnsealFailed event; that event also shows a
// controller has acted on it).
func (w *walker) producerWords(l *chain.Link, obj *unstructured.Unstructured) {
	if l.Status == chain.StatusOK && len(objectConditions(obj)) > 0 {
		return
	}
	ref := w.s.Ref().String()
	var found *sighting
	for _, cd := range objectConditions(obj) {
		if healthyCondition(cd.Type, cd.Status) {
			continue
		}
		if known, ok := decode.ProducerWords(cd.Message); ok {
			found = &sighting{d: known, since: obj.GetCreationTimestamp().Time,
				evidence: []chain.Evidence{conditionEvidence(ref, cd.Type, cd.Status, cd.Reason, cd.Message)}}
			break
		}
	}
	for _, p := range w.s.Produced {
		if found != nil || p.Object != obj || len(p.Attempts) == 0 {
			continue
		}
		// Its newest try's words (a Certificate's CertificateRequest).
		a := p.Attempts[0]
		aref := chain.ResourceRef(chain.APIResource{Group: p.API.Group, Kind: a.GetKind()}, a.GetName()).String()
		for _, cd := range objectConditions(a) {
			if known, ok := decode.ProducerWords(cd.Message); ok && !healthyCondition(cd.Type, cd.Status) {
				found = &sighting{d: known, since: a.GetCreationTimestamp().Time,
					evidence: []chain.Evidence{conditionEvidence(aref, cd.Type, cd.Status, cd.Reason, cd.Message)}}
				break
			}
		}
	}
	for i := len(w.s.Events) - 1; found == nil && i >= 0; i-- {
		e := w.s.Events[i]
		if known, ok := decode.ProducerWords(e.Message); ok && e.Type == corev1.EventTypeWarning {
			found = &sighting{d: known, since: e.First, repeats: e.Count, evidence: []chain.Evidence{eventEvidence(e)}}
		}
	}
	if found == nil {
		return
	}
	for _, f := range l.Findings {
		if c, ok := decode.Lookup(f.Cause); ok && c.Family == "producer" && !c.Generic {
			// The health check already named the step, from the
			// producer's own attempts read further (its ACME Order and
			// Challenges, selfIssuance): that says more.
			return
		}
	}
	summary := found.d.Summary
	if summary == "" {
		summary = found.evidence[0].Message
	}
	found.d.Summary = ref + ": " + summary
	found.d.NextStep = decode.Fill(mustCause(found.d.Cause).Step, decode.Fields{decode.FieldNamespace: w.s.Namespace, decode.FieldName: w.s.Name})
	found.object = ref
	c := &collector{}
	c.add(*found)
	// The status's own finding (no status, still progressing, Degraded)
	// says less: the producer's cause replaces it.
	notes := l.Notes
	*l = w.finish(l.ID, l.Summary, c, 0)
	l.Notes = append(l.Notes, notes...)
}

// missingRefs: an object not ready that refers to what does not exist (a
// Certificate whose Issuer does not exist, which kubectl chain checks
// itself) has that as its cause, first: within the grace it may still be
// created beside it (a release applied in any order), after it the object
// never becomes ready.
func (w *walker) missingRefs(l *chain.Link, obj *unstructured.Unstructured) {
	if len(w.s.Missing) == 0 || l.Status == chain.StatusOK {
		return
	}
	ref := w.s.Ref().String()
	c := &collector{}
	for _, m := range w.s.Missing {
		c.add(sighting{d: decode.Decoded{Cause: decode.CertificateIssuerNotFound, Progressing: true, // broken past the grace
			Summary:  fmt.Sprintf("%s names %s, which does not exist: it cannot be issued", ref, m),
			NextStep: decode.Fill(mustCause(decode.CertificateIssuerNotFound).Step, decode.Fields{decode.FieldNamespace: w.s.Namespace})},
			object: ref, since: obj.GetCreationTimestamp().Time,
			evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: ref, Field: "spec.issuerRef", Message: m + " not found"}}})
	}
	first := w.finish(l.ID, l.Summary, c, 0)
	l.Findings = append(first.Findings, l.Findings...)
	l.Status = statusOfFindings(l.Findings)
}

// kstatusLink is kstatus's verdict as the status link.
func (w *walker) kstatusLink(obj *unstructured.Unstructured, res *status.Result, err error) chain.Link {
	id := chain.LinkStatus
	if err != nil {
		return chain.Link{ID: id, Status: chain.StatusUnknown, Summary: "kstatus cannot read its status: " + err.Error()}
	}
	summary := string(res.Status)
	if res.Message != "" {
		summary += ": " + res.Message
	}
	var cause chain.CauseID
	progressing := true
	switch res.Status {
	case status.CurrentStatus:
		return chain.Link{ID: id, Status: chain.StatusOK, Summary: summary}
	case status.FailedStatus:
		cause, progressing = decode.ResourceFailed, false
	case status.InProgressStatus:
		cause = decode.ResourceInProgress
	case status.TerminatingStatus:
		cause = decode.ResourceTerminating
	default:
		return chain.Link{ID: id, Status: chain.StatusUnknown, Summary: summary}
	}
	ref := w.s.Ref().String()
	c := &collector{}
	c.add(sighting{d: decode.Decoded{Cause: cause, Progressing: progressing,
		Summary:  fmt.Sprintf("%s is %s: %s", ref, res.Status, res.Message),
		NextStep: resourceStep(cause, w.s)},
		object: ref, since: obj.GetCreationTimestamp().Time, evidence: conditionsEvidence(ref, obj)})
	return w.finish(id, summary, c, 0)
}

// objectCondition is one entry of an unstructured object's
// status.conditions.
type objectCondition struct{ Type, Status, Reason, Message string }

// objectConditions are the object's status.conditions, in order.
func objectConditions(obj *unstructured.Unstructured) []objectCondition {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	var out []objectCondition
	for _, raw := range conds {
		m, ok := raw.(map[string]any)
		if !ok {
			continue
		}
		str := func(k string) string { s, _ := m[k].(string); return s }
		out = append(out, objectCondition{Type: str("type"), Status: str("status"), Reason: str("reason"), Message: str("message")})
	}
	return out
}

// conditionsEvidence quotes the object's conditions, those not in their
// healthy state first, or its status as kstatus saw it when it has none.
func conditionsEvidence(ref string, obj *unstructured.Unstructured) []chain.Evidence {
	var bad, good []chain.Evidence
	for _, cd := range objectConditions(obj) {
		ev := conditionEvidence(ref, cd.Type, cd.Status, cd.Reason, cd.Message)
		ev.Field = fmt.Sprintf("status.conditions[%s]", cd.Type)
		if healthyCondition(cd.Type, cd.Status) {
			good = append(good, ev)
		} else {
			bad = append(bad, ev)
		}
	}
	out := append(bad, good...)
	if len(out) > 4 {
		out = out[:4]
	}
	if len(out) == 0 {
		phase, _, _ := unstructured.NestedString(obj.Object, "status", "phase")
		msg := "no status.conditions"
		if phase != "" {
			msg = "status.phase " + phase
		}
		out = []chain.Evidence{{Source: chain.SourceObjectStatus, Object: ref, Field: "status", Message: msg}}
	}
	return out
}

// healthyCondition says a condition reads as all is well: the
// abnormal-true ones kstatus knows (Reconciling, Stalled) False, any other
// True.
func healthyCondition(typ, st string) bool {
	switch typ {
	case string(status.ConditionReconciling), string(status.ConditionStalled):
		return st == "False"
	}
	return st == "True"
}

// resourceStep fills the catalogue's next step with the object's type,
// name and namespace.
func resourceStep(cause chain.CauseID, s *chain.Snapshot) string {
	typ := s.KindOf().Resource()
	if s.API != nil {
		typ = s.API.Type()
	}
	// NAMESPACE before NAME: a replacer tries its pairs in order at each
	// position, so NAME is never replaced inside NAMESPACE.
	return decode.Fill(mustCause(cause).Step, decode.Fields{decode.FieldNamespace: s.Namespace, decode.FieldType: typ, decode.FieldName: s.Name})
}

// ownedLink quotes the chains of the workloads the object owns: the first
// not healthy is the cause below it.
func (w *walker) ownedLink() chain.Link {
	l := chain.Link{ID: chain.LinkOwned, Status: chain.StatusOK}
	var apart []string
	for _, ref := range w.s.OwnedApart {
		apart = append(apart, ref.String())
	}
	if len(apart) > 0 {
		l.Notes = append(l.Notes, "judged on their own, in the release: "+strings.Join(firstN(apart, 4), ", "))
	}
	if w.s.API != nil && !w.s.API.Namespaced {
		l.Status = chain.StatusNotReached // not walked: its mark says so
		l.Summary = "not looked for: the workloads a cluster-scoped object owns would take cluster-wide lists"
		return l
	}
	if len(w.s.Behind) == 0 {
		l.Summary = "owns no workload"
		if len(apart) > 0 {
			l.Summary = "owns no workload outside the release"
		}
		return l
	}
	var parts []string
	unjudged := false
	for _, b := range w.s.Behind {
		cp := *b
		cp.Now = w.s.Now
		r := Walk(&cp, w.o)
		parts = append(parts, fmt.Sprintf("%s %s", b.Ref(), r.Verdict.Health))
		if r.Verdict.Health == chain.Healthy {
			continue
		}
		unjudged = unjudged || r.Verdict.Health == chain.Unknown
		l.Findings = append(l.Findings, w.quoteOwned(b.Ref(), r))
	}
	l.Summary = strings.Join(firstN(parts, 4), "; ")
	l.Status = statusOfFindings(l.Findings)
	if l.Status == chain.StatusProgressing && unjudged {
		l.Status = chain.StatusUnknown
	}
	return l
}

// quoteOwned is the finding that names an owned workload's first link not
// ok and its cause, with its evidence.
func (w *walker) quoteOwned(ref chain.Ref, r *chain.Report) chain.Finding {
	f := quoteWalk(ref, r, fmt.Sprintf("%s owns %s, which %s", w.s.Ref(), ref, verdictState(r.Verdict)))
	if f.Cause == "" {
		f.Cause = decode.OwnedNotHealthy
	}
	return f
}
