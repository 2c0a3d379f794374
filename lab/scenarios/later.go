package scenarios

import (
	"context"
	"fmt"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
)

// ApplyLater makes a healing scenario's fault end: Later after its first
// step was applied, the objects of NAME.later.yaml are created, or replace
// the first step's of the same name (a webhook configuration that points
// at a server that answers). A fault that ends by itself (a registry
// outage of a length) has no later step: ApplyLater only waits for its
// end. It returns at once for a scenario that does not heal, and with
// ctx's error if ctx ends first.
func ApplyLater(ctx context.Context, c kubernetes.Interface, s Scenario, ns string, o Options) error {
	if s.Later == 0 {
		return nil
	}
	var objs []runtime.Object
	if s.LaterStep() {
		var err error
		if objs, err = stepObjects(s, "later", ns, o); err != nil {
			return err
		}
	}
	select {
	case <-ctx.Done():
		return fmt.Errorf("scenario %s: waiting %s for its later step: %w", s.Name, s.Later, ctx.Err())
	case <-time.After(s.Later):
	}
	for _, obj := range objs {
		vwc, ok := obj.(*admissionv1.ValidatingWebhookConfiguration)
		if !ok {
			if err := create(ctx, c, ns, obj); err != nil {
				return fmt.Errorf("scenario %s, later step: %w", s.Name, err)
			}
			continue
		}
		if err := replaceWebhooks(ctx, c, ns, vwc); err != nil {
			return fmt.Errorf("scenario %s, later step: %w", s.Name, err)
		}
	}
	return nil
}

// LaterStep says the scenario's fault ends with a later step
// (NAME.later.yaml), not by itself.
func (s Scenario) LaterStep() bool {
	_, err := manifests.ReadFile("manifests/" + s.Name + ".later.yaml")
	return s.Later > 0 && err == nil
}

// replaceWebhooks puts a webhook configuration of the later step in place
// of the first step's of the same name, scoped as create scopes it.
func replaceWebhooks(ctx context.Context, c kubernetes.Interface, ns string, vwc *admissionv1.ValidatingWebhookConfiguration) error {
	vwc.Name = ClusterScopedName(ns, vwc.Name)
	if err := scopeWebhooks(ctx, c, ns, vwc.Webhooks); err != nil {
		return err
	}
	api := c.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	old, err := api.Get(ctx, vwc.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, err = api.Create(ctx, vwc, metav1.CreateOptions{})
		return err
	}
	if err != nil {
		return err
	}
	vwc.ResourceVersion = old.ResourceVersion
	_, err = api.Update(ctx, vwc, metav1.UpdateOptions{})
	return err
}
