package kube

import (
	"context"
	"errors"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// TestReadCloneSet checks an OpenKruise CloneSet's read: the CloneSet
// through the dynamic client beside the Services and autoscalers, then
// the pods its selector matches and the events, the common way; a
// missing CloneSet is not found, and a cluster without OpenKruise says
// so.
func TestReadCloneSet(t *testing.T) {
	row, _ := chain.RowOf(chain.KindCloneSet)
	gvr := gvrOf(row.API())
	cs := cloneSetObject()
	cs.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "kubectl"}})
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{gvr: "CloneSetList"})
	if err := dyn.Tracker().Create(gvr, cs, "prod"); err != nil {
		t.Fatal(err)
	}
	pod := cloneSetPod()
	other := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "api-1", Labels: map[string]string{"app": "api"}}}
	hpa := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "web"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{
			APIVersion: row.API().APIVersion(), Kind: string(chain.KindCloneSet), Name: "web"}}}
	ev := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "web.1"}, Reason: "FailedCreate", Type: corev1.EventTypeWarning,
		InvolvedObject: corev1.ObjectReference{Kind: string(chain.KindCloneSet), Namespace: "prod", Name: "web", UID: "uid-cs"},
		Message:        `failed to create pod: pods "web-q8z7r" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=10, limited: pods=10, pod: {"metadata":{"name":"web-q8z7r"}}`}
	c := gatewayFake{Clientset: fake.NewClientset(pod, other, hpa, ev), dyn: dyn}
	r := &Reader{Client: c, Now: func() time.Time { return t0 }}
	snap, err := r.Read(context.Background(), "prod", chain.Ref{Kind: chain.KindCloneSet, Name: "web"})
	if err != nil {
		t.Fatal(err)
	}
	if snap.CloneSet == nil || snap.CloneSet.GetUID() != "uid-cs" || snap.Workload() == nil || snap.CloneSet.GetManagedFields() != nil {
		t.Fatalf("cloneset %+v, want it held without its managed fields", snap.CloneSet)
	}
	if len(snap.Pods) != 1 || snap.Pods[0].Name != "web-x7k2p" {
		t.Errorf("pods %v, want web-x7k2p alone (by the selector)", snap.Pods)
	}
	if len(snap.Autoscalers) != 1 {
		t.Errorf("autoscalers %d, want the one that scales it", len(snap.Autoscalers))
	}
	if len(snap.Events) != 1 || snap.Events[0].Object.Kind != string(chain.KindCloneSet) {
		t.Errorf("events %+v, want its FailedCreate", snap.Events)
	}
	// GET, the Services and autoscalers, then pods and events.
	if snap.Requests != 5 {
		t.Errorf("requests %d, want 5", snap.Requests)
	}

	_, err = r.Read(context.Background(), "prod", chain.Ref{Kind: chain.KindCloneSet, Name: "nope"})
	var nf *NotFoundError
	if !errors.As(err, &nf) || nf.What() != "cloneset" {
		t.Errorf("missing cloneset: %v, want a NotFoundError naming the cloneset", err)
	}

	// The API server's 404 for a resource it does not serve names no
	// object.
	bare := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{gvr: "CloneSetList"})
	bare.PrependReactor("get", "clonesets", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewGenericServerResponse(404, "get", schema.GroupResource{}, "", "", 0, true)
	})
	r = &Reader{Client: gatewayFake{Clientset: fake.NewClientset(), dyn: bare}}
	_, err = r.Read(context.Background(), "prod", chain.Ref{Kind: chain.KindCloneSet, Name: "web"})
	var ns *NotServedError
	if !errors.As(err, &ns) || ns.Error() != "this cluster does not serve clonesets.apps.kruise.io/v1alpha1: OpenKruise is not installed (kubectl get crd clonesets.apps.kruise.io)" {
		t.Errorf("no OpenKruise: %v, want a NotServedError saying so", err)
	}
}

// cloneSetPod is a pod cloneset/web in prod controls, not ready.
func cloneSetPod() *corev1.Pod {
	row, _ := chain.RowOf(chain.KindCloneSet)
	owner := []metav1.OwnerReference{{APIVersion: row.API().APIVersion(), Kind: string(chain.KindCloneSet), Name: "web", UID: "uid-cs", Controller: ptr.To(true)}}
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "web-x7k2p", Labels: map[string]string{"app": "web"}, OwnerReferences: owner}}
}

// TestCloneSetInEveryRead: the reads that list workloads by the kinds
// table find a CloneSet where they found the built-in kinds: -A's mirror
// holds it, a Service that selects its pods quotes its chain, and an
// operator's object that owns it follows its chain.
func TestCloneSetInEveryRead(t *testing.T) {
	row, _ := chain.RowOf(chain.KindCloneSet)
	gvr := gvrOf(row.API())
	widgetsGVR := schema.GroupVersionResource{Group: widgets.Group, Version: widgets.Version, Resource: widgets.Resource}
	kinds := map[schema.GroupVersionResource]string{widgetsGVR: "WidgetList", chain.GatewayResource("GatewayClass"): "GatewayClassList"}
	for _, r := range chain.KindTable() {
		if r.CRD {
			kinds[gvrOf(r.API())] = string(r.Kind) + "List"
		}
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), kinds)
	cs := cloneSetObject()
	cs.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: widgets.APIVersion(), Kind: widgets.Kind, Name: "shop", UID: "uid-shop", Controller: ptr.To(true)}})
	w := &unstructured.Unstructured{}
	w.SetAPIVersion(widgets.APIVersion())
	w.SetKind(widgets.Kind)
	w.SetNamespace("prod")
	w.SetName("shop")
	w.SetUID("uid-shop")
	for _, o := range []struct {
		gvr schema.GroupVersionResource
		obj *unstructured.Unstructured
	}{{gvr, cs}, {widgetsGVR, w}} {
		if err := dyn.Tracker().Create(o.gvr, o.obj, "prod"); err != nil {
			t.Fatal(err)
		}
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "web"}, Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"}}}
	c := gatewayFake{Clientset: fake.NewClientset(cloneSetPod(), svc), dyn: dyn}
	ref := chain.ResourceRef(widgets, "shop")
	r := &Reader{Client: c, Now: func() time.Time { return t0 }, APIs: map[string]chain.APIResource{APIKey(ref): widgets}}
	ctx := context.Background()

	b, _, _, err := r.Many(ctx, "prod", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(b.CloneSets) != 1 || len(b.Workloads("prod")) != 1 || b.Workloads("prod")[0].Ref != (chain.Ref{Kind: chain.KindCloneSet, Name: "web"}) {
		t.Errorf("-A holds %d CloneSets, workloads %v; want cloneset/web", len(b.CloneSets), b.Workloads("prod"))
	}

	snap, err := r.Read(ctx, "prod", chain.Ref{Kind: chain.KindService, Name: "web"})
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Templates) != 1 || snap.Templates[0].Ref.Kind != chain.KindCloneSet {
		t.Errorf("svc/web's templates %+v, want cloneset/web's", snap.Templates)
	}
	if len(snap.Behind) != 1 || snap.Behind[0].Ref() != (chain.Ref{Kind: chain.KindCloneSet, Name: "web"}) {
		t.Errorf("svc/web quotes %d chains, want cloneset/web's", len(snap.Behind))
	}

	snap, err = r.Read(ctx, "prod", ref)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Behind) != 1 || snap.Behind[0].Ref() != (chain.Ref{Kind: chain.KindCloneSet, Name: "web"}) {
		var refs []chain.Ref
		for _, b := range snap.Behind {
			refs = append(refs, b.Ref())
		}
		t.Errorf("widget/shop owns %v, want cloneset/web (its pod is the CloneSet's)", refs)
	}
}

// cloneSetObject is cloneset/web in prod, as the API returns it: one
// replica of app=web.
func cloneSetObject() *unstructured.Unstructured {
	row, _ := chain.RowOf(chain.KindCloneSet)
	cs := &unstructured.Unstructured{Object: map[string]any{
		"spec": map[string]any{"replicas": int64(1), "selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
				"spec": map[string]any{"containers": []any{map[string]any{"name": "web", "image": "registry.lab.internal/web:1"}}}}},
		"status": map[string]any{"observedGeneration": int64(1), "replicas": int64(1)},
	}}
	cs.SetAPIVersion(row.API().APIVersion())
	cs.SetKind(string(chain.KindCloneSet))
	cs.SetNamespace("prod")
	cs.SetName("web")
	cs.SetUID("uid-cs")
	cs.SetGeneration(1)
	return cs
}
