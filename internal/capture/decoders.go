package capture

import (
	"encoding/json"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	eventsv1 "k8s.io/api/events/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// groupKind is an object's API group and kind as a file names them.
type groupKind struct{ group, kind string }

// decoders are the kinds a bundle decodes into typed objects, each where
// its reader and its walk look for it; any other kind is kept as it is
// (Bundle.Objects), for the walk of a kind by its own status.
var decoders = func() map[groupKind]func(*Bundle, json.RawMessage) error {
	route := func(decode func(*Bundle, json.RawMessage) (metav1.Object, error)) func(*Bundle, json.RawMessage) error {
		return func(b *Bundle, raw json.RawMessage) error {
			obj, err := decode(b, raw)
			if err != nil {
				return err
			}
			r, err := chain.RouteOf(obj)
			if err == nil {
				b.Routes = append(b.Routes, r)
			}
			return err
		}
	}
	m := map[groupKind]func(*Bundle, json.RawMessage) error{}
	for _, d := range []struct {
		kind   string
		groups []string
		decode func(*Bundle, json.RawMessage) error
	}{
		{"Deployment", []string{"apps", "extensions"}, into(func(b *Bundle) *[]appsv1.Deployment { return &b.Deployments })},
		{"StatefulSet", []string{"apps"}, into(func(b *Bundle) *[]appsv1.StatefulSet { return &b.StatefulSets })},
		{"DaemonSet", []string{"apps", "extensions"}, into(func(b *Bundle) *[]appsv1.DaemonSet { return &b.DaemonSets })},
		{"ControllerRevision", []string{"apps"}, into(func(b *Bundle) *[]appsv1.ControllerRevision { return &b.Revisions })},
		{"ReplicaSet", []string{"apps", "extensions"}, into(func(b *Bundle) *[]appsv1.ReplicaSet { return &b.ReplicaSets })},
		{"Job", []string{"batch"}, into(func(b *Bundle) *[]batchv1.Job { return &b.Jobs })},
		{"CronJob", []string{"batch"}, into(func(b *Bundle) *[]batchv1.CronJob { return &b.CronJobs })},
		{"Pod", []string{""}, into(func(b *Bundle) *[]corev1.Pod { return &b.Pods })},
		{"PersistentVolumeClaim", []string{""}, into(func(b *Bundle) *[]corev1.PersistentVolumeClaim { return &b.Claims })},
		{"Node", []string{""}, into(func(b *Bundle) *[]corev1.Node { return &b.Nodes })},
		{"Service", []string{""}, func(b *Bundle, raw json.RawMessage) error {
			b.ServicesRead = true
			return decodeInto(b, raw, &b.Services)
		}},
		{"EndpointSlice", []string{"discovery.k8s.io"}, into(func(b *Bundle) *[]discoveryv1.EndpointSlice { return &b.EndpointSlices })},
		{"NetworkPolicy", []string{"networking.k8s.io"}, into(func(b *Bundle) *[]networkingv1.NetworkPolicy { return &b.Policies })},
		{"Ingress", []string{"networking.k8s.io"}, into(func(b *Bundle) *[]networkingv1.Ingress { return &b.Ingresses })},
		{"IngressClass", []string{"networking.k8s.io"}, into(func(b *Bundle) *[]networkingv1.IngressClass { return &b.IngressClasses })},
		{"Gateway", []string{chain.GatewayGroup}, into(func(b *Bundle) *[]gatewayv1.Gateway { return &b.Gateways })},
		{"GatewayClass", []string{chain.GatewayGroup}, into(func(b *Bundle) *[]gatewayv1.GatewayClass { return &b.GatewayClasses })},
		{string(chain.KindHTTPRoute), []string{chain.GatewayGroup}, route(lenientObject[*gatewayv1.HTTPRoute])},
		{string(chain.KindGRPCRoute), []string{chain.GatewayGroup}, route(lenientObject[*gatewayv1.GRPCRoute])},
		{string(chain.KindTLSRoute), []string{chain.GatewayGroup}, route(lenientObject[*gatewayv1.TLSRoute])},
		{"Event", []string{""}, func(b *Bundle, raw json.RawMessage) error {
			e, err := lenient[corev1.Event](b, raw)
			if err == nil {
				b.Events = append(b.Events, chain.EventFromCore(&e))
			}
			return err
		}},
		{"Event", []string{"events.k8s.io"}, func(b *Bundle, raw json.RawMessage) error {
			e, err := lenient[eventsv1.Event](b, raw)
			if err == nil {
				b.Events = append(b.Events, chain.EventFromEventsV1(&e))
			}
			return err
		}},
	} {
		for _, g := range d.groups {
			m[groupKind{g, d.kind}] = d.decode
		}
	}
	return m
}()

// into is a decoder that appends to one of the bundle's typed lists.
func into[T any](list func(*Bundle) *[]T) func(*Bundle, json.RawMessage) error {
	return func(b *Bundle, raw json.RawMessage) error { return decodeInto(b, raw, list(b)) }
}

// lenientObject is lenient for a pointer type, as a metav1.Object.
func lenientObject[T metav1.Object](b *Bundle, raw json.RawMessage) (metav1.Object, error) {
	return lenient[T](b, raw)
}
