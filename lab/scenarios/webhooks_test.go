package scenarios

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-chain/kubectl-chain/lab/webhook"
)

// webhookOf decodes the scenario's webhook configuration.
func webhookOf(t *testing.T, name string) *admissionv1.ValidatingWebhookConfiguration {
	t.Helper()
	for _, o := range manifestObjects(t, name) {
		if w, ok := o.(*admissionv1.ValidatingWebhookConfiguration); ok {
			return w
		}
	}
	t.Fatalf("%s has no ValidatingWebhookConfiguration", name)
	return nil
}

// TestScopeWebhooks checks that a scenario's webhooks reach the lab's server
// with the lab's CA, or a Service in the scenario's namespace, and select
// that namespace only: the e2e runs every scenario at once beside them.
func TestScopeWebhooks(t *testing.T) {
	ctx := context.Background()
	c := fake.NewClientset()
	lab := webhook.Endpoint{URL: "https://127.0.0.1:40123", CABundle: []byte("CA")}
	if err := webhook.Publish(ctx, c, lab); err != nil {
		t.Fatal(err)
	}
	selector := &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "demo"}}

	denied := webhookOf(t, "webhook-denied")
	if err := scopeWebhooks(ctx, c, "demo", denied.Webhooks); err != nil {
		t.Fatal(err)
	}
	h := denied.Webhooks[0]
	if diff := cmp.Diff("https://127.0.0.1:40123/pods/require-label/team", *h.ClientConfig.URL); diff != "" {
		t.Errorf("url (-want +got):\n%s", diff)
	}
	if string(h.ClientConfig.CABundle) != "CA" {
		t.Errorf("caBundle %q, want the published CA", h.ClientConfig.CABundle)
	}
	if diff := cmp.Diff(selector, h.NamespaceSelector); diff != "" {
		t.Errorf("namespaceSelector (-want +got):\n%s", diff)
	}

	unavailable := webhookOf(t, "webhook-unavailable")
	if err := scopeWebhooks(ctx, c, "demo", unavailable.Webhooks); err != nil {
		t.Fatal(err)
	}
	h = unavailable.Webhooks[0]
	if h.ClientConfig.Service == nil || h.ClientConfig.Service.Namespace != "demo" {
		t.Errorf("service %+v, want one in namespace demo", h.ClientConfig.Service)
	}
	if diff := cmp.Diff(selector, h.NamespaceSelector); diff != "" {
		t.Errorf("namespaceSelector (-want +got):\n%s", diff)
	}
	for _, w := range []*admissionv1.ValidatingWebhookConfiguration{denied, unavailable} {
		for _, h := range w.Webhooks {
			if h.FailurePolicy == nil || *h.FailurePolicy != admissionv1.Fail || h.SideEffects == nil || *h.SideEffects != admissionv1.SideEffectClassNone {
				t.Errorf("%s: failurePolicy %v, sideEffects %v; want Fail and None", h.Name, h.FailurePolicy, h.SideEffects)
			}
		}
	}
}

func TestScopeWebhooksOutsideALab(t *testing.T) {
	hooks := webhookOf(t, "webhook-denied").Webhooks
	err := scopeWebhooks(context.Background(), fake.NewClientset(), "demo", hooks)
	if err == nil || !strings.Contains(err.Error(), "kubectl chain lab up") {
		t.Errorf("scopeWebhooks without a published server: %v, want an error that says to use a lab", err)
	}
}
