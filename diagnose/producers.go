package diagnose

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/internal/health"
)

// SecretProducerNotReady: the Secret pods wait for does not exist because
// the object meant to write it (a Certificate, an ExternalSecret, a
// SealedSecret) has not: its condition is the cause one link up.
const SecretProducerNotReady chain.CauseID = "SecretProducerNotReady"

// What the producers themselves say, pasted to explain: cert-manager's
// CertificateRequest whose issuerRef names no Issuer or ClusterIssuer
// ("Referenced %q not found: %v", its certificaterequests controllers),
// external-secrets' ExternalSecret that cannot read its provider
// (reason SecretSyncedError, "could not get secret data from provider"),
// and the sealed-secrets controller that holds no key for a SealedSecret
// (its Synced False condition "no key could decrypt secret (KEYS)" and its
// ErrUnsealFailed event "Failed to unseal: no key could decrypt secret
// (KEYS)", as Argo CD's SealedSecret fixture and public event listings
// quote them).
const (
	CertificateIssuerNotFound chain.CauseID = "CertificateIssuerNotFound"
	ExternalSecretSyncFailed  chain.CauseID = "ExternalSecretSyncFailed"
	SealedSecretUndecryptable chain.CauseID = "SealedSecretUndecryptable"
)

var producerCauses = []Cause{
	{ID: SecretProducerNotReady, Link: chain.LinkContainers,
		Summary:  "a Secret the pods wait for does not exist because the object meant to write it (a cert-manager Certificate, an ExternalSecret, a SealedSecret) is not ready: its condition is the cause",
		NextStep: "kubectl describe KIND NAME -n NAMESPACE for its conditions and events, then its controller's logs",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: CertificateIssuerNotFound, Link: chain.LinkContainers,
		Summary:  "cert-manager cannot issue the certificate: its issuerRef names an Issuer or ClusterIssuer that does not exist, so the Secret it writes never appears",
		NextStep: "kubectl get issuers -n NAMESPACE; kubectl get clusterissuers; fix the Certificate's spec.issuerRef (name, and kind: ClusterIssuer for a cluster-wide one)",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: ExternalSecretSyncFailed, Link: chain.LinkContainers,
		Summary:  "external-secrets cannot read the ExternalSecret's data from its provider (the store's credentials, the remote key or property), so the Secret it writes is not written",
		NextStep: "kubectl describe externalsecret NAME -n NAMESPACE and its SecretStore (kubectl get secretstores,clustersecretstores -A); the external-secrets controller's log has the provider's error",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: SealedSecretUndecryptable, Link: chain.LinkContainers,
		Summary:  "the sealed-secrets controller holds no private key that opens this SealedSecret: it was sealed with another cluster's or an older controller's certificate, or for another name or namespace than it now has, so the Secret it writes never appears",
		NextStep: "seal the Secret again with this cluster's certificate (kubeseal --fetch-cert, then kubeseal with that certificate), for the name and namespace it is applied in; or restore the controller's earlier sealing key (the Secrets labelled sealedsecrets.bitnami.com/sealed-secrets-key in its namespace)",
		Terminal: TerminalRule{Mode: Immediate}},
}

// producerReasons are the reasons the producers' messages come with.
var producerReasons = []string{"IssuerNotFound", "SecretSyncedError", "ErrUnsealFailed"}

var issuerNotFoundRE = regexp.MustCompile(`Referenced "(Issuer|ClusterIssuer)" not found: (?:cluster)?issuer\.cert-manager\.io "([^"]+)" not found`)

// producerWords decodes what cert-manager and external-secrets write.
func producerWords(message string) (Decoded, bool) {
	if m := issuerNotFoundRE.FindStringSubmatch(message); m != nil {
		return Decoded{Cause: CertificateIssuerNotFound,
			Summary: fmt.Sprintf("%s %q not found: cert-manager cannot issue the certificate", m[1], m[2]),
			Details: []chain.Detail{{Key: "kind", Value: m[1]}, {Key: "name", Value: m[2]}}}, true
	}
	if strings.Contains(message, "could not get secret data from provider") {
		return Decoded{Cause: ExternalSecretSyncFailed}, true
	}
	if strings.Contains(message, "no key could decrypt secret") {
		return Decoded{Cause: SealedSecretUndecryptable, Summary: "the sealed-secrets controller cannot unseal it: " + rtOneLine(message)}, true
	}
	return Decoded{}, false
}

func explainProducer(_, message string) []Decoded {
	if d, ok := producerWords(message); ok {
		return []Decoded{d}
	}
	return nil
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
	f.Cause = SecretProducerNotReady
	f.Summary = fmt.Sprintf("Secret %q does not exist: %s, which writes it, is %s%s", p.Secret, ref, state, colonMessage(message))
	f.NextStep = fmt.Sprintf("kubectl describe %s %s -n %s for its conditions and events, then its controller's logs", p.API.Type(), p.Object.GetName(), w.s.Namespace)
	f.Evidence = append(conditionsEvidence(ref, p.Object), f.Evidence...)
	f.Details = append(f.Details, chain.Detail{Key: "producer", Value: ref})
	created := p.Object.GetCreationTimestamp().Time
	pastGrace := !created.IsZero() && w.s.Now.Sub(created) >= w.o.Grace
	f.Terminal = f.Terminal || failed
	if !hasStatus(p.Object) {
		f.Summary = fmt.Sprintf("Secret %q does not exist: %s, which writes it, has no status: no controller has acted on it (its operator is not installed, not running, or not watching %s)", p.Secret, ref, w.s.Namespace)
		f.NextStep = strings.NewReplacer(NamespacePlaceholder, w.s.Namespace, "TYPE", p.API.Type(), "NAME", p.Object.GetName()).Replace(mustCause(ResourceNotReconciled).NextStep)
		f.Terminal = f.Terminal || pastGrace
	}
	if known, ok := producerWords(message); ok && known.Cause != CertificateIssuerNotFound {
		// The producer's own words name why (a SealedSecret no key
		// opens, an ExternalSecret's provider).
		f.Cause = known.Cause
		f.NextStep = strings.ReplaceAll(mustCause(known.Cause).NextStep, NamespacePlaceholder, w.s.Namespace)
		f.Terminal = f.Terminal || known.Cause == SealedSecretUndecryptable
	}
	if len(p.Missing) > 0 {
		f.Cause = CertificateIssuerNotFound
		f.Summary = fmt.Sprintf("Secret %q does not exist: %s, which writes it, names %s, which does not exist", p.Secret, ref, strings.Join(p.Missing, ", "))
		f.NextStep = strings.ReplaceAll(mustCause(CertificateIssuerNotFound).NextStep, NamespacePlaceholder, w.s.Namespace)
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

// attemptCause names why the producer's newest attempt (a Certificate's
// CertificateRequest) is not ready, when its Ready condition's words
// decode: the producer's own condition only says it is still issuing.
func (w *walker) attemptCause(f *chain.Finding, p chain.Produced, ref string) {
	if len(p.Attempts) == 0 {
		return
	}
	a := p.Attempts[0]
	for _, cd := range objectConditions(a) {
		if cd.Type != "Ready" || cd.Status != "False" {
			continue
		}
		d, ok := producerWords(cd.Message)
		if !ok {
			return
		}
		c, _ := Lookup(d.Cause)
		aref := chain.ResourceRef(chain.APIResource{Group: p.API.Group, Kind: a.GetKind()}, a.GetName()).String()
		f.Cause = d.Cause
		f.Summary = fmt.Sprintf("Secret %q does not exist: %s, which writes it, is not ready; its %s %s: %s", p.Secret, ref, a.GetKind(), a.GetName(), d.Summary)
		f.NextStep = strings.ReplaceAll(c.NextStep, NamespacePlaceholder, w.s.Namespace)
		f.Evidence = append([]chain.Evidence{conditionEvidence(aref, cd.Type, cd.Status, cd.Reason, cd.Message)}, f.Evidence...)
		// d's kind and name details are the Issuer's: the finding's keep
		// naming the missing Secret.
		f.Details = append(f.Details, chain.Detail{Key: "attempt", Value: aref})
		return
	}
}
