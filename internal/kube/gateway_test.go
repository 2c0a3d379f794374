package kube

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/internal/capture"
)

// gatewayFake is a fake clientset with a fake dynamic client beside it,
// as NewClient's is: the Gateway API's kinds are read through the latter.
type gatewayFake struct {
	*fake.Clientset
	dyn *dynamicfake.FakeDynamicClient
}

func (g gatewayFake) Dynamic() dynamic.Interface { return g.dyn }

// newGatewayFake holds the typed objects in the clientset and the Gateway
// API's in the dynamic client (every kind listable; the CRDs not
// installed when gw is nil: each request then answers 404 as an API
// server does for a resource it does not serve).
func newGatewayFake(t *testing.T, typed []runtime.Object, gw []runtime.Object) gatewayFake {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := gatewayv1.Install(scheme); err != nil {
		t.Fatal(err)
	}
	kinds := map[schema.GroupVersionResource]string{}
	for _, k := range []chain.Kind{chain.KindGateway, chain.KindHTTPRoute, chain.KindGRPCRoute, chain.KindTLSRoute, "GatewayClass"} {
		kinds[chain.GatewayResource(k)] = string(k) + "List"
	}
	kinds[schema.GroupVersionResource{Group: chain.RolloutAPI.Group, Version: chain.RolloutAPI.Version, Resource: chain.RolloutAPI.Resource}] = "RolloutList"
	cs, _ := chain.RowOf(chain.KindCloneSet)
	kinds[gvrOf(cs.API())] = "CloneSetList"
	for _, api := range chain.Appliers {
		kinds[gvrOf(api)] = api.Kind + "List"
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), kinds)
	for _, o := range gw {
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		if err != nil {
			t.Fatal(err)
		}
		gvks, _, err := scheme.ObjectKinds(o)
		if err != nil {
			t.Fatal(err)
		}
		obj := &unstructured.Unstructured{Object: u}
		obj.SetGroupVersionKind(gvks[0])
		// By its resource: the fake's guess from the kind says
		// "gatewaies".
		if err := dyn.Tracker().Create(chain.GatewayResource(chain.Kind(gvks[0].Kind)), obj, obj.GetNamespace()); err != nil {
			t.Fatal(err)
		}
	}
	return gatewayFake{Clientset: fake.NewClientset(typed...), dyn: dyn}
}

func gatewayObjects() []runtime.Object {
	accepted := []metav1.Condition{{Type: "Accepted", Status: metav1.ConditionTrue, Reason: "Accepted"}}
	port := gatewayv1.PortNumber(80)
	other := gatewayv1.Namespace("infra")
	return []runtime.Object{
		&gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "edge"}, Spec: gatewayv1.GatewayClassSpec{ControllerName: "example.net/edge"},
			Status: gatewayv1.GatewayClassStatus{Conditions: accepted}},
		&gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "web"}, Spec: gatewayv1.GatewaySpec{GatewayClassName: "edge"}},
		&gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "infra", Name: "shared"}, Spec: gatewayv1.GatewaySpec{GatewayClassName: "edge"}},
		&gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "web"}, Spec: gatewayv1.HTTPRouteSpec{
			CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: "web"}, {Name: "shared", Namespace: &other}}},
			Rules: []gatewayv1.HTTPRouteRule{{BackendRefs: []gatewayv1.HTTPBackendRef{{BackendRef: gatewayv1.BackendRef{
				BackendObjectReference: gatewayv1.BackendObjectReference{Name: "web", Port: &port}}}}}}}},
		&gatewayv1.GRPCRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "web"}},
		&gatewayv1.TLSRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "web"}},
	}
}

// gatewayRequests lists the dynamic client's requests as "verb resource
// namespace", sorted.
func gatewayRequests(c gatewayFake) []string {
	var out []string
	for _, a := range c.dyn.Actions() {
		out = append(out, strings.TrimSpace(a.GetVerb()+" "+a.GetResource().Resource+" "+a.GetNamespace()))
	}
	slices.Sort(out)
	return out
}

// TestReadGatewayAPI: a route's read is one round trip (its GET beside
// the classes, the namespace's Gateways and a Service's lists) plus one
// GET per parent Gateway of another namespace; a Gateway's is its GET,
// the classes and its events.
func TestReadGatewayAPI(t *testing.T) {
	c := newGatewayFake(t, cluster(), gatewayObjects())
	r := &Reader{Client: c, Now: func() time.Time { return t0 }}
	snap, err := r.Read(context.Background(), "prod", chain.Ref{Kind: chain.KindHTTPRoute, Name: "web"})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Route == nil || snap.Route.Kind != chain.KindHTTPRoute || len(snap.Route.BackendRefs) != 1 {
		t.Fatalf("route not read as a Route: %+v", snap.Route)
	}
	var gws []string
	for _, g := range snap.Gateways {
		gws = append(gws, g.Namespace+"/"+g.Name)
	}
	slices.Sort(gws)
	if want := []string{"infra/shared", "prod/web"}; !slices.Equal(gws, want) {
		t.Errorf("Gateways %v, want %v (the namespace's and the parent of infra)", gws, want)
	}
	if len(snap.GatewayClasses) != 1 {
		t.Errorf("GatewayClasses %d, want 1", len(snap.GatewayClasses))
	}
	wantDyn := []string{"get gateways infra", "get httproutes prod", "list gatewayclasses", "list gateways prod"}
	if got := gatewayRequests(c); !slices.Equal(got, wantDyn) {
		t.Errorf("Gateway API requests %v, want %v", got, wantDyn)
	}
	// services, endpointslices, pods, events, deployments, statefulsets, daemonsets
	if want := len(wantDyn) + 7; snap.Requests != want {
		t.Errorf("Requests %d, want %d", snap.Requests, want)
	}

	c = newGatewayFake(t, cluster(), gatewayObjects())
	r = &Reader{Client: c, Now: func() time.Time { return t0 }}
	snap, err = r.Read(context.Background(), "prod", chain.Ref{Kind: chain.KindGateway, Name: "web"})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Gateway == nil || len(snap.Gateways) != 1 || snap.Requests != 3 {
		t.Errorf("gateway/web: Gateway %v, %d Gateways, %d requests; want it, 1, 3 (GET, classes, events)", snap.Gateway != nil, len(snap.Gateways), snap.Requests)
	}
	for _, a := range c.Actions() {
		if a.GetResource().Resource != "events" {
			t.Errorf("gateway/web read %s %s: a Gateway's chain reads no Service or pod", a.GetVerb(), a.GetResource().Resource)
		}
	}
}

// TestReadGatewayAPIErrors: a route that does not exist is a NotFoundError
// with its hint; a cluster without the CRDs says so, naming the CRD.
func TestReadGatewayAPIErrors(t *testing.T) {
	c := newGatewayFake(t, cluster(), gatewayObjects())
	r := &Reader{Client: c, Now: func() time.Time { return t0 }}
	_, err := r.Read(context.Background(), "prod", chain.Ref{Kind: chain.KindHTTPRoute, Name: "nope"})
	var nf *NotFoundError
	if !errors.As(err, &nf) || !strings.Contains(nf.Error(), "httproute") {
		t.Errorf("missing route: %v, want a NotFoundError naming the httproute", err)
	}
	served := &NotServedError{Resource: chain.GatewayResource(chain.KindTLSRoute)}
	if !strings.Contains(served.Error(), "kubectl get crd tlsroutes.gateway.networking.k8s.io") {
		t.Errorf("NotServedError says %q; it should name the CRD to look for", served.Error())
	}
	r = &Reader{Client: fake.NewClientset(cluster()...), Now: func() time.Time { return t0 }}
	if _, err := r.Read(context.Background(), "prod", chain.Ref{Kind: chain.KindGateway, Name: "web"}); err == nil || !strings.Contains(err.Error(), "Gateway API") {
		t.Errorf("a client without a dynamic client: %v, want an error naming the Gateway API", err)
	}
}

// TestManyGatewayAPI: a namespace's read holds its Gateways, GatewayClasses
// and routes (one list each), and a cluster without the CRDs, whose lists
// answer 404, reads as one without such objects.
func TestManyGatewayAPI(t *testing.T) {
	c := newGatewayFake(t, cluster(), gatewayObjects())
	r := &Reader{Client: c, Now: func() time.Time { return t0 }}
	b, gaps, _, err := r.Many(context.Background(), "prod", "")
	if err != nil || len(gaps) != 0 {
		t.Fatalf("Many: %v, gaps %v", err, gaps)
	}
	if len(b.Gateways) != 1 || len(b.GatewayClasses) != 1 || len(b.Routes) != 3 {
		t.Errorf("%d Gateways, %d classes, %d routes; want 1 (prod's), 1, 3", len(b.Gateways), len(b.GatewayClasses), len(b.Routes))
	}
	want := []string{"list clonesets prod", "list gatewayclasses", "list gateways prod", "list grpcroutes prod", "list httproutes prod", "list rollouts prod", "list tlsroutes prod"}
	if got := gatewayRequests(c); !slices.Equal(got, want) {
		t.Errorf("Gateway API requests %v, want %v", got, want)
	}

	c = newGatewayFake(t, cluster(), nil)
	c.dyn.PrependReactor("list", "*", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewNotFound(schema.GroupResource{}, "")
	})
	r = &Reader{Client: c, Now: func() time.Time { return t0 }}
	b, gaps, _, err = r.Many(context.Background(), "prod", "")
	if err != nil || len(gaps) != 0 || len(b.Routes) != 0 || len(b.Deployments) != 2 {
		t.Errorf("without the CRDs: err %v, gaps %v, %d routes, %d Deployments; want none, none, 0, 2", err, gaps, len(b.Routes), len(b.Deployments))
	}
}

// TestManyRollouts: a namespace's read lists its Argo Rollouts beside the
// Deployments (so -A and --all judge them), with the ReplicaSets they own.
func TestManyRollouts(t *testing.T) {
	c := newGatewayFake(t, cluster(), nil)
	ro := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{
		"selector": map[string]any{"matchLabels": map[string]any{"app": "canary"}},
		"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "canary"}}}}}}
	ro.SetAPIVersion(chain.RolloutAPI.APIVersion())
	ro.SetKind(chain.RolloutAPI.Kind)
	ro.SetNamespace("prod")
	ro.SetName("canary")
	gvr := schema.GroupVersionResource{Group: chain.RolloutAPI.Group, Version: chain.RolloutAPI.Version, Resource: chain.RolloutAPI.Resource}
	if err := c.dyn.Tracker().Create(gvr, ro, "prod"); err != nil {
		t.Fatal(err)
	}
	b, _, _, err := (&Reader{Client: c, Now: func() time.Time { return t0 }}).Many(context.Background(), "prod", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Rollouts) != 1 || b.Rollouts[0].Name != "canary" || !slices.ContainsFunc(b.Workloads("prod"), func(w capture.Workload) bool { return w.Kind == chain.KindRollout }) {
		t.Errorf("rollouts %v; want rollout/canary among the namespace's workloads", b.Rollouts)
	}
}
