package fill

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
)

// servedPod is a written pod as the EndpointSlice controller sees it.
type servedPod struct {
	name, ip, node string
	ready          bool
}

// writeService writes the Service of a Deployment (its name, selecting its
// pod template's labels, port 80 to the first port its container declares,
// 8080 when none) and the EndpointSlice the EndpointSlice controller would
// write for it: each pod that has an address, ready as the pod is. The
// frozen lab runs no controller that would write it.
func writeService(ctx context.Context, c kubernetes.Interface, ns, name string, tmpl *corev1.PodTemplateSpec, pods []servedPod) error {
	target := int32(8080)
	for _, ctr := range tmpl.Spec.Containers {
		if len(ctr.Ports) > 0 {
			target = ctr.Ports[0].ContainerPort
			break
		}
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": name}},
		Spec: corev1.ServiceSpec{Selector: tmpl.Labels, Ports: []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(target)}}}}
	if _, err := create(ctx, c.CoreV1().Services(ns), svc); err != nil {
		return fmt.Errorf("service %s/%s: %w", ns, name, err)
	}
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-fill1", Labels: map[string]string{
			discoveryv1.LabelServiceName: name, discoveryv1.LabelManagedBy: "endpointslice-controller.k8s.io"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: ptr("http"), Port: ptr(target), Protocol: ptr(corev1.ProtocolTCP)}},
	}
	for _, p := range pods {
		if p.ip == "" {
			continue
		}
		slice.Endpoints = append(slice.Endpoints, discoveryv1.Endpoint{Addresses: []string{p.ip}, NodeName: ptr(p.node),
			Conditions: discoveryv1.EndpointConditions{Ready: ptr(p.ready), Serving: ptr(p.ready), Terminating: ptr(false)},
			TargetRef:  &corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: p.name}})
	}
	if _, err := create(ctx, c.DiscoveryV1().EndpointSlices(ns), slice); err != nil {
		return fmt.Errorf("endpointslice %s/%s: %w", ns, slice.Name, err)
	}
	return nil
}

// creator is a typed client's Create.
type creator[T metav1.Object] interface {
	Create(context.Context, T, metav1.CreateOptions) (T, error)
}

// create creates obj, retrying what a busy API server refuses; one an
// earlier try created is fine.
func create[T metav1.Object](ctx context.Context, c creator[T], obj T) (T, error) {
	out := obj
	err := retry(ctx, func() error {
		created, err := c.Create(ctx, obj, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		if err == nil {
			out = created
		}
		return err
	})
	return out, err
}

// podReady says the status holds condition Ready True.
func podReady(s corev1.PodStatus) bool {
	for _, c := range s.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
