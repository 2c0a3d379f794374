package kube

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

var widgets = chain.APIResource{Group: "example.com", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true}

// TestReadResource checks a resource kind's read: the object through the
// dynamic client, the namespace's workloads and the object's events in
// the same round trip, then each workload it owns with its own chain.
func TestReadResource(t *testing.T) {
	w := &unstructured.Unstructured{}
	w.SetAPIVersion(widgets.APIVersion())
	w.SetKind(widgets.Kind)
	w.SetNamespace("prod")
	w.SetName("shop")
	w.SetUID("uid-shop")
	gvr := schema.GroupVersionResource{Group: widgets.Group, Version: widgets.Version, Resource: widgets.Resource}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{gvr: "WidgetList"})
	if err := dyn.Tracker().Create(gvr, w, "prod"); err != nil {
		t.Fatal(err)
	}
	objs := cluster()
	for _, o := range objs {
		if d, ok := o.(*appsv1.Deployment); ok && d.Name == "web" {
			d.OwnerReferences = []metav1.OwnerReference{{APIVersion: widgets.APIVersion(), Kind: widgets.Kind, Name: "shop", UID: "uid-shop"}}
		}
	}
	// And a pod it makes itself, as an OpenKruise CloneSet does.
	objs = append(objs, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "shop-0",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: widgets.APIVersion(), Kind: widgets.Kind, Name: "shop", UID: "uid-shop", Controller: ptr.To(true)}}}})
	c := gatewayFake{Clientset: fake.NewClientset(objs...), dyn: dyn}
	ref := chain.ResourceRef(widgets, "shop")
	r := &Reader{Client: c, Now: func() time.Time { return t0 }, APIs: map[string]chain.APIResource{APIKey(ref): widgets}}
	snap, err := r.Read(context.Background(), "prod", ref)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Object == nil || snap.Object.GetUID() != "uid-shop" || snap.API == nil || snap.API.Resource != "widgets" {
		t.Fatalf("object %v, api %v", snap.Object, snap.API)
	}
	if len(snap.Behind) != 2 || snap.Behind[0].Ref() != (chain.Ref{Kind: chain.KindDeployment, Name: "web"}) ||
		snap.Behind[1].Ref() != (chain.Ref{Kind: chain.KindPod, Name: "shop-0"}) {
		t.Fatalf("owned %d, want deployment/web and pod/shop-0 only (deployment/api is not owned)", len(snap.Behind))
	}
	// GET, the five workload lists, the pods and the events: one round
	// trip; then the owned Deployment's and pod's own reads.
	if want := 8 + snap.Behind[0].Requests + snap.Behind[1].Requests; snap.Requests != want {
		t.Errorf("requests %d, want %d", snap.Requests, want)
	}

	_, err = r.Read(context.Background(), "prod", chain.ResourceRef(widgets, "nope"))
	var nf *NotFoundError
	if !errors.As(err, &nf) || nf.What() != "widget" {
		t.Errorf("missing widget: %v, want a NotFoundError naming the widget", err)
	}
	if _, err := (&Reader{Client: c}).Read(context.Background(), "prod", ref); err == nil {
		t.Error("a resource kind not resolved through discovery was read")
	}
}

// TestReadProduced checks that only the producers of the missing Secrets
// are kept, one list per producer kind served and one of its attempts
// (a Certificate's CertificateRequests), each attached to its owner.
func TestReadProduced(t *testing.T) {
	certs := chain.APIResource{Group: "cert-manager.io", Version: "v1", Resource: "certificates", Kind: "Certificate", Namespaced: true}
	gvr := schema.GroupVersionResource{Group: certs.Group, Version: certs.Version, Resource: certs.Resource}
	crs := gvr.GroupVersion().WithResource("certificaterequests")
	issuers := gvr.GroupVersion().WithResource("issuers")
	orders := chain.APIResource{Group: chain.ACMEGroup, Version: "v1", Resource: "orders", Kind: "Order", Namespaced: true}
	challenges := chain.APIResource{Group: chain.ACMEGroup, Version: "v1", Resource: "challenges", Kind: "Challenge", Namespaced: true}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{gvr: "CertificateList", crs: "CertificateRequestList", issuers: "IssuerList",
		gvrOf(orders): "OrderList", gvrOf(challenges): "ChallengeList"})
	for name, secret := range map[string]string{"web": "web-tls", "api": "api-tls"} {
		// Their issuerRef names an Issuer that does not exist.
		c := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"secretName": secret, "issuerRef": map[string]any{"name": "letsencrypt-prod"}}}}
		c.SetAPIVersion(certs.APIVersion())
		c.SetKind(certs.Kind)
		c.SetNamespace("prod")
		c.SetName(name)
		c.SetUID(types.UID("uid-" + name))
		if err := dyn.Tracker().Create(gvr, c, "prod"); err != nil {
			t.Fatal(err)
		}
		cr := &unstructured.Unstructured{Object: map[string]any{}}
		cr.SetAPIVersion(certs.APIVersion())
		cr.SetKind("CertificateRequest")
		cr.SetNamespace("prod")
		cr.SetName(name + "-1")
		cr.SetUID(types.UID("uid-" + name + "-1"))
		cr.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: certs.APIVersion(), Kind: certs.Kind, Name: name, UID: c.GetUID(), Controller: ptr.To(true)}})
		if err := dyn.Tracker().Create(crs, cr, "prod"); err != nil {
			t.Fatal(err)
		}
		// Its ACME Order and the Order's Challenge, each controlled by
		// the one before.
		owner := cr
		for _, api := range []chain.APIResource{orders, challenges} {
			o := &unstructured.Unstructured{Object: map[string]any{}}
			o.SetAPIVersion(api.APIVersion())
			o.SetKind(api.Kind)
			o.SetNamespace("prod")
			o.SetName(name + "-1-" + strings.ToLower(api.Kind))
			o.SetUID(types.UID("uid-" + o.GetName()))
			o.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: owner.GetAPIVersion(), Kind: owner.GetKind(), Name: owner.GetName(), UID: owner.GetUID(), Controller: ptr.To(true)}})
			if err := dyn.Tracker().Create(gvrOf(api), o, "prod"); err != nil {
				t.Fatal(err)
			}
			owner = o
		}
	}
	r := &Reader{Client: gatewayFake{Clientset: fake.NewClientset(), dyn: dyn}}
	snap := &chain.Snapshot{Namespace: "prod"}
	if err := r.ReadProduced(context.Background(), snap, []string{"web-tls"}, []chain.APIResource{certs}); err != nil {
		t.Fatal(err)
	}
	if len(snap.Produced) != 1 || snap.Produced[0].Object.GetName() != "web" || snap.Produced[0].Secret != "web-tls" || snap.Requests != 3 {
		t.Fatalf("produced %+v, %d requests; want certificate web writing web-tls, 3 requests (the lists, then its Issuer's GET)", snap.Produced, snap.Requests)
	}
	if m := snap.Produced[0].Missing; len(m) != 1 || m[0] != `Issuer "letsencrypt-prod"` {
		t.Errorf("missing %v, want its Issuer letsencrypt-prod", m)
	}
	if a := snap.Produced[0].Attempts; len(a) != 1 || a[0].GetName() != "web-1" {
		t.Errorf("attempts of certificate web: %v, want its CertificateRequest web-1 only", a)
	}
	// With the ACME kinds served, the Order and Challenge of certificate
	// web's request are its steps, in the same round trip.
	snap = &chain.Snapshot{Namespace: "prod"}
	if err := r.ReadProduced(context.Background(), snap, []string{"web-tls"}, []chain.APIResource{certs, orders, challenges}); err != nil {
		t.Fatal(err)
	}
	if len(snap.Produced) != 1 || snap.Requests != 5 {
		t.Fatalf("produced %d, %d requests; want certificate web, 5 requests (four lists, then its Issuer's GET)", len(snap.Produced), snap.Requests)
	}
	var steps []string
	for _, st := range snap.Produced[0].Steps {
		steps = append(steps, st.GetName())
	}
	if !slices.Equal(steps, []string{"web-1-order", "web-1-challenge"}) {
		t.Errorf("steps of certificate web: %v, want its Order and its Challenge only", steps)
	}
	snap = &chain.Snapshot{Namespace: "prod"}
	if err := r.ReadProduced(context.Background(), snap, nil, []chain.APIResource{certs}); err != nil || snap.Requests != 0 {
		t.Errorf("no Secret missing: %d requests (%v), want none", snap.Requests, err)
	}
}

// TestReadApplier: the GitOps object that applied a revision is one GET
// where the workload says its namespace, else one list by name across
// namespaces; none found is no error.
func TestReadApplier(t *testing.T) {
	api := chain.ArgoApplication
	gvr := gvrOf(api)
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{gvr: "ApplicationList"})
	for _, n := range []string{"api", "web"} {
		app := &unstructured.Unstructured{}
		app.SetAPIVersion(api.APIVersion())
		app.SetKind(api.Kind)
		app.SetNamespace("argocd")
		app.SetName(n)
		if err := dyn.Tracker().Create(gvr, app, "argocd"); err != nil {
			t.Fatal(err)
		}
	}
	r := &Reader{Client: gatewayFake{Clientset: fake.NewClientset(), dyn: dyn}}
	ctx := context.Background()
	for _, ns := range []string{"argocd", ""} {
		obj, err := r.ReadApplier(ctx, api, ns, "web")
		if err != nil || obj == nil || obj.GetName() != "web" {
			t.Errorf("namespace %q: %v, %v; want application web", ns, obj, err)
		}
	}
	if obj, err := r.ReadApplier(ctx, api, "argocd", "gone"); obj != nil || err != nil {
		t.Errorf("a missing Application: %v, %v; want none, no error", obj, err)
	}
	verbs := []string{}
	for _, a := range dyn.Actions() {
		verbs = append(verbs, a.GetVerb())
	}
	if strings.Join(verbs, ",") != "get,list,get" {
		t.Errorf("requests %v, want get, list, get", verbs)
	}
}
