package chain

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// CertManagerGroup is cert-manager's API group.
const CertManagerGroup = "cert-manager.io"

// IssuerOf is where the Issuer or ClusterIssuer a cert-manager Certificate
// names (spec.issuerRef: kind Issuer unless it says ClusterIssuer, group
// cert-manager.io unless it names an external issuer's) is served, and its
// name: kubectl chain checks that it exists, as it checks an Ingress's
// backends. ok is false for any other object, and for an external
// issuer, whose kind only its own CRD names.
func IssuerOf(u *unstructured.Unstructured) (api APIResource, name string, ok bool) {
	gvk := u.GroupVersionKind()
	if gvk.Group != CertManagerGroup || gvk.Kind != "Certificate" {
		return APIResource{}, "", false
	}
	name, _, _ = unstructured.NestedString(u.Object, "spec", "issuerRef", "name")
	kind, _, _ := unstructured.NestedString(u.Object, "spec", "issuerRef", "kind")
	group, _, _ := unstructured.NestedString(u.Object, "spec", "issuerRef", "group")
	if name == "" || group != "" && group != CertManagerGroup {
		return APIResource{}, "", false
	}
	api = APIResource{Group: CertManagerGroup, Version: "v1", Resource: "issuers", Kind: "Issuer", Namespaced: true}
	switch kind {
	case "", "Issuer":
	case "ClusterIssuer":
		api.Resource, api.Kind, api.Namespaced = "clusterissuers", "ClusterIssuer", false
	default:
		return APIResource{}, "", false
	}
	return api, name, true
}

// Absent names an object a reference names that does not exist ("Issuer
// "letsencrypt-prod"").
func Absent(api APIResource, name string) string { return fmt.Sprintf("%s %q", api.Kind, name) }
