package scenarios

import (
	"context"
	"fmt"
	"net/url"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-chain/kubectl-chain/lab/webhook"
)

// LabWebhookHost is the host a scenario's webhook URL names to mean "the
// lab's admission webhook server"; Apply replaces it with the server's
// published address and trusts the lab's CA for it.
const LabWebhookHost = "admission-webhook.lab.internal"

// scopeWebhooks makes a scenario's webhooks affect its namespace only and
// points them at what the namespace holds: a URL on LabWebhookHost goes to
// the lab's server, a Service without namespace is looked up in ns.
func scopeWebhooks(ctx context.Context, c kubernetes.Interface, ns string, hooks []admissionv1.ValidatingWebhook) error {
	var lab *webhook.Endpoint
	for i := range hooks {
		h := &hooks[i]
		h.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: ns}}
		cc := &h.ClientConfig
		if cc.Service != nil && cc.Service.Namespace == "" {
			cc.Service.Namespace = ns
		}
		if cc.URL == nil {
			continue
		}
		u, err := url.Parse(*cc.URL)
		if err != nil {
			return fmt.Errorf("webhook %s: url %q: %w", h.Name, *cc.URL, err)
		}
		if u.Host != LabWebhookHost {
			continue
		}
		if lab == nil {
			e, err := webhook.Discover(ctx, c)
			if err != nil {
				return fmt.Errorf("webhook %s: %w", h.Name, err)
			}
			lab = &e
		}
		target := lab.URL + u.EscapedPath()
		cc.URL = &target
		cc.CABundle = lab.CABundle
	}
	return nil
}
