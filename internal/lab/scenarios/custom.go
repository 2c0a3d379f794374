package scenarios

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// ShopKind is the lab operator's custom resource (internal/lab/operator,
// which this package does not import: controller-runtime stays the lab
// binary's).
var ShopKind = schema.GroupVersionKind{Group: "lab.kubectl-chain.io", Version: "v1alpha1", Kind: "Shop"}

// Argo Rollouts' kinds a scenario may hold, served on a lab that runs its
// controller (up --rollouts-controller).
var (
	RolloutKind          = schema.GroupVersionKind{Group: chain.RolloutGroup, Version: "v1alpha1", Kind: string(chain.KindRollout)}
	AnalysisTemplateKind = schema.GroupVersionKind{Group: chain.RolloutGroup, Version: "v1alpha1", Kind: "AnalysisTemplate"}
)

// customResources are the custom kinds a scenario may hold, by the
// resource they are created through.
var customResources = map[schema.GroupVersionKind]string{
	ShopKind:             "shops",
	RolloutKind:          "rollouts",
	AnalysisTemplateKind: "analysistemplates",
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

// createCustom creates a custom object in ns through its API, as JSON.
func createCustom(ctx context.Context, c kubernetes.Interface, ns string, o *unstructured.Unstructured) error {
	o.SetNamespace(ns)
	body, err := o.MarshalJSON()
	if err != nil {
		return err
	}
	return c.Discovery().RESTClient().Post().AbsPath(customPath(o.GroupVersionKind(), ns)...).
		SetHeader("Content-Type", "application/json").Body(body).Do(ctx).Error()
}
