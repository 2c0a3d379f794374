package lab

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-chain/kubectl-chain/lab/certmanager"
	"github.com/kubectl-chain/kubectl-chain/lab/gatewayapi"
	"github.com/kubectl-chain/kubectl-chain/lab/operator"
	"github.com/kubectl-chain/kubectl-chain/lab/pki"
	"github.com/kubectl-chain/kubectl-chain/lab/storage"
	"github.com/kubectl-chain/kubectl-chain/lab/webhook"
)

// pollInterval is how often `up` checks the cluster while it comes up.
const pollInterval = 100 * time.Millisecond

// exited is a component process that ended while `up` waited for it.
type exited struct {
	component string
	err       error
}

// check is one step of health: done reports whether it holds now.
type check struct {
	name string
	done func(ctx context.Context, c kubernetes.Interface) (bool, error)
}

// healthChecks are what "healthy" means for a lab of n nodes: the API server
// is ready; every node is registered, Ready and schedulable (the node
// lifecycle controller removed the not-ready taint, so the controller-manager
// works); and namespace "default" has its ServiceAccount and kube-root-ca.crt
// (the serviceaccount and root-ca-cert-publisher controllers ran), so a
// Deployment applied right away creates pods at once; the admission
// webhook server answers over TLS as the API server will call it, and is
// published for the scenarios; and the storage provisioner's RBAC and the
// default StorageClass are installed, so a claim applied right away is
// provisioned.
func healthChecks(n int, hook webhook.Endpoint) []check {
	return []check{
		{"API server ready", apiServerReady},
		{fmt.Sprintf("%d node(s) Ready", n), func(ctx context.Context, c kubernetes.Interface) (bool, error) {
			return nodesReady(ctx, c, n)
		}},
		{"default ServiceAccount and kube-root-ca.crt published", defaultNamespaceReady},
		{"admission webhook serving, published in " + webhook.ConfigMapNamespace + "/" + webhook.ConfigMapName, func(ctx context.Context, c kubernetes.Interface) (bool, error) {
			return webhookReady(ctx, c, hook)
		}},
		{"default StorageClass " + storage.DefaultClass + " installed", storageInstalled},
		{"Gateway API CRDs " + gatewayapi.Version + " established", gatewayapi.Install},
		{"cert-manager CRDs " + certmanager.Version + " established (no cert-manager controller)", certmanager.Install},
		{"lab operator's CRD shops." + operator.GroupVersion.Group + " established", operator.Install},
	}
}

// webhookReady checks the webhook server the way the API server will reach
// it (its URL, verified against the CA bundle) and then publishes it.
func webhookReady(ctx context.Context, c kubernetes.Interface, hook webhook.Endpoint) (bool, error) {
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(hook.CABundle) {
		return false, errors.New("the lab's CA certificate is not valid PEM")
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}}}
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, hook.URL+"/readyz", nil)
	if err != nil {
		return false, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return false, nil
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, nil
	}
	// kube-public is created by the API server a moment after it is ready:
	// only a refusal that waiting cannot cure fails `up`.
	switch err := webhook.Publish(ctx, c, hook); {
	case err == nil:
		return true, nil
	case apierrors.IsForbidden(err), apierrors.IsInvalid(err), apierrors.IsBadRequest(err):
		return false, err
	}
	return false, nil
}

func apiServerReady(ctx context.Context, c kubernetes.Interface) (bool, error) {
	body, err := c.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
	return err == nil && string(body) == "ok", nil
}

func nodesReady(ctx context.Context, c kubernetes.Interface, n int) (bool, error) {
	nodes, err := c.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return false, nil
	}
	ready := 0
	for i := range nodes.Items {
		if nodeSchedulable(&nodes.Items[i]) {
			ready++
		}
	}
	return ready >= n, nil
}

// nodeSchedulable is a node that is Ready and no longer carries the taints a
// new or unhealthy node gets.
func nodeSchedulable(node *corev1.Node) bool {
	for _, t := range node.Spec.Taints {
		if t.Key == corev1.TaintNodeNotReady || t.Key == corev1.TaintNodeUnreachable {
			return false
		}
	}
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func defaultNamespaceReady(ctx context.Context, c kubernetes.Interface) (bool, error) {
	if _, err := c.CoreV1().ServiceAccounts(metav1.NamespaceDefault).Get(ctx, "default", metav1.GetOptions{}); err != nil {
		return false, nil
	}
	if _, err := c.CoreV1().ConfigMaps(metav1.NamespaceDefault).Get(ctx, "kube-root-ca.crt", metav1.GetOptions{}); err != nil {
		return false, nil
	}
	return true, nil
}

// storageInstalled installs the storage provisioner's RBAC and the default
// StorageClass; an error is retried like any check that does not hold yet.
func storageInstalled(ctx context.Context, c kubernetes.Interface) (bool, error) {
	return storage.Install(ctx, c, pki.StorageProvisionerUser) == nil, nil
}

// waitHealthy runs the checks in order, each until it holds, and fails as
// soon as a component exits or ctx ends. passed is called after each check.
func waitHealthy(ctx context.Context, c kubernetes.Interface, checks []check, exits <-chan exited, passed func(name string)) error {
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	for _, ch := range checks {
		for {
			reqCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
			ok, err := ch.done(reqCtx, c)
			cancel()
			if err != nil {
				return err
			}
			if ok {
				passed(ch.name)
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("waiting for %s: %w", ch.name, ctx.Err())
			case e := <-exits:
				return &componentExitError{component: e.component, err: e.err}
			case <-t.C:
			}
		}
	}
	return nil
}

// componentExitError is a component that died while the lab came up.
type componentExitError struct {
	component string
	err       error
}

func (e *componentExitError) Error() string {
	if e.err == nil {
		return e.component + " exited (status 0) while the lab was starting"
	}
	return fmt.Sprintf("%s exited while the lab was starting: %v", e.component, e.err)
}
