package diagnose

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
	"github.com/kubectl-chain/kubectl-chain/internal/health"
)

// catalogue is the checks the walk judges other kinds by.
func (w *walker) catalogue() *health.Catalogue {
	if w.o.Health != nil {
		return w.o.Health
	}
	return health.Builtin()
}

// checkedStatus is the status link of a kind the community's catalogue
// (or the user's own checks) has a health check for: the check decides,
// as it does in Argo CD, because it reads the kind's own fields
// (a Kafka's broker count, an AnalysisRun's metrics), where kstatus reads
// only the standard conditions and calls an object without them Current.
// ks is kstatus's reading, quoted in a note where it differs. false: no
// check for the kind, or the check gave no verdict, and kstatus judges;
// a check that failed (a script error on fields it expected) says so in
// the note kstatus's link carries, so the gate is not left blind.
func (w *walker) checkedStatus(obj *unstructured.Unstructured, ks *status.Result) (l chain.Link, ok bool, note string) {
	id := chain.LinkStatus
	res, found, err := w.catalogue().Check(obj)
	if !found || errors.Is(err, health.ErrNoStatus) {
		return chain.Link{}, false, ""
	}
	if err != nil {
		return chain.Link{}, false, fmt.Sprintf("its kind's health check failed, so kstatus judges it: %v", err)
	}
	summary := string(res.Status) + " (" + res.Script + ")"
	if res.Message != "" {
		summary = string(res.Status) + ": " + res.Message + " (" + res.Script + ")"
	}
	var notes []string
	if ks != nil && !agrees(res.Status, ks.Status) {
		notes = append(notes, fmt.Sprintf("kstatus reads it as %s%s; the health check for its kind decides", ks.Status, colonMessage(ks.Message)))
	}
	var cause chain.CauseID
	progressing := false
	switch res.Status {
	case health.Healthy:
		return chain.Link{ID: id, Status: chain.StatusOK, Summary: summary, Notes: notes}, true, ""
	case health.Progressing:
		cause, progressing = decode.HealthProgressing, true
	case health.Degraded:
		cause = decode.HealthDegraded
	case health.Suspended:
		cause = decode.HealthSuspended
	default: // Missing, Unknown: the check itself cannot tell.
		return chain.Link{ID: id, Status: chain.StatusUnknown, Summary: summary, Notes: notes}, true, ""
	}
	ref := w.s.Ref().String()
	d := decode.Decoded{Cause: cause, Progressing: progressing,
		Summary:  fmt.Sprintf("%s is %s%s", ref, res.Status, colonMessage(res.Message)),
		NextStep: resourceStep(cause, w.s)}
	if res.Status == health.Progressing && !hasStatus(obj) {
		// Waiting on a status that no one has written:
		// no controller has acted on it yet, and past the grace none
		// will (its operator is not installed, or not running).
		d = decode.Decoded{Cause: decode.ResourceNotReconciled, Progressing: true,
			Summary:  fmt.Sprintf("%s has no status: no controller has acted on it (its health check: %s%s)", ref, res.Status, colonMessage(res.Message)),
			NextStep: resourceStep(decode.ResourceNotReconciled, w.s)}
	}
	var first []chain.Evidence
	if failed, ev, ok := analysisFailure(obj, ref); ok && res.Status == health.Degraded {
		d, first = failed, []chain.Evidence{ev}
	} else if !d.Progressing {
		if known, where, ok := producerWords(obj, res.Message); ok {
			// The check quotes words a decoder knows (cert-manager's,
			// external-secrets'), or a condition beside the one it read
			// does (a Certificate's Issuing False quotes its failed
			// request): their cause says more than "Degraded".
			d.Cause, d.NextStep = known.Cause, known.NextStep
			switch {
			case known.Summary != "" && where != "":
				d.Summary = fmt.Sprintf("%s is %s%s; its %s condition: %s", ref, res.Status, colonMessage(res.Message), where, known.Summary)
			case known.Summary != "":
				d.Summary = ref + ": " + known.Summary
			}
		} else if known, ok := scaledObjectWords(obj); ok {
			// KEDA's words about its trigger or its target.
			d.Cause = known.Cause
			d.NextStep = decode.Fill(known.NextStep, decode.Fields{decode.FieldNamespace: w.s.Namespace, decode.FieldName: obj.GetName()})
			if known.Summary != "" {
				d.Summary = ref + ": " + known.Summary
			}
		}
	}
	if st, ok := w.selfIssuance(obj); ok {
		// A producer walked as itself, read with its newest attempt and
		// that attempt's steps (a Certificate's CertificateRequest, ACME
		// Order and Challenges): they say at which step it waits or failed,
		// where its own conditions only say it is issuing.
		c := mustCause(st.d.Cause)
		d = decode.Decoded{Cause: st.d.Cause, Progressing: d.Progressing && c.Terminal.Mode != decode.Immediate, // broken past the grace
			Summary:  fmt.Sprintf("%s is %s%s; %s", ref, res.Status, colonMessage(res.Message), st.says),
			NextStep: decode.Fill(c.Step, decode.Fields{decode.FieldNamespace: w.s.Namespace})}
		first = append([]chain.Evidence{st.ev}, first...)
	}
	ev := chain.Evidence{Source: chain.SourceHealthCheck, Object: ref, Field: res.Script, Reason: string(res.Status), Message: res.Message}
	c := &collector{}
	c.add(sighting{d: d, object: ref, since: obj.GetCreationTimestamp().Time,
		evidence: append(append([]chain.Evidence{ev}, first...), conditionsEvidence(ref, obj)...)})
	return w.finishNoted(id, summary, c, notes), true, ""
}

// hasStatus says a controller wrote something in the object's status.
func hasStatus(obj *unstructured.Unstructured) bool {
	st, ok := obj.Object["status"].(map[string]any)
	return ok && len(st) > 0
}

// agrees says the catalogue's status and kstatus's say the same thing to
// a gate: healthy, waiting, or failed.
func agrees(h health.Status, k status.Status) bool {
	switch h {
	case health.Healthy:
		return k == status.CurrentStatus
	case health.Progressing:
		return k == status.InProgressStatus
	case health.Degraded, health.Suspended:
		return k == status.FailedStatus
	}
	return k == status.UnknownStatus
}

// colonMessage is ": message", or nothing for an empty one.
func colonMessage(m string) string {
	if m = strings.TrimSpace(m); m == "" {
		return ""
	}
	return ": " + m
}
