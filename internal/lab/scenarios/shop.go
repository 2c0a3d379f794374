package scenarios

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
)

// ShopKind is the lab operator's custom resource (internal/lab/operator,
// which this package does not import: controller-runtime stays the lab
// binary's). It is the one custom kind a scenario may hold.
var ShopKind = schema.GroupVersionKind{Group: "lab.kubectl-chain.io", Version: "v1alpha1", Kind: "Shop"}

// shopOnly refuses a custom object that is not a Shop.
func shopOnly(u *unstructured.Unstructured) error {
	if u.GroupVersionKind() == ShopKind {
		return nil
	}
	return fmt.Errorf("scenario object of unsupported kind %s", u.GroupVersionKind())
}

// localizeShop points a Shop's db claims (spec.storageClassName) at the
// scenario's own StorageClass, renamed with ClusterScopedName.
func localizeShop(o *unstructured.Unstructured, ns string, classes map[string]bool) {
	if n, _, _ := unstructured.NestedString(o.Object, "spec", "storageClassName"); classes[n] {
		_ = unstructured.SetNestedField(o.Object, ClusterScopedName(ns, n), "spec", "storageClassName")
	}
}

// createShop creates a Shop in ns through its API, as JSON.
func createShop(ctx context.Context, c kubernetes.Interface, ns string, o *unstructured.Unstructured) error {
	o.SetNamespace(ns)
	body, err := o.MarshalJSON()
	if err != nil {
		return err
	}
	return c.Discovery().RESTClient().Post().AbsPath("/apis", ShopKind.Group, ShopKind.Version, "namespaces", ns, "shops").
		SetHeader("Content-Type", "application/json").Body(body).Do(ctx).Error()
}
