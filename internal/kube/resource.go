package kube

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// maxOwned bounds the owned workloads whose chains a resource's read
// follows.
const maxOwned = 5

// APIKey is the key of Reader.APIs: a resource Ref's group and kind.
func APIKey(ref chain.Ref) string { return ref.Group + "/" + string(ref.Kind) }

// readResource reads an object of a resource kind (chain.IsResource),
// where discovery said it is served (r.APIs), in one round trip with the
// namespace's workloads and the object's events; then, in a second, the
// workloads it owns, each with its own chain's reads.
func (r *Reader) readResource(ctx context.Context, namespace string, ref chain.Ref) (*chain.Snapshot, error) {
	api, ok := r.APIs[APIKey(ref)]
	if !ok {
		return nil, fmt.Errorf("%s: its resource was not resolved through discovery", ref)
	}
	dc, err := r.dynamicOf()
	if err != nil {
		return nil, err
	}
	snap := &chain.Snapshot{Kind: ref.Kind, Namespace: namespace, Name: ref.Name, API: &api}
	gvr := schema.GroupVersionResource{Group: api.Group, Version: api.Version, Resource: api.Resource}
	var (
		wg   sync.WaitGroup
		w    ownerCandidates
		evs  []corev1.Event
		eErr error
	)
	if api.Namespaced {
		w.start(ctx, r, &wg, namespace)
	}
	if api.Namespaced {
		wg.Go(func() {
			evs, _, eErr = r.eventsOf(ctx, namespace, []chain.ObjectRef{{Kind: api.Kind, Name: ref.Name}}, "")
		})
	}
	var obj *unstructured.Unstructured
	if api.Namespaced {
		obj, err = dc.Resource(gvr).Namespace(namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	} else {
		obj, err = dc.Resource(gvr).Get(ctx, ref.Name, metav1.GetOptions{})
	}
	snap.Requests++
	wg.Wait()
	if err != nil {
		return nil, getError(ref.Kind.Resource(), api.Type(), namespace, ref.Name, err)
	}
	snap.Object = obj
	if m, n := r.missingRef(ctx, namespace, obj); n > 0 {
		snap.Requests += n
		if m != "" {
			snap.Missing = []string{m}
		}
	}
	if !api.Namespaced {
		snap.Namespace = ""
		snap.Now = r.now()
		return snap, nil
	}
	w.readCRDs(ctx, r, namespace)
	snap.Requests += w.requests() + 1
	of := fmt.Sprintf("of %s %s/%s", api.Type(), namespace, ref.Name)
	if err := errors.Join(settle(snap, chain.ResourceEvents, of, eErr), w.settle(snap, of)); err != nil {
		return nil, err
	}
	for i := range evs {
		snap.Events = append(snap.Events, chain.EventFromCore(&evs[i]))
	}
	sort.SliceStable(snap.Events, func(i, j int) bool { return snap.Events[i].Last.Before(snap.Events[j].Last) })
	owned := w.ownedBy(obj.GetUID())
	if r.Apart != nil {
		owned = slices.DeleteFunc(owned, func(ref chain.Ref) bool {
			if r.Apart(namespace, ref) {
				snap.OwnedApart = append(snap.OwnedApart, ref)
				return true
			}
			return false
		})
	}
	if len(owned) > maxOwned {
		owned = owned[:maxOwned]
	}
	if err := r.readRefs(ctx, snap, owned); err != nil {
		return nil, err
	}
	snap.Now = r.now()
	return snap, nil
}

// ownerCandidates are the namespace's workloads, any of which the object
// may own: one list per built-in workload kind of the kinds table, and the
// pods, since an operator may make pods itself.
type ownerCandidates struct {
	kinds *kindLists
	pods  listed[corev1.Pod]
	// crds are, listed in a second round trip, the workloads of the
	// kinds a CRD serves whose pods the namespace holds (OpenKruise's
	// CloneSets): an operator may own those too.
	crds *kindLists
}

func (w *ownerCandidates) start(ctx context.Context, r *Reader, wg *sync.WaitGroup, ns string) {
	w.kinds = r.startKindLists(ctx, wg, ns, ownableKinds())
	wg.Go(func() { w.pods = r.listPods(ctx, ns, metav1.ListOptions{}) })
}

// readCRDs lists, in a second round trip, the kinds a CRD serves that
// control pods of the namespace: a cluster without such pods pays
// nothing for them.
func (w *ownerCandidates) readCRDs(ctx context.Context, r *Reader, ns string) {
	var kinds []chain.Kind
	for _, row := range chain.KindTable() {
		if !row.CRD || !row.CreatesPods() {
			continue
		}
		for i := range w.pods.items {
			if ref := metav1.GetControllerOf(&w.pods.items[i]); ref != nil && ref.Kind == string(row.Kind) && chain.GroupOf(ref.APIVersion) == row.Group {
				kinds = append(kinds, row.Kind)
				break
			}
		}
	}
	var wg sync.WaitGroup
	w.crds = r.startKindLists(ctx, &wg, ns, kinds)
	wg.Wait()
}

func (w *ownerCandidates) requests() int {
	n := w.kinds.requests() + w.pods.requests
	if w.crds != nil {
		n += w.crds.requests()
	}
	return n
}

// settle records a forbidden list as a gap: the owned link is then
// unknown for that kind, not silently empty.
func (w *ownerCandidates) settle(snap *chain.Snapshot, of string) error {
	by := func(res chain.Resource, err error) error { return settle(snap, res, of, err) }
	errs := append(w.kinds.errs(by), by(chain.ResourcePods, w.pods.err))
	if w.crds != nil {
		errs = append(errs, w.crds.errs(by)...)
	}
	return errors.Join(errs...)
}

// ownedBy are the workloads whose ownerReferences name uid, by kind then
// name, then the pods it controls itself, those not ready first.
func (w *ownerCandidates) ownedBy(uid types.UID) []chain.Ref {
	out := w.kinds.ownedBy(uid)
	if w.crds != nil {
		out = append(out, w.crds.ownedBy(uid)...)
	}
	return append(out, chain.PodsControlledBy(w.pods.items, uid)...)
}

// ReadApplier reads the GitOps object that applied a revision (an Argo CD
// Application, a Flux Kustomization or HelmRelease; chain.Appliers): one
// GET, or, for an Application whose namespace the workload does not say,
// one list of that name across namespaces. Nil and no error when there is
// none.
func (r *Reader) ReadApplier(ctx context.Context, api chain.APIResource, namespace, name string) (*unstructured.Unstructured, error) {
	dc, err := r.dynamicOf()
	if err != nil {
		return nil, err
	}
	gvr := schema.GroupVersionResource{Group: api.Group, Version: api.Version, Resource: api.Resource}
	var obj *unstructured.Unstructured
	if namespace != "" {
		obj, err = dc.Resource(gvr).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	} else {
		var l *unstructured.UnstructuredList
		l, err = dc.Resource(gvr).List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name})
		for i := 0; err == nil && i < len(l.Items) && obj == nil; i++ {
			if l.Items[i].GetName() == name {
				obj = &l.Items[i]
			}
		}
	}
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if obj != nil {
		obj.SetManagedFields(nil)
	}
	return obj, nil
}

// ListAppliers lists the GitOps objects of one kind (chain.Appliers) in
// namespace ("" for every namespace): one request.
func (r *Reader) ListAppliers(ctx context.Context, api chain.APIResource, namespace string) ([]*unstructured.Unstructured, error) {
	dc, err := r.dynamicOf()
	if err != nil {
		return nil, err
	}
	gvr := schema.GroupVersionResource{Group: api.Group, Version: api.Version, Resource: api.Resource}
	var l *unstructured.UnstructuredList
	if namespace != "" {
		l, err = dc.Resource(gvr).Namespace(namespace).List(ctx, metav1.ListOptions{})
	} else {
		l, err = dc.Resource(gvr).List(ctx, metav1.ListOptions{})
	}
	if err != nil {
		return nil, err
	}
	out := make([]*unstructured.Unstructured, len(l.Items))
	for i := range l.Items {
		out[i] = &l.Items[i]
	}
	return out, nil
}
