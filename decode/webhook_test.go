package decode

import (
	"strings"
	"testing"
)

// The API server's Timeout status on a create, in its three forms: the
// webhook dispatchers' bare "request did not complete within requested
// timeout" (kubernetes#92699), the timeout filter's older "... 30s"
// (stackrox admission-controller-webhook-demo#2) and its newer " - context
// deadline exceeded" (k8s.io/apiserver pkg/endpoints/filters/timeout.go).
func TestRequestTimeoutIsWebhookTimeout(t *testing.T) {
	for _, msg := range []string{
		"Error creating: Timeout: request did not complete within requested timeout",
		"Error creating: Timeout: request did not complete within requested timeout 30s",
		"Error creating: Timeout: request did not complete within requested timeout - context deadline exceeded",
		`Error from server (Timeout): error when creating "deployment.yaml": Timeout: request did not complete within requested timeout`,
	} {
		d, ok := decodeAdmission(msg)
		if !ok || d.Cause != WebhookTimeout {
			t.Errorf("%q: got %q (%v), want WebhookTimeout", msg, d.Cause, ok)
			continue
		}
		if !strings.Contains(d.Summary, "Timeout: request did not complete") {
			t.Errorf("%q: summary %q does not quote the API server's words", msg, d.Summary)
		}
	}
	// A Timeout status about something else is not a create that waited.
	if d, ok := decodeAdmission("Timeout: the server was unable to return a response in the time allotted"); ok {
		t.Errorf("unrelated timeout decoded as %q", d.Cause)
	}
}
