package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
	"github.com/kubectl-chain/kubectl-chain/internal/health"
)

// missingSecretCauses are the causes that name a Secret that does not
// exist (Details kind=secret, name=NAME).
var missingSecretCauses = []chain.CauseID{decode.SecretNotFound, decode.VolumeSecretNotFound, decode.ImagePullSecretNotFound}

// MissingSecrets are the Secrets the report says pods wait for, for the
// reader to look for their producers.
func MissingSecrets(r *chain.Report) []string {
	var out []string
	for _, l := range r.Links {
		for _, f := range l.Findings {
			if name := missingSecret(f); name != "" && !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	return out
}

func missingSecret(f chain.Finding) string {
	if !slices.Contains(missingSecretCauses, f.Cause) {
		return ""
	}
	kind, name := "", ""
	for _, d := range f.Details {
		switch d.Key {
		case "kind":
			kind = d.Value
		case "name":
			name = d.Value
		}
	}
	if kind != "secret" {
		return ""
	}
	return name
}

// pullSecretNamed makes a pull the registry refused the pull Secret's
// cause when the kubelet said, on one of those pods, that a Secret of
// spec.imagePullSecrets does not exist (FailedToRetrieveImagePullSecret):
// the pull went without the credentials. Only a refusal: the kubelet
// says so of every pull with such a Secret, and a pull that fails for
// another reason (the network, koderover/zadig#3649) or a public image
// that needs no credentials (kiwigrid/helm-charts#232) is not about it.
// The Secret's producer, when one writes it, is then looked for as for
// any missing Secret.
func (w *walker) pullSecretNamed(links []chain.Link) {
	for i := range links {
		for j := range links[i].Findings {
			f := &links[i].Findings[j]
			if f.Cause != decode.ImagePullUnauthorized {
				continue
			}
			for _, obj := range f.Objects {
				name, ok := strings.CutPrefix(obj, "pod/")
				if !ok {
					continue
				}
				if ev, names := w.pullSecretEvent(name); len(names) > 0 {
					d, _ := decode.PullSecretWords(ev.Message)
					f.Cause = d.Cause
					f.Summary = fmt.Sprintf("%s; the registry refused the pull without them", d.Summary)
					f.NextStep = decode.Fill(mustCause(d.Cause).Step, decode.Fields{decode.FieldNamespace: w.s.Namespace, decode.FieldName: names[0]})
					f.Details = append(d.Details, f.Details...)
					f.Evidence = append([]chain.Evidence{eventEvidence(ev)}, f.Evidence...)
					break
				}
			}
		}
	}
}

// pullSecretEvent is the kubelet's newest FailedToRetrieveImagePullSecret
// event on the pod, and the Secrets it names.
func (w *walker) pullSecretEvent(pod string) (chain.Event, []string) {
	p := w.podNamed(pod)
	if p == nil {
		return chain.Event{}, nil
	}
	evs := w.s.EventsFor("Pod", p.Name, p.UID)
	for i := len(evs) - 1; i >= 0; i-- {
		if names := decode.PullSecretsMissing(evs[i].Message); len(names) > 0 {
			return evs[i], names
		}
	}
	return chain.Event{}, nil
}

// producedBy turns a missing Secret whose producer is not ready into the
// producer's cause, its conditions quoted first; a ready producer is a
// note (the Secret should appear, or was deleted after it was written).
func (w *walker) producedBy(links []chain.Link) {
	if len(w.s.Produced) == 0 {
		return
	}
	for i := range links {
		l := &links[i]
		for j := range l.Findings {
			if name := missingSecret(l.Findings[j]); name != "" {
				for _, p := range w.s.Produced {
					if p.Secret == name {
						w.producerCause(l, &l.Findings[j], p)
					}
				}
			}
		}
	}
}

// producerCause makes the finding of a missing Secret its producer's cause
// when the producer is not ready, as its kind's health check (else
// kstatus) reads it, or notes the ready producer on the link. A producer
// with no status at all is one no controller acts on, and one that names
// an Issuer that does not exist cannot be issued: both fail past the
// grace.
func (w *walker) producerCause(l *chain.Link, f *chain.Finding, p chain.Produced) {
	ref := chain.ResourceRef(p.API, p.Object.GetName()).String()
	state, message, ready, failed, ok := w.producerState(p)
	switch {
	case !ok:
		return
	case ready:
		l.Notes = append(l.Notes, fmt.Sprintf("%s writes Secret %s and is ready (%s): the Secret should appear; if it was deleted, the producer writes it again on its next reconcile", ref, p.Secret, message))
		return
	}
	f.Cause = decode.SecretProducerNotReady
	f.Summary = fmt.Sprintf("Secret %q does not exist: %s, which writes it, is %s%s", p.Secret, ref, state, colonMessage(message))
	f.NextStep = fmt.Sprintf("kubectl describe %s %s -n %s for its conditions and events, then its controller's logs", p.API.Type(), p.Object.GetName(), w.s.Namespace)
	f.Evidence = append(conditionsEvidence(ref, p.Object), f.Evidence...)
	f.Details = append(f.Details, chain.Detail{Key: "producer", Value: ref})
	created := p.Object.GetCreationTimestamp().Time
	pastGrace := !created.IsZero() && w.s.Now.Sub(created) >= w.o.Grace
	f.Terminal = f.Terminal || failed
	if !hasStatus(p.Object) {
		f.Summary = fmt.Sprintf("Secret %q does not exist: %s, which writes it, has no status: no controller has acted on it (its operator is not installed, not running, or not watching %s)", p.Secret, ref, w.s.Namespace)
		f.NextStep = decode.Fill(mustCause(decode.ResourceNotReconciled).Step, decode.Fields{decode.FieldNamespace: w.s.Namespace, decode.FieldType: p.API.Type(), decode.FieldName: p.Object.GetName()})
		f.Terminal = f.Terminal || pastGrace
	}
	if known, where, ok := producerWords(p.Object, message); ok && known.Cause != decode.CertificateIssuerNotFound {
		// The producer's own words name why (a SealedSecret no key
		// opens, an ExternalSecret's provider, the step of a
		// Certificate's issuance its Issuing condition quotes).
		f.Cause = known.Cause
		if where != "" && known.Summary != "" {
			f.Summary += fmt.Sprintf("; its %s condition: %s", where, known.Summary)
		}
		f.NextStep = decode.Fill(mustCause(known.Cause).Step, decode.Fields{decode.FieldNamespace: w.s.Namespace, decode.FieldName: p.Object.GetName()})
		f.Terminal = f.Terminal || mustCause(known.Cause).Terminal.Mode == decode.Immediate
	}
	if len(p.Missing) > 0 {
		f.Cause = decode.CertificateIssuerNotFound
		f.Summary = fmt.Sprintf("Secret %q does not exist: %s, which writes it, names %s, which does not exist", p.Secret, ref, strings.Join(p.Missing, ", "))
		f.NextStep = decode.Fill(mustCause(decode.CertificateIssuerNotFound).Step, decode.Fields{decode.FieldNamespace: w.s.Namespace})
		f.Evidence = append([]chain.Evidence{{Source: chain.SourceObjectStatus, Object: ref, Field: "spec.issuerRef", Message: strings.Join(p.Missing, ", ") + " not found"}}, f.Evidence...)
		f.Terminal = f.Terminal || pastGrace
		return
	}
	w.attemptCause(f, p, ref)
}

// producerState is how the producer's kind's health check (else kstatus)
// reads it: its state and message, whether it is ready, or failed; ok
// false when neither can read it.
func (w *walker) producerState(p chain.Produced) (state, message string, ready, failed, ok bool) {
	if res, found, err := w.catalogue().Check(p.Object); found && err == nil {
		return string(res.Status), res.Message, res.Status == health.Healthy, res.Status == health.Degraded, true
	}
	res, err := status.Compute(p.Object)
	if err != nil {
		return "", "", false, false, false
	}
	return string(res.Status), res.Message, res.Status == status.CurrentStatus, res.Status == status.FailedStatus, true
}

// producerWords decodes what a producer says of itself: its health
// check's message, else the message of a condition not in its healthy
// state (a Certificate's Issuing False quotes its failed request, "The
// certificate request has failed to complete and will be retried: ...",
// where its Ready condition only says the Secret does not exist).
// where is the condition's type, "" for the health check's message.
func producerWords(obj *unstructured.Unstructured, message string) (d decode.Decoded, where string, ok bool) {
	if d, ok := decode.ProducerWords(message); ok {
		return d, "", true
	}
	for _, cd := range objectConditions(obj) {
		if healthyCondition(cd.Type, cd.Status) || cd.Message == message {
			continue
		}
		if d, ok := decode.ProducerWords(cd.Message); ok {
			return d, cd.Type, true
		}
	}
	return decode.Decoded{}, "", false
}

// attemptCause names why the producer's newest attempt (a Certificate's
// CertificateRequest) is not done, when issuanceStep can say: the
// producer's own condition only says it is still issuing.
func (w *walker) attemptCause(f *chain.Finding, p chain.Produced, ref string) {
	st, ok := issuanceStep(p)
	if !ok {
		return
	}
	c, _ := decode.Lookup(st.d.Cause)
	f.Cause = st.d.Cause
	f.Summary = fmt.Sprintf("Secret %q does not exist: %s, which writes it, is not ready; %s", p.Secret, ref, st.says)
	f.NextStep = decode.Fill(c.Step, decode.Fields{decode.FieldNamespace: w.s.Namespace})
	f.Evidence = append([]chain.Evidence{st.ev}, f.Evidence...)
	f.Terminal = f.Terminal || c.Terminal.Mode == decode.Immediate
	// d's kind and name details are the Issuer's: the finding's keep
	// naming the missing Secret.
	f.Details = append(f.Details, chain.Detail{Key: st.key, Value: st.ev.Object})
}

// step is what issuanceStep found: the cause, what the object that says
// it says (for a summary), its evidence, and the detail key naming it.
type step struct {
	d    decode.Decoded
	says string
	ev   chain.Evidence
	key  string
}

// issuanceStep is why a producer's newest attempt (a CertificateRequest)
// is not done: the condition cert-manager's issuing controller looks at
// first decides (an approver's Denied, an issuer's InvalidRequest,
// whatever their words), then its Ready False words when they decode (the
// Issuer not Ready, the CA's rate limit, the ACME Order pending or failed);
// a request waiting on its Order, or whose words do not decode, gives way
// to the first of its steps whose reason does (a Challenge's self check,
// its DNS-01 propagation, its presentation; the Order's finalization).
func issuanceStep(p chain.Produced) (step, bool) {
	if len(p.Attempts) == 0 {
		return step{}, false
	}
	a := p.Attempts[0]
	cd, d, ok := attemptCondition(a)
	if !ok || d.Cause == decode.CertificateOrderPending {
		if st, found := stepWords(p.Steps); found {
			return st, true
		}
	}
	if !ok {
		return step{}, false
	}
	aref := chain.ResourceRef(chain.APIResource{Group: p.API.Group, Kind: a.GetKind()}, a.GetName()).String()
	summary := d.Summary
	if summary == "" {
		summary = cd.Type + " " + cd.Status + colonMessage(cd.Message)
	}
	return step{d: d, says: fmt.Sprintf("its %s %s: %s", a.GetKind(), a.GetName(), summary),
		ev: conditionEvidence(aref, cd.Type, cd.Status, cd.Reason, cd.Message), key: "attempt"}, true
}

// attemptCondition is the condition of a CertificateRequest that says why
// it is not issued, in the order cert-manager's issuing controller reads
// them (pkg/controller/certificates/issuing/issuing_controller.go, v1.21.1):
// Denied True, InvalidRequest True, then Ready False when its words decode.
func attemptCondition(a *unstructured.Unstructured) (objectCondition, decode.Decoded, bool) {
	conds := objectConditions(a)
	for _, want := range []struct {
		typ   string
		cause chain.CauseID
	}{{"Denied", decode.CertificateRequestDenied}, {"InvalidRequest", decode.CertificateRequestInvalid}} {
		for _, cd := range conds {
			if cd.Type == want.typ && cd.Status == "True" {
				return cd, decode.Decoded{Cause: want.cause}, true
			}
		}
	}
	for _, cd := range conds {
		if cd.Type != "Ready" || cd.Status != "False" {
			continue
		}
		if d, ok := decode.ProducerWords(cd.Message); ok {
			return cd, d, true
		}
	}
	return objectCondition{}, decode.Decoded{}, false
}

// stepWords is the first of an attempt's steps whose status.reason
// decodes, Challenges first: an Order pending on them says no more than
// its request.
func stepWords(steps []*unstructured.Unstructured) (step, bool) {
	for _, kind := range []string{"Challenge", "Order"} {
		for _, st := range steps {
			if st.GetKind() != kind {
				continue
			}
			reason, _, _ := unstructured.NestedString(st.Object, "status", "reason")
			state, _, _ := unstructured.NestedString(st.Object, "status", "state")
			d, ok := decode.ProducerWords(reason)
			if !ok {
				continue
			}
			sref := chain.ResourceRef(chain.APIResource{Group: chain.ACMEGroup, Kind: kind}, st.GetName()).String()
			return step{d: d, says: fmt.Sprintf("its %s %s is %s: %s", kind, st.GetName(), orUnknown(state), d.Summary),
				ev: chain.Evidence{Source: chain.SourceObjectStatus, Object: sref, Field: "status.reason", Reason: state, Message: reason}, key: "step"}, true
		}
	}
	return step{}, false
}

// orUnknown is a state, or "in no state yet" for an empty one.
func orUnknown(state string) string {
	if state == "" {
		return "in no state yet"
	}
	return state
}

// selfIssuance is issuanceStep of the walked object when it is a producer
// the snapshot holds with its attempts (kubectl chain certificate/NAME, live
// or from a file): the same words as for the pods waiting for its Secret.
func (w *walker) selfIssuance(obj *unstructured.Unstructured) (step, bool) {
	for _, p := range w.s.Produced {
		o := p.Object
		if o.GetKind() == obj.GetKind() && o.GetNamespace() == obj.GetNamespace() && o.GetName() == obj.GetName() &&
			o.GroupVersionKind().Group == obj.GroupVersionKind().Group {
			return issuanceStep(p)
		}
	}
	return step{}, false
}
