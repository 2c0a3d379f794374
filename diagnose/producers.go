package diagnose

import (
	"fmt"
	"slices"

	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// SecretProducerNotReady: the Secret pods wait for does not exist because
// the object meant to write it (a Certificate, an ExternalSecret, a
// SealedSecret) has not: its condition is the cause one link up.
const SecretProducerNotReady chain.CauseID = "SecretProducerNotReady"

var producerCauses = []Cause{
	{ID: SecretProducerNotReady, Link: chain.LinkContainers,
		Summary:  "a Secret the pods wait for does not exist because the object meant to write it (a cert-manager Certificate, an ExternalSecret, a SealedSecret) is not ready: its condition is the cause",
		NextStep: "kubectl describe KIND NAME -n NAMESPACE for its conditions and events, then its controller's logs",
		Terminal: TerminalRule{Mode: AfterGrace}},
}

// missingSecretCauses are the causes that name a Secret that does not
// exist (Details kind=secret, name=NAME).
var missingSecretCauses = []chain.CauseID{SecretNotFound, VolumeSecretNotFound}

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
			f := &l.Findings[j]
			name := missingSecret(*f)
			if name == "" {
				continue
			}
			for _, p := range w.s.Produced {
				if p.Secret != name {
					continue
				}
				ref := chain.ResourceRef(p.API, p.Object.GetName()).String()
				res, err := status.Compute(p.Object)
				if err != nil {
					continue
				}
				if res.Status == status.CurrentStatus {
					l.Notes = append(l.Notes, fmt.Sprintf("%s writes Secret %s and is ready (%s): the Secret should appear; if it was deleted, the producer writes it again on its next reconcile", ref, name, res.Message))
					continue
				}
				f.Cause = SecretProducerNotReady
				f.Summary = fmt.Sprintf("Secret %q does not exist: %s, which writes it, is %s: %s", name, ref, res.Status, res.Message)
				f.NextStep = fmt.Sprintf("kubectl describe %s %s -n %s for its conditions and events, then its controller's logs", p.API.Type(), p.Object.GetName(), w.s.Namespace)
				f.Evidence = append(conditionsEvidence(ref, p.Object), f.Evidence...)
				f.Details = append(f.Details, chain.Detail{Key: "producer", Value: ref})
				f.Terminal = f.Terminal || res.Status == status.FailedStatus
			}
		}
	}
}
