package decode

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kubectl-chain/kubectl-chain/chain"
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
		NextStep: "kubectl describe KIND NAME -n {NAMESPACE} for its conditions and events, then its controller's logs",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: CertificateIssuerNotFound, Link: chain.LinkContainers,
		Summary:  "cert-manager cannot issue the certificate: its issuerRef names an Issuer or ClusterIssuer that does not exist, so the Secret it writes never appears",
		NextStep: "kubectl get issuers -n {NAMESPACE}; kubectl get clusterissuers; fix the Certificate's spec.issuerRef (name, and kind: ClusterIssuer for a cluster-wide one)",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: ExternalSecretSyncFailed, Link: chain.LinkContainers,
		Summary:  "external-secrets cannot read the ExternalSecret's data from its provider (the store's credentials, the remote key or property), so the Secret it writes is not written",
		NextStep: "kubectl describe externalsecret {NAME} -n {NAMESPACE} and its SecretStore (kubectl get secretstores,clustersecretstores -A); the external-secrets controller's log has the provider's error",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: SealedSecretUndecryptable, Link: chain.LinkContainers,
		Summary:  "the sealed-secrets controller holds no private key that opens this SealedSecret: it was sealed with another cluster's or an older controller's certificate, or for another name or namespace than it now has, so the Secret it writes never appears",
		NextStep: "seal the Secret again with this cluster's certificate (kubeseal --fetch-cert, then kubeseal with that certificate), for the name and namespace it is applied in; or restore the controller's earlier sealing key (the Secrets labelled sealedsecrets.bitnami.com/sealed-secrets-key in its namespace)",
		Terminal: TerminalRule{Mode: Immediate}},
}

// producerReasons are the reasons the producers' messages come with.
var producerReasons = append([]string{"IssuerNotFound", "SecretSyncedError", "ErrUnsealFailed"}, certManagerReasons...)

// externalSecretWords are external-secrets' words when a provider's read
// fails: the Ready condition's "could not get secret data from provider"
// (with the error after it before v0.6) and the UpdateFailed event's
// "error processing spec.data[%d] (key: %s), err: %w" and
// "error processing spec.dataFrom[%d].extract, err: %w" (v2.9.0,
// pkg/controllers/externalsecret/externalsecret_controller_secret.go).
var externalSecretWords = []string{"could not get secret data from provider", "error processing spec.data[", "error processing spec.dataFrom["}

var issuerNotFoundRE = regexp.MustCompile(`Referenced "(Issuer|ClusterIssuer)" not found: (?:cluster)?issuer\.cert-manager\.io "([^"]+)" not found`)

// ProducerWords decodes what cert-manager, external-secrets and the
// sealed-secrets controller write. The walk asks it about the condition
// of the object meant to write a missing Secret, and of its newest
// attempt, to name why it did not.
func ProducerWords(message string) (Decoded, bool) {
	if m := issuerNotFoundRE.FindStringSubmatch(message); m != nil {
		return Decoded{Cause: CertificateIssuerNotFound,
			Summary: fmt.Sprintf("%s %q not found: cert-manager cannot issue the certificate", m[1], m[2]),
			Details: []chain.Detail{{Key: "kind", Value: m[1]}, {Key: "name", Value: m[2]}}}, true
	}
	if d, ok := CertManagerWords(message); ok {
		return d, true
	}
	for _, w := range externalSecretWords {
		if strings.Contains(message, w) {
			return Decoded{Cause: ExternalSecretSyncFailed, Summary: "external-secrets cannot read the data from its provider: " + rtOneLine(message)}, true
		}
	}
	if strings.Contains(message, "no key could decrypt secret") {
		return Decoded{Cause: SealedSecretUndecryptable, Summary: "the sealed-secrets controller cannot unseal it: " + rtOneLine(message)}, true
	}
	return Decoded{}, false
}

func explainProducer(_, message string) []Decoded {
	if d, ok := ProducerWords(message); ok {
		return []Decoded{d}
	}
	return nil
}
