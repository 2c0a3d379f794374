package kube

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// NotServedError says the cluster does not serve a kind kubectl chain was
// asked to walk: the Gateway API's CRDs, or Argo Rollouts', are not
// installed.
type NotServedError struct {
	Resource schema.GroupVersionResource
	// Why names what is missing ("the Gateway API's CRDs are not
	// installed").
	Why string
	Err error
}

// Why NotServedError says a kind is not served.
const (
	gatewayNotInstalled    = "the Gateway API's CRDs are not installed"
	rolloutsNotInstalled   = "Argo Rollouts is not installed"
	openKruiseNotInstalled = "OpenKruise is not installed"
)

func (e *NotServedError) Error() string {
	return fmt.Sprintf("this cluster does not serve %s.%s/%s: %s (kubectl get crd %s.%s)",
		e.Resource.Resource, e.Resource.Group, e.Resource.Version, e.Why, e.Resource.Resource, e.Resource.Group)
}

func (e *NotServedError) Unwrap() error { return e.Err }

// notServed says a 404 is the resource's, not an object's: the API server
// answers an unknown resource without naming an object.
func notServed(err error) bool {
	var st apierrors.APIStatus
	if !apierrors.IsNotFound(err) || !errors.As(err, &st) {
		return false
	}
	d := st.Status().Details
	return d == nil || d.Name == "" || strings.Contains(err.Error(), "the server could not find the requested resource")
}

// dynamicOf is the reader's dynamic client, for the Gateway API's kinds.
func (r *Reader) dynamicOf() (dynamic.Interface, error) {
	if gc, ok := r.Client.(GatewayClient); ok && gc.Dynamic() != nil {
		return gc.Dynamic(), nil
	}
	return nil, errors.New("this client cannot read the Gateway API's kinds")
}

// listGateway lists a Gateway API resource ("" namespace: cluster-scoped
// or all) and converts its items.
func listGateway[T any](ctx context.Context, dc dynamic.Interface, gvr schema.GroupVersionResource, ns string, opts metav1.ListOptions) ([]T, string, error) {
	var (
		l   *unstructured.UnstructuredList
		err error
	)
	if ns == "" {
		l, err = dc.Resource(gvr).List(ctx, opts)
	} else {
		l, err = dc.Resource(gvr).Namespace(ns).List(ctx, opts)
	}
	if err != nil {
		if notServed(err) {
			err = &NotServedError{Resource: gvr, Why: gatewayNotInstalled, Err: err}
		}
		return nil, "", err
	}
	out := make([]T, len(l.Items))
	for i := range l.Items {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(l.Items[i].Object, &out[i]); err != nil {
			return nil, "", fmt.Errorf("decoding %s %s: %w", gvr.Resource, l.Items[i].GetName(), err)
		}
	}
	return out, l.GetResourceVersion(), nil
}

// gatewayReads are a Gateway API target's reads beside its GET: the
// cluster's GatewayClasses and, for a route, the namespace's Gateways.
type gatewayReads struct {
	classes  listed[gatewayv1.GatewayClass]
	gateways listed[gatewayv1.Gateway]
}

// startGatewayReads starts them on wg.
func (r *Reader) startGatewayReads(ctx context.Context, wg *sync.WaitGroup, dc dynamic.Interface, ns string, kind chain.Kind, out *gatewayReads) {
	wg.Go(func() {
		out.classes = listing(func() ([]gatewayv1.GatewayClass, string, error) {
			return listGateway[gatewayv1.GatewayClass](ctx, dc, chain.GatewayResource(chain.Kind("GatewayClass")), "", metav1.ListOptions{ResourceVersion: "0"})
		})
	})
	if chain.IsRoute(kind) {
		wg.Go(func() {
			out.gateways = listing(func() ([]gatewayv1.Gateway, string, error) {
				return listGateway[gatewayv1.Gateway](ctx, dc, chain.GatewayResource(chain.KindGateway), ns, metav1.ListOptions{})
			})
		})
	}
}

// getGatewayAPI GETs one Gateway API object of kind into obj.
func getGatewayAPI(ctx context.Context, dc dynamic.Interface, kind chain.Kind, ns, name string, obj any) error {
	gvr := chain.GatewayResource(kind)
	u, err := dc.Resource(gvr).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	switch {
	case err != nil && notServed(err):
		return &NotServedError{Resource: gvr, Why: gatewayNotInstalled, Err: err}
	case err != nil:
		return err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
		return fmt.Errorf("decoding %s %s/%s: %w", kind.Resource(), ns, name, err)
	}
	return nil
}

// getGatewayTarget GETs the Gateway or route the snapshot is for, and
// stores it where the kind's row reads it (a route as a chain.Route).
func (r *Reader) getGatewayTarget(ctx context.Context, dc dynamic.Interface, snap *chain.Snapshot, ns string, ref chain.Ref) (metav1.Object, error) {
	row, _ := chain.RowOf(ref.Kind)
	obj := row.New()
	if err := getGatewayAPI(ctx, dc, ref.Kind, ns, ref.Name, obj); err != nil {
		return nil, err
	}
	if chain.IsRoute(ref.Kind) {
		route, err := chain.RouteOf(obj)
		if err != nil {
			return nil, err
		}
		obj = route
	}
	row.Store(snap, obj)
	return obj, nil
}

// settleGateway files the Gateway API lists into the snapshot, then GETs,
// in one more round trip, the route's parents in other namespaces.
func (r *Reader) settleGateway(ctx context.Context, dc dynamic.Interface, snap *chain.Snapshot, g *gatewayReads) error {
	snap.Requests += g.classes.requests + g.gateways.requests
	errs := []error{settleCluster(snap, chain.ResourceGatewayClasses, "gatewayclasses."+chain.GatewayGroup, g.classes.err)}
	snap.GatewayClasses = g.classes.items
	if snap.Gateway != nil {
		snap.Gateways = []gatewayv1.Gateway{*snap.Gateway}
	}
	if snap.Route == nil {
		return errors.Join(errs...)
	}
	errs = append(errs, settleServing(snap, chain.ResourceGateways, g.gateways.err))
	snap.Gateways = g.gateways.items
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		other []chain.ParentKey
	)
	for _, k := range snap.Route.ParentGateways() {
		if k.Namespace != snap.Namespace {
			other = append(other, k)
		}
	}
	for _, k := range other {
		wg.Go(func() {
			var gw gatewayv1.Gateway
			err := getGatewayAPI(ctx, dc, chain.KindGateway, k.Namespace, k.Name, &gw)
			mu.Lock()
			defer mu.Unlock()
			snap.Requests++
			switch {
			case err == nil:
				snap.Gateways = append(snap.Gateways, gw)
			case apierrors.IsNotFound(err):
			case apierrors.IsForbidden(err):
				snap.Gaps = append(snap.Gaps, chain.Gap{Resource: chain.ResourceGateways, Verb: "get", Forbidden: true, Message: err.Error(),
					Check: canI("get", "gateways."+chain.GatewayGroup+"/"+k.Name, k.Namespace)})
			default:
				errs = append(errs, fmt.Errorf("getting gateway %s/%s: %w", k.Namespace, k.Name, err))
			}
		})
	}
	wg.Wait()
	for i := range snap.Gateways {
		snap.Gateways[i].ManagedFields = nil
	}
	return errors.Join(errs...)
}

// settleCluster: a cluster-scoped list a user with a namespace's RBAC only
// cannot make is a gap the link names, as are other failures.
func settleCluster(snap *chain.Snapshot, res chain.Resource, resource string, err error) error {
	if err != nil && apierrors.IsForbidden(err) {
		snap.Gaps = append(snap.Gaps, chain.Gap{Resource: res, Verb: "list", Forbidden: true,
			Message: err.Error(), Check: "kubectl auth can-i list " + resource})
		return nil
	}
	return settleServing(snap, res, err)
}
