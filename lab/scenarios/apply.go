package scenarios

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kubectl-chain/kubectl-chain/lab/registry/catalog"
	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

// Options adapt a scenario to the cluster it is applied on.
type Options struct {
	// RealKubelet is a cluster of real kubelets (the kind engine): LabOnly
	// scenarios are refused there.
	RealKubelet bool
	// Images replaces image references of the pod template, for a cluster
	// whose nodes cannot pull the lab catalogue's images; the replaced
	// containers get imagePullPolicy IfNotPresent.
	Images map[string]string
	// Engine, when set, pins the pods to the nodes labelled
	// lab.kubectl-chain.io/engine=Engine: real or simulated ones.
	Engine string
	// InNamespace applies the scenario in a namespace made beforehand
	// (with its default ServiceAccount), as the soak does before it stops
	// the controller manager, which makes them.
	InNamespace bool
}

// Apply creates the scenario in namespace ns on the lab's simulated
// kubelet; see ApplyWith.
func Apply(ctx context.Context, c kubernetes.Interface, s Scenario, ns string) error {
	return ApplyWith(ctx, c, s, ns, Options{})
}

// ApplyWith creates the scenario in namespace ns: the namespace (with the
// manifest's namespace labels), the taint on every node if the scenario has
// one, then each object of the manifest in order. The namespace must not
// exist yet, so a scenario always starts clean.
func ApplyWith(ctx context.Context, c kubernetes.Interface, s Scenario, ns string, o Options) error {
	if err := refuse(ctx, c, s, o); err != nil {
		return err
	}
	objs, err := stepObjects(s, "", ns, o)
	if err != nil {
		return err
	}
	nsObj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{labelScenario: s.Name}}}
	for _, o := range objs {
		if n, ok := o.(*corev1.Namespace); ok {
			for k, v := range n.Labels {
				nsObj.Labels[k] = v
			}
		}
	}
	if !o.InNamespace {
		if _, err := c.CoreV1().Namespaces().Create(ctx, nsObj, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating namespace %s: %w", ns, err)
		}
	}
	if s.TaintNodes != nil {
		if err := TaintNodes(ctx, c, *s.TaintNodes); err != nil {
			return err
		}
	}
	if err := waitServiceAccount(ctx, c, ns); err != nil {
		return err
	}
	for _, o := range objs {
		if err := create(ctx, c, ns, o); err != nil {
			return err
		}
	}
	if s.Then != "" {
		if err := applyThen(ctx, c, s, ns, o); err != nil {
			return err
		}
	}
	if s.StopKubelet {
		return StopKubelets(ctx, c, s, ns)
	}
	return nil
}

// localize points the manifest's claims and pods at its own StorageClasses
// and RuntimeClasses, which are named with ClusterScopedName, replaces
// images, and starts the registry outages its images name.
func localize(objs []runtime.Object, ns string, images map[string]string) {
	classes, runtimeClasses := map[string]bool{}, map[string]bool{}
	for _, o := range objs {
		switch o := o.(type) {
		case *storagev1.StorageClass:
			classes[o.Name] = true
		case *nodev1.RuntimeClass:
			runtimeClasses[o.Name] = true
		}
	}
	for _, o := range objs {
		switch o := o.(type) {
		case *corev1.PersistentVolumeClaim:
			if n := o.Spec.StorageClassName; n != nil && classes[*n] {
				renamed := ClusterScopedName(ns, *n)
				o.Spec.StorageClassName = &renamed
			}
		case *unstructured.Unstructured:
			localizeShop(o, ns, classes)
		case *appsv1.StatefulSet:
			for i := range o.Spec.VolumeClaimTemplates {
				if n := o.Spec.VolumeClaimTemplates[i].Spec.StorageClassName; n != nil && classes[*n] {
					renamed := ClusterScopedName(ns, *n)
					o.Spec.VolumeClaimTemplates[i].Spec.StorageClassName = &renamed
				}
			}
		}
		if t := podTemplate(o); t != nil {
			spec := &t.Spec
			if n := spec.RuntimeClassName; n != nil && runtimeClasses[*n] {
				renamed := ClusterScopedName(ns, *n)
				spec.RuntimeClassName = &renamed
			}
			for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
				for i := range cs {
					if img, ok := images[cs[i].Image]; ok {
						cs[i].Image, cs[i].ImagePullPolicy = img, corev1.PullIfNotPresent
					}
					// A registry outage's length starts now.
					cs[i].Image = catalog.Localize(cs[i].Image, time.Now())
				}
			}
		}
	}
}

// podTemplate is the pod template of a workload of any walked kind, nil
// for other objects.
func podTemplate(o runtime.Object) *corev1.PodTemplateSpec {
	switch o := o.(type) {
	case *appsv1.Deployment:
		return &o.Spec.Template
	case *appsv1.StatefulSet:
		return &o.Spec.Template
	case *appsv1.DaemonSet:
		return &o.Spec.Template
	case *batchv1.Job:
		return &o.Spec.Template
	case *batchv1.CronJob:
		return &o.Spec.JobTemplate.Spec.Template
	}
	return nil
}

// pin adds the engine's node label to the workloads' node selectors.
func pin(objs []runtime.Object, engine string) {
	for _, o := range objs {
		if t := podTemplate(o); t != nil {
			spec := &t.Spec
			if spec.NodeSelector == nil {
				spec.NodeSelector = map[string]string{}
			}
			spec.NodeSelector[state.EngineLabel] = engine
		}
	}
}

// labelScenario marks the namespaces Apply created.
const labelScenario = "lab.kubectl-chain.io/scenario"

// supported reports an object Apply cannot create.
func supported(o runtime.Object) error {
	if u, ok := o.(*unstructured.Unstructured); ok {
		return customOnly(u)
	}
	switch o.(type) {
	case *corev1.Namespace, *appsv1.Deployment, *appsv1.StatefulSet, *appsv1.DaemonSet, *batchv1.Job, *batchv1.CronJob, *corev1.ConfigMap, *corev1.Secret, *corev1.PersistentVolumeClaim, *corev1.Service,
		*networkingv1.Ingress, *networkingv1.IngressClass,
		*gatewayv1.GatewayClass, *gatewayv1.Gateway, *gatewayv1.HTTPRoute,
		*corev1.ResourceQuota, *corev1.LimitRange, *storagev1.StorageClass, *nodev1.RuntimeClass,
		*admissionv1.ValidatingAdmissionPolicy, *admissionv1.ValidatingAdmissionPolicyBinding,
		*admissionv1.ValidatingWebhookConfiguration, *autoscalingv2.HorizontalPodAutoscaler:
		return nil
	}
	return fmt.Errorf("scenario object of unsupported type %T", o)
}

// ClusterScopedName is the name a scenario's cluster-scoped object gets in
// the lab: prefixed with the namespace, so that the same scenario applies in
// several namespaces.
func ClusterScopedName(ns, name string) string { return ns + "-" + name }

// create creates one object of the scenario in ns (cluster-scoped ones
// named with ClusterScopedName).
func create(ctx context.Context, c kubernetes.Interface, ns string, o runtime.Object) error {
	if err := supported(o); err != nil {
		return err
	}
	var err error
	switch o := o.(type) {
	case *corev1.Namespace:
		return nil
	case *appsv1.Deployment:
		_, err = c.AppsV1().Deployments(ns).Create(ctx, o, metav1.CreateOptions{})
	case *appsv1.StatefulSet:
		_, err = c.AppsV1().StatefulSets(ns).Create(ctx, o, metav1.CreateOptions{})
	case *appsv1.DaemonSet:
		_, err = c.AppsV1().DaemonSets(ns).Create(ctx, o, metav1.CreateOptions{})
	case *batchv1.Job:
		_, err = c.BatchV1().Jobs(ns).Create(ctx, o, metav1.CreateOptions{})
	case *batchv1.CronJob:
		err = createCronJob(ctx, c, ns, o)
	case *corev1.ConfigMap:
		_, err = c.CoreV1().ConfigMaps(ns).Create(ctx, o, metav1.CreateOptions{})
	case *corev1.Secret:
		_, err = c.CoreV1().Secrets(ns).Create(ctx, o, metav1.CreateOptions{})
	case *corev1.PersistentVolumeClaim:
		_, err = c.CoreV1().PersistentVolumeClaims(ns).Create(ctx, o, metav1.CreateOptions{})
	case *corev1.Service:
		_, err = c.CoreV1().Services(ns).Create(ctx, o, metav1.CreateOptions{})
	case *networkingv1.Ingress:
		// The scenario's IngressClass is renamed as every cluster-scoped
		// object is; the Ingress names it by its new name.
		if n := o.Spec.IngressClassName; n != nil {
			o.Spec.IngressClassName = ptr.To(ClusterScopedName(ns, *n))
		}
		_, err = c.NetworkingV1().Ingresses(ns).Create(ctx, o, metav1.CreateOptions{})
	case *networkingv1.IngressClass:
		o.Name = ClusterScopedName(ns, o.Name)
		_, err = c.NetworkingV1().IngressClasses().Create(ctx, o, metav1.CreateOptions{})
	case *gatewayv1.GatewayClass:
		o.Name = ClusterScopedName(ns, o.Name)
		err = createGatewayAPI(ctx, c, "", "gatewayclasses", o)
	case *gatewayv1.Gateway:
		// Of the scenario's GatewayClass, renamed.
		o.Spec.GatewayClassName = gatewayv1.ObjectName(ClusterScopedName(ns, string(o.Spec.GatewayClassName)))
		err = createGatewayAPI(ctx, c, ns, "gateways", o)
	case *gatewayv1.HTTPRoute:
		err = createGatewayAPI(ctx, c, ns, "httproutes", o)
	case *autoscalingv2.HorizontalPodAutoscaler:
		_, err = c.AutoscalingV2().HorizontalPodAutoscalers(ns).Create(ctx, o, metav1.CreateOptions{})
	case *unstructured.Unstructured: // a Shop or an Argo Rollouts kind (supported)
		err = createCustom(ctx, c, ns, o)
	case *corev1.ResourceQuota:
		_, err = c.CoreV1().ResourceQuotas(ns).Create(ctx, o, metav1.CreateOptions{})
	case *corev1.LimitRange:
		_, err = c.CoreV1().LimitRanges(ns).Create(ctx, o, metav1.CreateOptions{})
	case *storagev1.StorageClass:
		o.Name = ClusterScopedName(ns, o.Name)
		_, err = c.StorageV1().StorageClasses().Create(ctx, o, metav1.CreateOptions{})
	case *nodev1.RuntimeClass:
		o.Name = ClusterScopedName(ns, o.Name)
		_, err = c.NodeV1().RuntimeClasses().Create(ctx, o, metav1.CreateOptions{})
	case *admissionv1.ValidatingAdmissionPolicy:
		o.Name = ClusterScopedName(ns, o.Name)
		_, err = c.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, o, metav1.CreateOptions{})
	case *admissionv1.ValidatingAdmissionPolicyBinding:
		o.Name = ClusterScopedName(ns, o.Name)
		o.Spec.PolicyName = ClusterScopedName(ns, o.Spec.PolicyName)
		// The binding applies to the scenario's namespace only.
		o.Spec.MatchResources = &admissionv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{
			MatchLabels: map[string]string{corev1.LabelMetadataName: ns}}}
		if _, err = c.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Create(ctx, o, metav1.CreateOptions{}); err == nil {
			err = waitDenied(ctx, c, ns)
		}
	case *admissionv1.ValidatingWebhookConfiguration:
		o.Name = ClusterScopedName(ns, o.Name)
		if err = scopeWebhooks(ctx, c, ns, o.Webhooks); err != nil {
			return err
		}
		if _, err = c.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, o, metav1.CreateOptions{}); err == nil {
			err = waitDenied(ctx, c, ns)
		}
	}
	if err != nil {
		return fmt.Errorf("creating %T in %s: %w", o, ns, err)
	}
	return nil
}

// Delete removes what Apply created: the namespace (and with it every
// namespaced object) and the scenario's cluster-scoped objects, and starts
// the kubelets it stopped. Node taints stay: UntaintNodes removes them.
func Delete(ctx context.Context, c kubernetes.Interface, s Scenario, ns string) error {
	raw, err := s.Manifest()
	if err != nil {
		return err
	}
	objs, err := Decode(raw)
	if err != nil {
		return err
	}
	var errs []error
	if s.StopKubelet {
		// Before the namespace: its pods on a stopped node would stay
		// Terminating, and the namespace with them.
		errs = append(errs, StartKubelets(ctx, c))
	}
	for _, o := range objs {
		switch o := o.(type) {
		case *admissionv1.ValidatingAdmissionPolicyBinding:
			errs = append(errs, ignoreNotFound(c.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Delete(ctx, ClusterScopedName(ns, o.Name), metav1.DeleteOptions{})))
		case *admissionv1.ValidatingAdmissionPolicy:
			errs = append(errs, ignoreNotFound(c.AdmissionregistrationV1().ValidatingAdmissionPolicies().Delete(ctx, ClusterScopedName(ns, o.Name), metav1.DeleteOptions{})))
		case *admissionv1.ValidatingWebhookConfiguration:
			errs = append(errs, ignoreNotFound(c.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(ctx, ClusterScopedName(ns, o.Name), metav1.DeleteOptions{})))
		case *storagev1.StorageClass:
			errs = append(errs, ignoreNotFound(c.StorageV1().StorageClasses().Delete(ctx, ClusterScopedName(ns, o.Name), metav1.DeleteOptions{})))
		case *nodev1.RuntimeClass:
			errs = append(errs, ignoreNotFound(c.NodeV1().RuntimeClasses().Delete(ctx, ClusterScopedName(ns, o.Name), metav1.DeleteOptions{})))
		case *networkingv1.IngressClass:
			errs = append(errs, ignoreNotFound(c.NetworkingV1().IngressClasses().Delete(ctx, ClusterScopedName(ns, o.Name), metav1.DeleteOptions{})))
		case *gatewayv1.GatewayClass:
			errs = append(errs, ignoreNotFound(c.Discovery().RESTClient().Delete().AbsPath(gatewayAPIPath("", "gatewayclasses"), ClusterScopedName(ns, o.Name)).Do(ctx).Error()))
		}
	}
	errs = append(errs, ignoreNotFound(c.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})))
	return errors.Join(errs...)
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// gatewayAPIPath is the REST path of a Gateway API resource ("" namespace:
// cluster-scoped).
func gatewayAPIPath(ns, resource string) string {
	if ns == "" {
		return path.Join("/apis", gatewayv1.GroupVersion.String(), resource)
	}
	return path.Join("/apis", gatewayv1.GroupVersion.String(), "namespaces", ns, resource)
}

// createGatewayAPI creates a Gateway API object as JSON (client-go has no
// typed client for it; the lab installs its CRDs at up).
func createGatewayAPI(ctx context.Context, c kubernetes.Interface, ns, resource string, o runtime.Object) error {
	gvks, _, err := kinds.ObjectKinds(o)
	if err != nil {
		return err
	}
	o.GetObjectKind().SetGroupVersionKind(gvks[0])
	if m, ok := o.(metav1.Object); ok {
		m.SetNamespace(ns)
	}
	body, err := json.Marshal(o)
	if err != nil {
		return err
	}
	return c.Discovery().RESTClient().Post().AbsPath(gatewayAPIPath(ns, resource)).SetHeader("Content-Type", "application/json").Body(body).Do(ctx).Error()
}
