package webhook

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Where `up` publishes the server in the cluster, as kubeadm publishes
// cluster-info: the scenarios (and a curious user) find its URL and the CA
// that signed its certificate with nothing but a kubeconfig.
const (
	ConfigMapNamespace = metav1.NamespacePublic
	ConfigMapName      = "lab-admission-webhook"
	KeyURL             = "url"
	KeyCA              = "ca.crt"
)

// Endpoint is the published server: its base URL (https://HOST:PORT) and
// the PEM CA bundle a webhook configuration's caBundle needs.
type Endpoint struct {
	URL      string
	CABundle []byte
}

// Publish writes e to the ConfigMap, replacing what an earlier run wrote.
func Publish(ctx context.Context, c kubernetes.Interface, e Endpoint) error {
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: ConfigMapName, Namespace: ConfigMapNamespace},
		Data:       map[string]string{KeyURL: e.URL, KeyCA: string(e.CABundle)},
	}
	_, err := c.CoreV1().ConfigMaps(ConfigMapNamespace).Create(ctx, cm, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		_, err = c.CoreV1().ConfigMaps(ConfigMapNamespace).Update(ctx, cm, metav1.UpdateOptions{})
	}
	if err != nil {
		return fmt.Errorf("publishing the admission webhook in ConfigMap %s/%s: %w", ConfigMapNamespace, ConfigMapName, err)
	}
	return nil
}

// Discover reads the published server. A cluster that is not a lab (or a
// lab from before the server existed) has no such ConfigMap: the error
// says so and what to do.
func Discover(ctx context.Context, c kubernetes.Interface) (Endpoint, error) {
	cm, err := c.CoreV1().ConfigMaps(ConfigMapNamespace).Get(ctx, ConfigMapName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return Endpoint{}, fmt.Errorf("this cluster has no lab admission webhook (ConfigMap %s/%s not found): apply the scenario to a lab started by `kubectl chain lab up`", ConfigMapNamespace, ConfigMapName)
	}
	if err != nil {
		return Endpoint{}, fmt.Errorf("reading ConfigMap %s/%s: %w", ConfigMapNamespace, ConfigMapName, err)
	}
	e := Endpoint{URL: cm.Data[KeyURL], CABundle: []byte(cm.Data[KeyCA])}
	if e.URL == "" || len(e.CABundle) == 0 {
		return Endpoint{}, fmt.Errorf("ConfigMap %s/%s lacks %q or %q: restart the lab (`kubectl chain lab down`, then `up`)", ConfigMapNamespace, ConfigMapName, KeyURL, KeyCA)
	}
	return e, nil
}
