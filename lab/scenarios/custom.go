package scenarios

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// ShopKind is the lab operator's custom resource (lab/operator,
// which this package does not import: controller-runtime stays the lab
// binary's).
var ShopKind = schema.GroupVersionKind{Group: "lab.kubectl-chain.io", Version: "v1alpha1", Kind: "Shop"}

// Argo Rollouts' kinds a scenario may hold, served on a lab that runs its
// controller (up --rollouts-controller).
var (
	RolloutKind          = schema.GroupVersionKind{Group: chain.RolloutGroup, Version: "v1alpha1", Kind: string(chain.KindRollout)}
	AnalysisTemplateKind = schema.GroupVersionKind{Group: chain.RolloutGroup, Version: "v1alpha1", Kind: "AnalysisTemplate"}
)

// cert-manager's kinds a scenario may hold: the lab serves their CRDs
// (lab/certmanager) and runs no controller, so their manifests
// carry the statuses real captures show, which createCustom writes.
var (
	CertificateKind        = schema.GroupVersionKind{Group: "cert-manager.io", Version: "v1", Kind: "Certificate"}
	CertificateRequestKind = schema.GroupVersionKind{Group: "cert-manager.io", Version: "v1", Kind: "CertificateRequest"}
)

// customResources are the custom kinds a scenario may hold, by the
// resource they are created through.
var customResources = map[schema.GroupVersionKind]string{
	ShopKind:               "shops",
	RolloutKind:            "rollouts",
	AnalysisTemplateKind:   "analysistemplates",
	CertificateKind:        "certificates",
	CertificateRequestKind: "certificaterequests",
}

// customOnly refuses a custom object of a kind scenarios do not hold.
func customOnly(u *unstructured.Unstructured) error {
	if _, ok := customResources[u.GroupVersionKind()]; ok {
		return nil
	}
	return fmt.Errorf("scenario object of unsupported kind %s", u.GroupVersionKind())
}

// localizeShop points a Shop's db claims (spec.storageClassName) at the
// scenario's own StorageClass, renamed with ClusterScopedName.
func localizeShop(o *unstructured.Unstructured, ns string, classes map[string]bool) {
	if o.GroupVersionKind() != ShopKind {
		return
	}
	if n, _, _ := unstructured.NestedString(o.Object, "spec", "storageClassName"); classes[n] {
		_ = unstructured.SetNestedField(o.Object, ClusterScopedName(ns, n), "spec", "storageClassName")
	}
}

// customPath is the API path of a custom resource's objects in ns.
func customPath(gvk schema.GroupVersionKind, ns string) []string {
	return []string{"/apis", gvk.Group, gvk.Version, "namespaces", ns, customResources[gvk]}
}

// createCustom creates a custom object in ns through its API, as JSON:
// its owners' UIDs filled in by name, a CertificateRequest's CSR made,
// and the manifest's status, if any, written through the status
// subresource after the create.
func createCustom(ctx context.Context, c kubernetes.Interface, ns string, o *unstructured.Unstructured) error {
	o.SetNamespace(ns)
	rest := c.Discovery().RESTClient()
	refs := o.GetOwnerReferences()
	for i, r := range refs {
		owner, err := getCustom(ctx, c, schema.FromAPIVersionAndKind(r.APIVersion, r.Kind), ns, r.Name)
		if err != nil {
			return fmt.Errorf("%s %s: its owner %s %s: %w", o.GetKind(), o.GetName(), r.Kind, r.Name, err)
		}
		refs[i].UID = owner.GetUID()
	}
	o.SetOwnerReferences(refs)
	if err := makeCSR(ctx, c, ns, o); err != nil {
		return err
	}
	status, hasStatus := o.Object["status"]
	delete(o.Object, "status")
	body, err := o.MarshalJSON()
	if err != nil {
		return err
	}
	raw, err := rest.Post().AbsPath(customPath(o.GroupVersionKind(), ns)...).
		SetHeader("Content-Type", "application/json").Body(body).DoRaw(ctx)
	if err != nil || !hasStatus {
		return err
	}
	created := &unstructured.Unstructured{}
	if err := created.UnmarshalJSON(raw); err != nil {
		return err
	}
	created.Object["status"] = stampConditions(status)
	if body, err = created.MarshalJSON(); err != nil {
		return err
	}
	return rest.Put().AbsPath(append(customPath(o.GroupVersionKind(), ns), o.GetName(), "status")...).
		SetHeader("Content-Type", "application/json").Body(body).Do(ctx).Error()
}

// getCustom reads a custom object of a kind scenarios hold.
func getCustom(ctx context.Context, c kubernetes.Interface, gvk schema.GroupVersionKind, ns, name string) (*unstructured.Unstructured, error) {
	if _, ok := customResources[gvk]; !ok {
		return nil, fmt.Errorf("kind %s is not one scenarios hold", gvk)
	}
	raw, err := c.Discovery().RESTClient().Get().AbsPath(append(customPath(gvk, ns), name)...).DoRaw(ctx)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{}
	return u, u.UnmarshalJSON(raw)
}

// stampConditions sets each condition's lastTransitionTime to now: the
// manifest holds what happened, the apply says when.
func stampConditions(status any) any {
	m, ok := status.(map[string]any)
	if !ok {
		return status
	}
	conds, _ := m["conditions"].([]any)
	now := time.Now().UTC().Format(time.RFC3339)
	for _, c := range conds {
		if cm, ok := c.(map[string]any); ok {
			cm["lastTransitionTime"] = now
		}
	}
	return m
}

// makeCSR fills a CertificateRequest's empty spec.request with a CSR for
// its Certificate's DNS names, as cert-manager makes one from the
// Certificate's private key.
func makeCSR(ctx context.Context, c kubernetes.Interface, ns string, o *unstructured.Unstructured) error {
	if o.GroupVersionKind() != CertificateRequestKind {
		return nil
	}
	if r, _, _ := unstructured.NestedString(o.Object, "spec", "request"); r != "" {
		return nil
	}
	var names []string
	if cert := o.GetAnnotations()["cert-manager.io/certificate-name"]; cert != "" {
		if owner, err := getCustom(ctx, c, CertificateKind, ns, cert); err == nil {
			names, _, _ = unstructured.NestedStringSlice(owner.Object, "spec", "dnsNames")
		}
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{DNSNames: names}, key)
	if err != nil {
		return err
	}
	csr := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
	return unstructured.SetNestedField(o.Object, base64.StdEncoding.EncodeToString(csr), "spec", "request")
}
