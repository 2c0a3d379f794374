package decode

import (
	"regexp"
	"strings"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// What cert-manager says of an issuance that does not complete, by the
// step that failed (cert-manager v1.21.1): the CertificateRequest an
// approver denied ("The CertificateRequest was denied by an approval
// controller", pkg/controller/certificaterequests/util/reporter.go) or an
// issuer found invalid (its InvalidRequest condition), the Issuer it names
// not Ready ("Referenced issuer does not have a Ready status condition",
// certificaterequests/sync.go), the ACME Order still pending on its
// Challenges ("Waiting on certificate issuance from order %s/%s: %q",
// certificaterequests/acme/acme.go), a Challenge whose self check fails
// ("Waiting for %s challenge propagation: %s", acmechallenges/
// readiness.go: HTTP-01's "wrong status code '%d', expected '%d'",
// issuer/acme/http/http.go; DNS-01's "DNS record for %q not yet
// propagated", issuer/acme/dns/dns.go) or that cannot be presented
// ("Error presenting challenge: %v", acmechallenges/sync.go), an
// authorization the CA found invalid ("acme: authorization error for %s:
// %s", third_party/forked/acme/types.go), an Order the CA would not
// finalize ("Failed to finalize Order: %v", acmeorders/sync.go), and the
// CA's rate limits. Each names a different thing to fix.
const (
	CertificateRequestDenied   chain.CauseID = "CertificateRequestDenied"
	CertificateRequestInvalid  chain.CauseID = "CertificateRequestInvalid"
	CertificateIssuerNotReady  chain.CauseID = "CertificateIssuerNotReady"
	CertificateOrderPending    chain.CauseID = "CertificateOrderPending"
	ACMEHTTP01SelfCheckFailed  chain.CauseID = "ACMEHTTP01SelfCheckFailed"
	ACMEDNS01NotPropagated     chain.CauseID = "ACMEDNS01NotPropagated"
	ACMEChallengePresentFailed chain.CauseID = "ACMEChallengePresentFailed"
	ACMEAuthorizationFailed    chain.CauseID = "ACMEAuthorizationFailed"
	ACMEOrderFinalizeFailed    chain.CauseID = "ACMEOrderFinalizeFailed"
	ACMERateLimited            chain.CauseID = "ACMERateLimited"
)

var certManagerCauses = []Cause{
	{ID: CertificateRequestDenied, Link: chain.LinkContainers,
		Summary:  "an approver denied cert-manager's CertificateRequest (its Denied condition): it is never signed, so the Secret the Certificate writes does not appear",
		NextStep: "kubectl describe certificaterequests -n {NAMESPACE}: the Denied condition's message names the policy that refused it; change the Certificate to fit the approver's policy (approver-policy's CertificateRequestPolicy), or the policy, then cmctl renew",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: CertificateRequestInvalid, Link: chain.LinkContainers,
		Summary:  "the issuer refused cert-manager's CertificateRequest as invalid (its InvalidRequest condition): it does not sign what the Certificate asks for (its names, usages, duration or key)",
		NextStep: "kubectl describe certificaterequests -n {NAMESPACE}: the InvalidRequest condition's message says what the issuer refuses; change the Certificate's spec to what it signs",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: CertificateIssuerNotReady, Link: chain.LinkContainers,
		Summary:  "the Issuer or ClusterIssuer the Certificate names exists but is not Ready (an ACME account that did not register, a CA Secret missing, a Vault it cannot log in to), so cert-manager does not sign the request",
		NextStep: "kubectl describe issuers,clusterissuers: the Ready condition of the one the Certificate names says why; fix that (its ACME server and email, its CA or credentials Secret)",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: CertificateOrderPending, Link: chain.LinkContainers,
		Summary:  "the ACME Order for the certificate is still pending: the CA has not validated every domain, because a Challenge has not succeeded",
		NextStep: "kubectl get challenges -n {NAMESPACE}; kubectl describe challenge NAME: its reason names the step that fails (the HTTP-01 self check, DNS-01 propagation, presenting the challenge)",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: ACMEHTTP01SelfCheckFailed, Link: chain.LinkContainers,
		Summary:  "cert-manager's HTTP-01 self check cannot fetch the challenge token at http://DOMAIN/.well-known/acme-challenge/: the request does not reach the solver (a 404 or 403 from the ingress controller or a proxy in front, a redirect, the name resolving elsewhere), so the CA is never asked to validate",
		NextStep: "curl http://DOMAIN/.well-known/acme-challenge/TOKEN from inside the cluster; the solver's Ingress (cm-acme-http-solver-*, kubectl get ingress -n {NAMESPACE}) must have a class the ingress controller serves (the solver's ingressClassName or class), and nothing in front may answer, redirect or require auth on that path",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: ACMEDNS01NotPropagated, Link: chain.LinkContainers,
		Summary:  "cert-manager's DNS-01 self check does not find the _acme-challenge TXT record on the domain's authoritative nameservers: it was written to a zone they do not serve (a split-horizon, delegated or wrong zone), or the nameservers cert-manager asks cannot see it",
		NextStep: "dig TXT _acme-challenge.DOMAIN at the domain's authoritative nameservers; check the zone the solver writes to (its hosted zone, the solver's dnsZones selector) and cert-manager's --dns01-recursive-nameservers and --dns01-recursive-nameservers-only flags",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: ACMEChallengePresentFailed, Link: chain.LinkContainers,
		Summary:  "cert-manager cannot present the ACME challenge: the DNS provider's API refused to write the TXT record (its credentials, permissions or a zone it cannot find), or the HTTP-01 solver's pod, Service or Ingress could not be made",
		NextStep: "kubectl describe challenges -n {NAMESPACE}: the error is the provider's; fix the solver's credentials Secret, its permissions on the zone, or the solver's settings in the Issuer",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: ACMEAuthorizationFailed, Link: chain.LinkContainers,
		Summary:  "the ACME CA tried to validate a domain and failed (the authorization is invalid): it could not reach the challenge (a timeout, a firewall, the name resolving elsewhere) or got a wrong answer, so the Order failed",
		NextStep: "read the CA's detail in the Challenge's or Order's reason; make http://DOMAIN/.well-known/acme-challenge/ reachable from the internet (or the TXT record resolvable publicly), then cmctl renew (cert-manager otherwise retries with a back-off of up to 32 hours)",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: ACMEOrderFinalizeFailed, Link: chain.LinkContainers,
		Summary:  "the ACME CA refused to finalize the Order: it rejected the request to sign (a name or key it does not accept, an order not ready or already processed), so no certificate is issued",
		NextStep: "kubectl describe orders -n {NAMESPACE}: the reason is the CA's; fix what it names in the Certificate (its names, key algorithm or size), then cmctl renew",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: ACMERateLimited, Link: chain.LinkContainers,
		Summary:  "the ACME CA refuses more orders or certificates for now (rateLimited: too many certificates for the same names, too many failed authorizations, too many new orders), so nothing is issued until its window passes",
		NextStep: "wait until the limit's window passes (the message may say when) and fix what made the earlier attempts fail or repeat; use the CA's staging server while testing",
		Terminal: TerminalRule{Mode: Immediate}},
}

// certManagerReasons are the reasons of cert-manager's conditions and
// events that only its words come with.
var certManagerReasons = []string{"IssuerNotReady", "OrderPending", "OrderFailed", "PresentError"}

var (
	// orderWaitRE is the CertificateRequest's pending word while its
	// Order is not valid.
	orderWaitRE = regexp.MustCompile(`Waiting on certificate issuance from order (\S+): "(\w*)"`)
	// selfCheckRE is a Challenge's reason while its self check fails
	// ("http-01" before v0.16, "HTTP-01" since).
	selfCheckRE = regexp.MustCompile(`(?i)Waiting for (http-01|dns-01) challenge propagation: `)
	// issuerNotReadyRE is the CertificateRequest's word (and, for a
	// CertificateSigningRequest, "Referenced %s %s/%s does not ...").
	issuerNotReadyRE = regexp.MustCompile(`Referenced (?:issuer|Issuer|ClusterIssuer)\b.*does not have a Ready status condition`)
)

// certManagerSteps are the words of each failed step, most specific
// first: a rate limit is the CA's answer whatever step it came at, an
// Order's reason wraps its authorization's error.
var certManagerSteps = []struct {
	cause chain.CauseID
	words []string
}{
	{ACMERateLimited, []string{"urn:ietf:params:acme:error:rateLimited", "acme:error:rateLimited", "too many certificates already issued", "too many failed authorizations", "too many new orders"}},
	{ACMEOrderFinalizeFailed, []string{"Failed to finalize Order", "failed to finalize Order", "Error finalizing order"}},
	{ACMEAuthorizationFailed, []string{"acme: authorization error for", "acme: authorization for identifier", "Accepting challenge authorization failed", "Error accepting authorization"}},
	{ACMEChallengePresentFailed, []string{"Error presenting challenge"}},
	{ACMEDNS01NotPropagated, []string{"not yet propagated"}},
	{ACMEHTTP01SelfCheckFailed, []string{"did not get expected response when querying endpoint", "failed to perform self check GET request"}},
	{CertificateRequestDenied, []string{"was denied by an approval controller", "No policy approved this request"}},
}

// CertManagerWords names the step of a cert-manager issuance its words
// say failed: on a Certificate (its Issuing condition quotes its request's
// "The certificate request has failed to complete and will be retried:
// ..."), a CertificateRequest, an Order or a Challenge, and in the
// controller's log lines.
func CertManagerWords(message string) (Decoded, bool) {
	one := rtOneLine(message)
	if m := selfCheckRE.FindStringSubmatch(message); m != nil {
		d := Decoded{Cause: ACMEHTTP01SelfCheckFailed, Summary: "the ACME HTTP-01 self check fails: " + one}
		if strings.EqualFold(m[1], "dns-01") {
			d = Decoded{Cause: ACMEDNS01NotPropagated, Summary: "the ACME DNS-01 record has not propagated: " + one}
		}
		return d, true
	}
	for _, s := range certManagerSteps {
		for _, w := range s.words {
			if strings.Contains(message, w) {
				return Decoded{Cause: s.cause, Summary: certManagerStep[s.cause] + one}, true
			}
		}
	}
	switch {
	case strings.Contains(message, "propagation check failed") && strings.Contains(message, "wrong status code '"):
		// the controller's log of the same self check
		return Decoded{Cause: ACMEHTTP01SelfCheckFailed, Summary: "the ACME HTTP-01 self check fails: " + one}, true
	case issuerNotReadyRE.MatchString(message):
		return Decoded{Cause: CertificateIssuerNotReady, Summary: "the issuer it names is not Ready: " + one}, true
	}
	if m := orderWaitRE.FindStringSubmatch(message); m != nil {
		return Decoded{Cause: CertificateOrderPending, Summary: "its ACME Order " + m[1] + " is " + m[2] + ": a Challenge has not succeeded",
			Details: []chain.Detail{{Key: "order", Value: m[1]}}}, true
	}
	return Decoded{}, false
}

// certManagerStep heads a decoded summary with the step that failed.
var certManagerStep = map[chain.CauseID]string{
	ACMERateLimited:            "the ACME CA rate-limits it: ",
	ACMEOrderFinalizeFailed:    "the ACME CA would not finalize the Order: ",
	ACMEAuthorizationFailed:    "the ACME CA could not validate the domain: ",
	ACMEChallengePresentFailed: "cert-manager cannot present the challenge: ",
	ACMEDNS01NotPropagated:     "the ACME DNS-01 record has not propagated: ",
	ACMEHTTP01SelfCheckFailed:  "the ACME HTTP-01 self check fails: ",
	CertificateRequestDenied:   "an approver denied the CertificateRequest: ",
}
