package kubelet

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
)

// The kubelet reads ConfigMaps and Secrets through its watch-based managers
// (pkg/kubelet/util/manager/watch_based_manager.go), whose NotFound names
// the resource in the singular: `configmap "x" not found`.
var (
	configMapResource = schema.GroupResource{Resource: "configmap"}
	secretResource    = schema.GroupResource{Resource: "secret"}
)

// getData reads a ConfigMap's or Secret's keys; missing is the kubelet's
// NotFound error for it. The Node authorizer lets a node read only what its
// pods reference, and learns of a pod a moment after it is bound: a read
// refused for "no relationship" is tried again for up to a second, as the
// real kubelet, which creates the sandbox first, reads later (its real node
// never showed that refusal; the simulated one did).
func getData(ctx context.Context, c kubernetes.Interface, ns, name string, secret bool) (map[string]bool, error) {
	for i := 0; ; i++ {
		keys, err := readData(ctx, c, ns, name, secret)
		if i >= 10 || !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "no relationship found") {
			return keys, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// readData is one read of getData.
func readData(ctx context.Context, c kubernetes.Interface, ns, name string, secret bool) (map[string]bool, error) {
	keys := map[string]bool{}
	if secret {
		s, err := c.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil, apierrors.NewNotFound(secretResource, name)
		}
		if err != nil {
			return nil, err
		}
		for k := range s.Data {
			keys[k] = true
		}
		for k := range s.StringData {
			keys[k] = true
		}
		return keys, nil
	}
	cm, err := c.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, apierrors.NewNotFound(configMapResource, name)
	}
	if err != nil {
		return nil, err
	}
	for k := range cm.Data {
		keys[k] = true
	}
	for k := range cm.BinaryData {
		keys[k] = true
	}
	return keys, nil
}

// envError is the error of the kubelet's makeEnvironmentVariables
// (pkg/kubelet/kubelet_pods.go) for container c, "" when every referenced
// ConfigMap, Secret and key exists or is optional: envFrom first, then env.
func envError(ctx context.Context, client kubernetes.Interface, pod *corev1.Pod, c *corev1.Container) string {
	for _, from := range c.EnvFrom {
		var name string
		var optional, secret bool
		switch {
		case from.ConfigMapRef != nil:
			name, optional = from.ConfigMapRef.Name, ptrTrue(from.ConfigMapRef.Optional)
		case from.SecretRef != nil:
			name, optional, secret = from.SecretRef.Name, ptrTrue(from.SecretRef.Optional), true
		default:
			continue
		}
		if _, err := getData(ctx, client, pod.Namespace, name, secret); err != nil && !(optional && apierrors.IsNotFound(err)) {
			return err.Error()
		}
	}
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			continue
		}
		var name, key, format string
		var optional, secret bool
		switch {
		case e.ValueFrom.ConfigMapKeyRef != nil:
			r := e.ValueFrom.ConfigMapKeyRef
			name, key, optional, format = r.Name, r.Key, ptrTrue(r.Optional), msgKeyNotFoundConfigMap
		case e.ValueFrom.SecretKeyRef != nil:
			r := e.ValueFrom.SecretKeyRef
			name, key, optional, format, secret = r.Name, r.Key, ptrTrue(r.Optional), msgKeyNotFoundSecret, true
		default:
			continue
		}
		keys, err := getData(ctx, client, pod.Namespace, name, secret)
		if err != nil {
			if optional && apierrors.IsNotFound(err) {
				continue
			}
			return err.Error()
		}
		if !keys[key] && !optional {
			return fmt.Sprintf(format, key, pod.Namespace, name)
		}
	}
	return ""
}

// The missing-key errors of pkg/kubelet/kubelet_pods.go.
const (
	msgKeyNotFoundConfigMap = "couldn't find key %v in ConfigMap %v/%v"
	msgKeyNotFoundSecret    = "couldn't find key %v in Secret %v/%v"
)

func ptrTrue(b *bool) bool { return b != nil && *b }

// volumeError is one volume that cannot be set up. A silent one is not
// reported in an event (see claimVolume).
type volumeError struct {
	volume, err string
	silent      bool
}

// volumeErrors are the volumes of pod that cannot be set up, in spec order:
// ConfigMap and Secret volumes whose object is missing (pkg/volume/configmap
// and pkg/volume/secret SetUpAt; optional ones mount empty), and claims
// that are not bound or whose volume does not pass its plugin's check.
func volumeErrors(ctx context.Context, client kubernetes.Interface, pod *corev1.Pod) []volumeError {
	var out []volumeError
	for _, v := range pod.Spec.Volumes {
		var name string
		var optional, secret bool
		switch {
		case v.PersistentVolumeClaim != nil:
			cv := resolveClaim(ctx, client, pod, v)
			switch {
			case cv.processErr != "":
				out = append(out, volumeError{volume: v.Name, err: cv.processErr, silent: true})
			case cv.setUpErr != "":
				out = append(out, volumeError{volume: cv.pv, err: cv.setUpErr})
			}
			continue
		case v.ConfigMap != nil:
			name, optional = v.ConfigMap.Name, ptrTrue(v.ConfigMap.Optional)
		case v.Secret != nil:
			name, optional, secret = v.Secret.SecretName, ptrTrue(v.Secret.Optional), true
		default:
			continue
		}
		if _, err := getData(ctx, client, pod.Namespace, name, secret); err != nil && !(optional && apierrors.IsNotFound(err)) {
			out = append(out, volumeError{volume: v.Name, err: err.Error()})
		}
	}
	return out
}

// pullSecrets is the pod as the image puller sees it: only the
// imagePullSecrets the kubelet could read. Missing ones are reported as the
// kubelet's getPullSecretsForPod does.
func (w *podWorker) pullSecrets(ctx context.Context, pod *corev1.Pod) *corev1.Pod {
	if len(pod.Spec.ImagePullSecrets) == 0 {
		return pod
	}
	var found []corev1.LocalObjectReference
	var missing []string
	for _, s := range pod.Spec.ImagePullSecrets {
		if _, err := w.a.client.CoreV1().Secrets(pod.Namespace).Get(ctx, s.Name, metav1.GetOptions{}); err != nil {
			missing = append(missing, s.Name)
			continue
		}
		found = append(found, s)
	}
	if len(missing) > 0 {
		warn(w.a.events, podRef(pod), reasonFailedPullSecret, fmt.Sprintf(msgFailedPullSecret, strings.Join(missing, ", ")))
	}
	p := pod.DeepCopy()
	p.Spec.ImagePullSecrets = found
	return p
}
