package decode

import (
	"regexp"
	"strings"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// webhookDeniedRE matches k8s.io/apiserver
// pkg/admission/plugin/webhook/errors/statuserror.go: 'admission webhook %q
// denied the request' followed by ': %s' or ' without explanation'.
var webhookDeniedRE = regexp.MustCompile(`(?s)^admission webhook "([^"]*)" denied the request(?:: (.*)| without explanation)?$`)

func decodeWebhookDenied(s string) (Decoded, bool) {
	m := webhookDeniedRE.FindStringSubmatch(s)
	if m == nil {
		return Decoded{}, false
	}
	name, msg := m[1], strings.TrimSpace(m[2])
	d := Decoded{Cause: WebhookDenied, Details: []chain.Detail{{Key: "webhook", Value: name}}}
	if msg == "" {
		d.Summary = `admission webhook "` + name + `" denied the pod without explanation`
		d.NextStep = `ask the owner of admission webhook "` + name + `" (kubectl get validatingwebhookconfigurations,mutatingwebhookconfigurations) why it denies the pod`
		return d, true
	}
	d.Details = append(d.Details, chain.Detail{Key: "message", Value: msg})
	d.Summary = `admission webhook "` + name + `" denied the pod: ` + msg
	d.NextStep = `change spec.template as webhook "` + name + `" asks: ` + msg
	return d, true
}

// webhookCallRE matches k8s.io/apiserver pkg/util/webhook/error.go: 'failed
// calling webhook %q: %v' or 'failed calling webhook %q; no further details
// available'; a webhook with failurePolicy Fail turns it into an internal
// error.
var webhookCallRE = regexp.MustCompile(`(?s)^failed calling (?:admission )?webhook "([^"]*)"(?:: (.*)|; no further details available)$`)

// webhookServiceRE finds the service of a webhook called through
// clientConfig.service (pkg/util/webhook/client.go builds
// "https://NAME.NAMESPACE.svc:PORT"). The API server resolves it at dial
// time (pkg/util/proxy ResolveCluster), so a Service that does not exist
// ends the error with its lister's NotFound, 'service %q not found'.
var webhookServiceRE = regexp.MustCompile(`https://([a-z0-9]([-a-z0-9]*[a-z0-9])?)\.([a-z0-9]([-a-z0-9]*[a-z0-9])?)\.svc[:/]`)

func decodeWebhookUnavailable(s string) (Decoded, bool) {
	m := webhookCallRE.FindStringSubmatch(s)
	if m == nil {
		return Decoded{}, false
	}
	name, callErr := m[1], strings.TrimSpace(m[2])
	if webhookTimedOut(callErr) {
		return Decoded{Cause: WebhookTimeout,
			Summary:  `admission webhook "` + name + `" did not answer in time: ` + callErr,
			NextStep: `check the latency and logs of the backend of admission webhook "` + name + `" and the API server's network path to it (private clusters: a firewall rule for its port); raise its timeoutSeconds if it is slow by design`,
			Details:  []chain.Detail{{Key: "webhook", Value: name}, {Key: "error", Value: callErr}}}, true
	}
	d := Decoded{Cause: WebhookUnavailable, Details: []chain.Detail{{Key: "webhook", Value: name}}}
	d.Summary = `admission webhook "` + name + `" could not be called`
	if callErr != "" {
		d.Summary += ": " + callErr
		d.Details = append(d.Details, chain.Detail{Key: "error", Value: callErr})
	}
	d.NextStep = `make the backend of admission webhook "` + name + `" answer, or fix its clientConfig (kubectl get validatingwebhookconfigurations,mutatingwebhookconfigurations)`
	if sm := webhookServiceRE.FindStringSubmatch(callErr); sm != nil {
		svc, ns := sm[1], sm[3]
		d.Details = append(d.Details, chain.Detail{Key: "service", Value: ns + "/" + svc})
		d.NextStep = `make service "` + svc + `" in namespace "` + ns + `" answer: kubectl get endpointslices -n ` + ns +
			" -l kubernetes.io/service-name=" + svc + `; or fix the clientConfig of admission webhook "` + name + `"`
		if strings.HasSuffix(callErr, `: service "`+svc+`" not found`) {
			d.NextStep = `service "` + svc + `" does not exist in namespace "` + ns + `": reinstall the webhook's backend, or delete the configuration of admission webhook "` +
				name + `" it left behind (kubectl get validatingwebhookconfigurations,mutatingwebhookconfigurations)`
		}
	}
	return d, true
}

// webhookTimedOut says a webhook call failed for its deadline: the client's
// timeout (?timeout= in the URL is the webhook's timeoutSeconds, not an
// error, so it is cut first), Go's "context deadline exceeded", net/http's
// "Client.Timeout exceeded", or a dial that timed out.
func webhookTimedOut(callErr string) bool {
	lower := strings.ToLower(callErr)
	for _, w := range []string{"context deadline exceeded", "client.timeout exceeded", "i/o timeout", "tls handshake timeout", "timed out", "deadline exceeded"} {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// webhookSlowRE matches k8s.io/apiserver's admission metrics wrapper for a
// webhook plugin past the request's deadline: 'admission plugin %q failed
// to complete validation|mutation in %v'.
var webhookSlowRE = regexp.MustCompile(`^admission plugin "([^"]*)" failed to complete (validation|mutation) in (\S+)`)

func decodeWebhookSlow(s string) (Decoded, bool) {
	m := webhookSlowRE.FindStringSubmatch(s)
	if m == nil {
		return Decoded{}, false
	}
	return Decoded{Cause: WebhookTimeout,
		Summary:  "the " + m[2] + " webhooks (" + m[1] + ") did not finish within " + m[3],
		NextStep: "find the slow webhook: kubectl get validatingwebhookconfigurations,mutatingwebhookconfigurations, then check its backend's latency and the API server's path to it; lower the webhooks' timeoutSeconds so one slow webhook cannot hold the request",
		Details:  []chain.Detail{{Key: "plugin", Value: m[1]}, {Key: "after", Value: m[3]}}}, true
}

// requestTimeoutRE matches the API server's Timeout status around a create
// (apimachinery NewTimeoutError, 'Timeout: %s'). Its bare form, "request did
// not complete within requested timeout" with nothing after it, is what the
// validating and mutating webhook dispatchers of k8s.io/apiserver
// (pkg/admission/plugin/webhook/{validating,mutating}/dispatcher.go) return
// when the request's deadline ends before their webhooks are called; the
// timeout filter's own forms add the deadline ("30s", older) or " - context
// deadline exceeded". A pod create waits on nothing else that long, and the
// public reports of it on a controller's creates were webhooks the API
// server could not reach in time (kubernetes#92699, stackrox
// admission-controller-webhook-demo#2), so it is read as a webhook timeout
// that names no webhook.
var requestTimeoutRE = regexp.MustCompile(`^Timeout: request did not complete within (?:requested timeout|allowed duration)\b(.*)$`)

func decodeRequestTimeout(s string) (Decoded, bool) {
	m := requestTimeoutRE.FindStringSubmatch(s)
	if m == nil {
		return Decoded{}, false
	}
	return Decoded{Cause: WebhookTimeout,
		Summary:  "the API server gave up on the create before it finished (" + strings.TrimSpace(s) + "); the admission webhooks are what a create waits on that long, and this error names none of them",
		NextStep: "find the webhooks that match the object (kubectl get validatingwebhookconfigurations,mutatingwebhookconfigurations) and check their backends' latency and the API server's network path to them (private clusters: a firewall rule for their ports); keep the sum of their timeoutSeconds under the request's 30 s",
		Details:  []chain.Detail{{Key: "error", Value: strings.TrimSpace(s)}}}, true
}
