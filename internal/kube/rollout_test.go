package kube

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// TestReadRollout checks an Argo Rollout's read: the Rollout through the
// dynamic client beside the Services, then its ReplicaSets, pods and
// events by its selector (the Deployment's two round trips); a cluster
// without Argo Rollouts says so.
func TestReadRollout(t *testing.T) {
	api := chain.RolloutAPI
	gvr := schema.GroupVersionResource{Group: api.Group, Version: api.Version, Resource: api.Resource}
	ro := &unstructured.Unstructured{Object: map[string]any{
		"spec":   map[string]any{"replicas": int64(1), "selector": map[string]any{"matchLabels": map[string]any{"app": "web"}}},
		"status": map[string]any{"currentPodHash": "abc", "phase": "Healthy", "observedGeneration": "1"},
	}}
	ro.SetAPIVersion(api.APIVersion())
	ro.SetKind(api.Kind)
	ro.SetNamespace("prod")
	ro.SetName("web")
	ro.SetUID("uid-ro")
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{gvr: "RolloutList"})
	if err := dyn.Tracker().Create(gvr, ro, "prod"); err != nil {
		t.Fatal(err)
	}
	owner := []metav1.OwnerReference{{APIVersion: api.APIVersion(), Kind: api.Kind, Name: "web", UID: "uid-ro", Controller: ptr.To(true)}}
	labels := map[string]string{"app": "web", chain.RolloutHashLabel: "abc"}
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "web-abc", UID: "uid-rs", Labels: labels, OwnerReferences: owner}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "web-abc-1", Labels: labels,
		OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "web-abc", UID: "uid-rs", Controller: ptr.To(true)}}}}
	other := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "api-1", Labels: map[string]string{"app": "api"}}}
	c := gatewayFake{Clientset: fake.NewClientset(rs, pod, other), dyn: dyn}
	r := &Reader{Client: c, Now: func() time.Time { return t0 }}
	snap, err := r.Read(context.Background(), "prod", chain.Ref{Kind: chain.KindRollout, Name: "web"})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Rollout == nil || snap.Rollout.UID != "uid-ro" || snap.Rollout.Status.CurrentPodHash != "abc" {
		t.Fatalf("rollout %+v", snap.Rollout)
	}
	if rs := snap.CurrentReplicaSet(); rs == nil || rs.Name != "web-abc" {
		t.Errorf("current ReplicaSet %v, want web-abc", rs)
	}
	if len(snap.Pods) != 1 || snap.Pods[0].Name != "web-abc-1" {
		t.Errorf("pods %d, want web-abc-1 alone (by the selector)", len(snap.Pods))
	}
	// GET, the Services and autoscalers, then ReplicaSets, pods and
	// events.
	if snap.Requests != 6 {
		t.Errorf("requests %d, want 6", snap.Requests)
	}

	_, err = r.Read(context.Background(), "prod", chain.Ref{Kind: chain.KindRollout, Name: "nope"})
	var nf *NotFoundError
	if !errors.As(err, &nf) || nf.What() != "rollout" {
		t.Errorf("missing rollout: %v, want a NotFoundError naming the rollout", err)
	}

	// The API server's 404 for a resource it does not serve names no
	// object.
	bare := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{gvr: "RolloutList"})
	bare.PrependReactor("get", "rollouts", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewGenericServerResponse(404, "get", schema.GroupResource{}, "", "", 0, true)
	})
	r = &Reader{Client: gatewayFake{Clientset: fake.NewClientset(), dyn: bare}}
	_, err = r.Read(context.Background(), "prod", chain.Ref{Kind: chain.KindRollout, Name: "web"})
	var ns *NotServedError
	if !errors.As(err, &ns) || ns.Error() != "this cluster does not serve rollouts.argoproj.io/v1alpha1: Argo Rollouts is not installed (kubectl get crd rollouts.argoproj.io)" {
		t.Errorf("no Argo Rollouts: %v, want a NotServedError saying so", err)
	}
}

// TestEventsWindowRollout: in a busy namespace, an Argo Rollout whose
// phase is not Healthy has the window read beside its pods, as a
// Deployment does, from its new ReplicaSet's pods (status.currentPodHash),
// though its stable ReplicaSet's ready pods come first by name and hold
// more events than the window; without the hash the window starts at the
// Rollout's name, holds only the ready pods' events, and the failing pod's
// are sought after the pods. Before, a Rollout had no window.
func TestEventsWindowRollout(t *testing.T) {
	const ns = "prod"
	api := chain.RolloutAPI
	gvr := schema.GroupVersionResource{Group: api.Group, Version: api.Version, Resource: api.Resource}
	owner := []metav1.OwnerReference{{APIVersion: api.APIVersion(), Kind: api.Kind, Name: "web", UID: "uid-ro", Controller: ptr.To(true)}}
	objects := func() []runtime.Object {
		var objs []runtime.Object
		for _, hash := range []string{"1aa", "9zz"} {
			labels := map[string]string{"app": "web", chain.RolloutHashLabel: hash}
			objs = append(objs, &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-" + hash, UID: types.UID("uid-web-" + hash), Labels: labels, OwnerReferences: owner}})
		}
		for _, name := range []string{"web-1aa-aaaaa", "web-1aa-bbbbb", "web-9zz-ccccc"} {
			hash := name[4:7]
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("uid-" + name),
				Labels:          map[string]string{"app": "web", chain.RolloutHashLabel: hash},
				OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "web-" + hash, UID: types.UID("uid-web-" + hash), Controller: ptr.To(true)}}}}
			if hash == "1aa" {
				p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
			}
			objs = append(objs, p)
		}
		return objs
	}
	var evs []corev1.Event
	for _, name := range []string{"web-1aa-aaaaa", "web-1aa-bbbbb"} {
		for i := range windowPage / 2 {
			evs = append(evs, *event(ns, fmt.Sprintf("%s.%016x", name, i), "Pod", name, types.UID("uid-"+name), "Normal", "Pulled", "kubelet", "", time.Minute))
		}
	}
	evs = append(evs, *event(ns, "web-9zz-ccccc.0000000000000001", "Pod", "web-9zz-ccccc", "uid-web-9zz-ccccc", "Warning", "BackOff", "kubelet", "Back-off restarting failed container app", time.Minute))
	for i := range eventsProbe {
		evs = append(evs, *event(ns, fmt.Sprintf("zeta-%05d.%016x", i, i), "Pod", fmt.Sprintf("zeta-%05d", i), "", "Normal", "Pulled", "kubelet", "", time.Minute))
	}
	for _, tc := range []struct {
		name, hash string
		wantLists  []string
	}{
		{"from the new ReplicaSet's pods", "9zz", []string{"16", "50"}},
		// With no current ReplicaSet the Rollout is a target too.
		{"no hash: from the Rollout's name, then sought", "", []string{"16", "50", "8", "8"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ro := &unstructured.Unstructured{Object: map[string]any{
				"spec":   map[string]any{"replicas": int64(2), "selector": map[string]any{"matchLabels": map[string]any{"app": "web"}}},
				"status": map[string]any{"currentPodHash": tc.hash, "stableRS": "1aa", "phase": "Degraded", "observedGeneration": "2"},
			}}
			ro.SetAPIVersion(api.APIVersion())
			ro.SetKind(api.Kind)
			ro.SetNamespace(ns)
			ro.SetName("web")
			ro.SetUID("uid-ro")
			dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{gvr: "RolloutList"})
			if err := dyn.Tracker().Create(gvr, ro, ns); err != nil {
				t.Fatal(err)
			}
			cs := fake.NewClientset(objects()...)
			cs.PrependReactor("list", "events", eventsReactor(evs, true, true))
			r := &Reader{Client: gatewayFake{Clientset: cs, dyn: dyn}, Now: func() time.Time { return t0 }}
			snap, err := r.Read(context.Background(), ns, chain.Ref{Kind: chain.KindRollout, Name: "web"})
			if err != nil {
				t.Fatal(err)
			}
			if lists := eventsLimits(cs); !slices.Equal(lists, tc.wantLists) {
				t.Errorf("events lists of limits %v, want %v", lists, tc.wantLists)
			}
			failing := slices.ContainsFunc(snap.EventsOf, func(o chain.ObjectRef) bool { return o.Name == "web-9zz-ccccc" })
			if !failing || len(snap.Events) != 1 || snap.Events[0].Reason != "BackOff" {
				t.Errorf("events %v of %v, want the new pod's BackOff alone", snap.Events, snap.EventsOf)
			}
		})
	}
}
