package decode

import (
	"testing"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// TestCertManagerWords holds each failed step of an issuance to real
// words: where each was seen is beside it.
func TestCertManagerWords(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want chain.CauseID
	}{
		// cert-manager#5752: a Challenge's reason; #3309: v0.15's wording.
		{"Waiting for HTTP-01 challenge propagation: wrong status code '404', expected '200'", ACMEHTTP01SelfCheckFailed},
		{"Waiting for http-01 challenge propagation: wrong status code '403', expected '200'", ACMEHTTP01SelfCheckFailed},
		// cert-manager#7231: the controller's log of the same check.
		{`"propagation check failed" err="wrong status code '404', expected '200'"`, ACMEHTTP01SelfCheckFailed},
		// cert-manager#5132: the self check reads another token.
		{`cert-manager/challenges "msg"="propagation check failed" "error"="did not get expected response when querying endpoint, expected \"Qz3MoqcFq8AxTX8XnKsMB4-rLZlU3mHxH73YkUGwwHg.pB9dVSk9oWQafKzOORFqgUnTusdk3mul5-vNkNYI_5Q\" but got: Qz3MoqcFq8AxTX8XnKsMB4-r... (truncated)"`, ACMEHTTP01SelfCheckFailed},
		// cert-manager#5906 and #5917 (its log).
		{`Waiting for DNS-01 challenge propagation: DNS record for "xxx.com" not yet propagated`, ACMEDNS01NotPropagated},
		{`"propagation check failed" err="DNS record for \"whoami.mydomain.com\" not yet propagated"`, ACMEDNS01NotPropagated},
		// cert-manager#3083: the Cloudflare token may not list zones.
		{"Error presenting challenge: Cloudflare API Error Error: 0: Actor 'com.cloudflare.api.token.*' requires permission 'com.cloudflare.api.account.zone.list' to list zones", ACMEChallengePresentFailed},
		// cert-manager#7338 (log) and #2259 (the Challenge's Failed event).
		{`"error waiting for authorization" err="acme: authorization error for demo.<DOMAIN>: 400 urn:ietf:params:acme:error:connection: <PUBLIC_IP>: Fetching http://demo.<DOMAIN>/.well-known/acme-challenge/pTuOl9IU-pPK-fzz7EMa7AQIuj8qvq1NqScnrukREsk: Timeout during connect (likely firewall problem)"`, ACMEAuthorizationFailed},
		{"Accepting challenge authorization failed: acme: authorization for identifier edit.dmstestsite36.co.uk is invalid", ACMEAuthorizationFailed},
		// cert-manager#1888: the CA refuses to finalize.
		{`cert-manager/orders "msg"="failed to finalize Order resource due to bad request, marking Order as failed" "error"="403 urn:ietf:params:acme:error:orderNotReady: Error finalizing order :: Order was already processing. This may indicate your client finalized the same order multiple times, possibly due to a client bug."`, ACMEOrderFinalizeFailed},
		// cert-manager#4676: the Certificate's Issuing condition quoting
		// its request: the rate limit names the step, not the Order.
		{`The certificate request has failed to complete and will be retried: Failed to wait for order resource "drammenlegesenter-no-cert-kjbs7-3761388167" to become ready: order is in "errored" state: Failed to create Order: 429 urn:ietf:params:acme:error:rateLimited: Error creating new order :: too many failed authorizations recently: see https://letsencrypt.org/docs/rate-limits/`, ACMERateLimited},
		// cert-manager#5470: the CertificateRequest waits on its Order.
		{`Waiting on certificate issuance from order default/nginx-app-tls-z9xlj-2268860154: "pending"`, CertificateOrderPending},
		// cert-manager v1.21.1 certificaterequests/util/reporter.go#L75,
		// certificaterequests/sync.go#L127, and approver-policy v0.27.0
		// pkg/internal/approver/manager/review.go#L195 (its verbs filled).
		{"The CertificateRequest was denied by an approval controller", CertificateRequestDenied},
		{`No policy approved this request: [allow-example-com: spec.allowed.dnsNames.values: Invalid value: []string{"api.other.org"}: *.example.com]`, CertificateRequestDenied},
		{"Referenced issuer does not have a Ready status condition", CertificateIssuerNotReady},
		// cert-manager#7636: the CA could not resolve the domain.
		{"Accepting challenge authorization failed: acme: authorization error for sub.example.com: 400 urn:ietf:params:acme:error:dns: DNS problem: NXDOMAIN looking up A for sub.example.com - check that a DNS record exists for this domain; DNS problem: NXDOMAIN looking up AAAA for sub.example.com - check that a DNS record exists for this domain.", ACMEAuthorizationFailed},
	} {
		d, ok := ProducerWords(tc.msg)
		if !ok || d.Cause != tc.want {
			t.Errorf("ProducerWords(%.80q) = %s, want %s", tc.msg, d.Cause, tc.want)
		}
		// Explain reads the same words with or without a reason.
		if ds := Explain("", tc.msg); len(ds) == 0 || ds[0].Cause != tc.want {
			t.Errorf("Explain(%.80q) does not give %s: %+v", tc.msg, tc.want, ds)
		}
	}
	// The order's name is a detail of a pending request.
	d, _ := CertManagerWords(`Waiting on certificate issuance from order default/nginx-app-tls-z9xlj-2268860154: "pending"`)
	if len(d.Details) != 1 || d.Details[0].Value != "default/nginx-app-tls-z9xlj-2268860154" {
		t.Errorf("details = %v", d.Details)
	}
	// Nothing of another producer's, and not an Order the CA made invalid
	// without a reason cert-manager kept: the step is not said (an
	// authorization, or finalization with every challenge valid, as in
	// opstrace#978); its Challenges say it.
	for _, msg := range []string{"Issuing certificate as Secret does not exist", "Certificate is up to date and has not expired",
		`The certificate request has failed to complete and will be retried: Failed to wait for order resource "https-cert-jf25k-3518342705" to become ready: order is in "invalid" state:`} {
		if d, ok := CertManagerWords(msg); ok {
			t.Errorf("CertManagerWords(%q) = %s, want nothing", msg, d.Cause)
		}
	}
}

// TestProducerWordsOthers: external-secrets' and sealed-secrets' words.
func TestProducerWordsOthers(t *testing.T) {
	for msg, want := range map[string]chain.CauseID{
		// kubernetes-external-secrets#838 (AWS KMS), khuedoan/homelab#115.
		"could not get secret data from provider: key \"XXX\" from ExternalSecret \"XXX\": AccessDeniedException: Access to KMS is not allowed\n\tstatus code: 400, ": ExternalSecretSyncFailed,
		"could not get secret data from provider": ExternalSecretSyncFailed,
		// external-secrets v2.9.0 externalsecret_controller_secret.go#L118,
		// the UpdateFailed event (verbs filled).
		"error processing spec.data[0] (key: infrastructure/vmagent/metricsscraper_password), err: Secret does not exist": ExternalSecretSyncFailed,
		// sealed-secrets#342.
		"Failed to unseal: no key could decrypt secret (ROOT_PASSWORD)": SealedSecretUndecryptable,
	} {
		if d, ok := ProducerWords(msg); !ok || d.Cause != want {
			t.Errorf("ProducerWords(%q) = %s, want %s", msg, d.Cause, want)
		}
	}
}

// TestPendingReasonIsShared: a CertificateRequest's Ready False reason
// Pending is a Gateway's reason too; the words decide.
func TestPendingReasonIsShared(t *testing.T) {
	if ds := Explain("Pending", "Referenced issuer does not have a Ready status condition"); len(ds) == 0 || ds[0].Cause != CertificateIssuerNotReady {
		t.Errorf("Explain(Pending, issuer not ready) = %+v", ds)
	}
	// gateway-api v1.6.1 apis/v1/gatewayclass_types.go#L68, as before.
	if ds := Explain("Pending", "Waiting for controller"); len(ds) == 0 || ds[0].Cause != GatewayClassNoController {
		t.Errorf("Explain(Pending, gateway) = %+v", ds)
	}
}
