package kube

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	appsv1client "k8s.io/client-go/kubernetes/typed/apps/v1"
	autoscalingv2client "k8s.io/client-go/kubernetes/typed/autoscaling/v2"
	batchv1client "k8s.io/client-go/kubernetes/typed/batch/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	discoveryv1client "k8s.io/client-go/kubernetes/typed/discovery/v1"
	networkingv1client "k8s.io/client-go/kubernetes/typed/networking/v1"
	"k8s.io/client-go/rest"
)

// Client is the part of a clientset the reader uses. Asking for six API
// groups instead of kubernetes.Interface keeps the other groups' typed
// clients out of the binary (12 MB of its budget of 60). A full clientset,
// real or fake, satisfies it.
type Client interface {
	AppsV1() appsv1client.AppsV1Interface
	AutoscalingV2() autoscalingv2client.AutoscalingV2Interface
	BatchV1() batchv1client.BatchV1Interface
	CoreV1() corev1client.CoreV1Interface
	DiscoveryV1() discoveryv1client.DiscoveryV1Interface
	NetworkingV1() networkingv1client.NetworkingV1Interface
}

// GatewayClient is a Client that also reads the Gateway API's kinds,
// which client-go has no typed client for: through the dynamic client, as
// JSON (custom resources are not served as protobuf).
type GatewayClient interface {
	Dynamic() dynamic.Interface
}

type groups struct {
	dynamic    dynamic.Interface
	apps       appsv1client.AppsV1Interface
	autoscale  autoscalingv2client.AutoscalingV2Interface
	batch      batchv1client.BatchV1Interface
	core       corev1client.CoreV1Interface
	discovery  discoveryv1client.DiscoveryV1Interface
	networking networkingv1client.NetworkingV1Interface
}

func (g groups) Dynamic() dynamic.Interface              { return g.dynamic }
func (g groups) AppsV1() appsv1client.AppsV1Interface    { return g.apps }
func (g groups) BatchV1() batchv1client.BatchV1Interface { return g.batch }
func (g groups) AutoscalingV2() autoscalingv2client.AutoscalingV2Interface {
	return g.autoscale
}
func (g groups) CoreV1() corev1client.CoreV1Interface { return g.core }
func (g groups) DiscoveryV1() discoveryv1client.DiscoveryV1Interface {
	return g.discovery
}
func (g groups) NetworkingV1() networkingv1client.NetworkingV1Interface {
	return g.networking
}

// NewClient builds the five typed clients from a REST config; they share
// one HTTP client, so one connection serves the parallel lists.
//
// Responses come as protobuf when the server offers it (every built-in type
// does), JSON otherwise: a namespace's events list is the largest response
// the reader takes, and protobuf is several times cheaper to decode.
func NewClient(cfg *rest.Config) (Client, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	cfg.ContentType = runtime.ContentTypeProtobuf
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the HTTP client: %w", err)
	}
	apps, err := appsv1client.NewForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, err
	}
	autoscale, err := autoscalingv2client.NewForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, err
	}
	batch, err := batchv1client.NewForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, err
	}
	core, err := corev1client.NewForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, err
	}
	discovery, err := discoveryv1client.NewForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, err
	}
	networking, err := networkingv1client.NewForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, err
	}
	jsonCfg := rest.CopyConfig(cfg)
	jsonCfg.AcceptContentTypes, jsonCfg.ContentType = runtime.ContentTypeJSON, runtime.ContentTypeJSON
	dyn, err := dynamic.NewForConfigAndClient(jsonCfg, hc)
	if err != nil {
		return nil, err
	}
	return groups{dynamic: dyn, apps: apps, autoscale: autoscale, batch: batch, core: core, discovery: discovery, networking: networking}, nil
}
