package kube

import (
	"context"
	"fmt"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/internal/capture"
)

// Mirror holds every workload of a scope (a namespace or all, a label
// selector or all) with the pods, ReplicaSets, events and the rest the walk
// needs, read with one request per resource, and, when followed, kept
// current by those same requests: each is a watch that first sends the
// objects that exist (a "watch-list", Kubernetes 1.27 and later, on by
// default since 1.34) and then their changes. So a whole cluster costs a
// fixed number of requests however many objects it holds, each object is
// decoded on its own (memory holds what is kept, never a whole list's
// response), and following it never lists again. A server that refuses
// watch-lists is read with paged lists, and followed by watches from where
// they left off.
type Mirror struct {
	mu     sync.Mutex
	stores map[string]*store
	// Gaps are the resources that could not be read; Requests what the
	// first read cost.
	Gaps     []chain.Gap
	Requests int
	// Forbidden reports a watch RBAC refuses while following; from then
	// on the mirror is stale.
	Forbidden chan string
	stale     bool
	// targeted says the events are those of each workload's
	// chain.EventTargets only.
	targeted bool
	// changes counts what changed the stores; bundle is the Bundle made
	// at bundleAt changes.
	changes  int
	bundle   *capture.Bundle
	bundleAt int
	// everything and dirty say what changed since TakeChanged: a whole
	// store (a read, a restart) or a cluster-scoped object, else the
	// namespaces of the objects that changed.
	everything bool
	dirty      map[string]bool
}

// touched records a change to an object of namespace ns ("" for a whole
// store or a cluster-scoped object). m.mu must be held.
func (m *Mirror) touched(ns string) {
	m.changes++
	if ns == "" {
		m.everything = true
		return
	}
	if m.dirty == nil {
		m.dirty = map[string]bool{}
	}
	m.dirty[ns] = true
}

// TakeChanged says what changed since it was last called: everything
// (a store read anew, a cluster-scoped object such as a node), or only the
// objects of the namespaces it returns.
func (m *Mirror) TakeChanged() (everything bool, namespaces map[string]bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	everything, namespaces = m.everything, m.dirty
	m.everything, m.dirty = false, nil
	return everything, namespaces
}

// Stale says a watch was refused: the mirror no longer follows the scope,
// which must be read anew.
func (m *Mirror) Stale() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stale
}

// Mirror reads the scope; with follow, its watches stay open until ctx
// ends, applying each change and signalling changed (coalesced: give it a
// buffer of one).
func (r *Reader) Mirror(ctx context.Context, namespace, selector string, follow bool, changed chan<- struct{}) (*Mirror, error) {
	m := &Mirror{stores: map[string]*store{}, Forbidden: make(chan string, 16)}
	scope := "namespace " + namespace
	if namespace == "" {
		scope = "all namespaces"
	}
	// The first page of the events goes with the first read: a scope
	// that holds more has its busiest namespaces read whole (the most
	// troubled, when the server seeks: canSeek) while the
	// workloads' pods are read (speculate).
	evs := r.eventSource(namespace)
	var probe pageOf
	probed := make(chan struct{})
	go func() {
		probe = probeEvents(ctx, evs)
		probe.seeks = r.canSeek(ctx, probe)
		close(probed)
	}()
	first := append(r.workloadSources(namespace, selector), r.trafficSources(namespace, selector)...)
	if err := m.read(ctx, r, first, follow, changed, scope, namespace); err != nil {
		<-probed
		return nil, err
	}
	m.mu.Lock()
	n := func(res string) bool {
		return r.MirrorEverything || m.stores[res] != nil && len(m.stores[res].vals) > 0
	}
	traffic := false
	for _, k := range chain.TrafficKinds() {
		traffic = traffic || n(k.Plural())
	}
	m.mu.Unlock()
	// The objects the workloads own, and beside them the busy namespaces'
	// events.
	var (
		wg    sync.WaitGroup
		early map[string]wholeRead
	)
	wg.Go(func() {
		<-probed
		if probe.err == nil && probe.partial {
			most := maxTargetsPerNamespace
			if probe.seeks {
				most = maxSoughtWorkloads
			}
			early = r.speculate(ctx, m.busyNamespaces(most))
		}
	})
	err := m.read(ctx, r, r.ownedSources(namespace, func(k chain.Kind) bool { return n(k.Plural()) }, traffic), follow, changed, scope, namespace)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	if err := m.events(ctx, r, evs, probe, early, follow, changed, namespace); err != nil {
		return nil, err
	}
	return m, nil
}

// read reads the sources in parallel: one round trip.
func (m *Mirror) read(ctx context.Context, r *Reader, srcs []source, follow bool, changed chan<- struct{}, scope, ns string) error {
	type outcome struct {
		st       *store
		rv       string
		w        watch.Interface
		requests int
		err      error
	}
	outs := make([]outcome, len(srcs))
	var wg sync.WaitGroup
	for i, s := range srcs {
		wg.Go(func() {
			o := &outs[i]
			o.st, o.rv, o.w, o.requests, o.err = r.initial(ctx, s, follow)
		})
	}
	wg.Wait()
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, s := range srcs {
		o := outs[i]
		m.Requests += o.requests
		switch err := o.err; {
		case err == nil:
			m.stores[s.resource] = o.st
			m.touched("")
			r.read.note(s.resource, o.rv)
			if follow {
				go m.follow(ctx, r, s, o.w, o.rv, changed)
			}
			continue
		case s.res == chain.ResourceDeployments && apierrors.IsForbidden(err):
			return &ForbiddenError{Namespace: ns, Message: err.Error(), Err: err, Check: canI("list", "deployments", ns)}
		case apierrors.IsForbidden(err):
			check := canI("list", string(s.res), ns)
			if s.res == chain.ResourceNodes {
				check = "kubectl auth can-i list nodes"
			}
			m.Gaps = append(m.Gaps, chain.Gap{Resource: s.res, Verb: "list", Forbidden: true, Message: err.Error(), Check: check})
		case notServed(err):
			// The Gateway API's CRDs are not installed: no such objects.
		case s.res == chain.ResourceEvents && ctxAlive(err):
			m.Gaps = append(m.Gaps, chain.Gap{Resource: s.res, Verb: "list", Message: err.Error()})
		default:
			return fmt.Errorf("listing %s in %s: %w", s.res, scope, err)
		}
		m.stores[s.resource] = newStore()
		m.touched("")
	}
	return nil
}

// Bundle is the mirror's content now, for the walk. It is made once per
// change: callers must not modify it.
func (m *Mirror) Bundle() *capture.Bundle {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.bundle != nil && m.bundleAt == m.changes {
		return m.bundle
	}
	st := m.stores
	m.bundle = &capture.Bundle{
		Skipped:        map[string]int{},
		EventsTargeted: m.targeted,
		ReplicaSets:    values[appsv1.ReplicaSet](st["replicasets"]),
		Revisions:      values[appsv1.ControllerRevision](st["controllerrevisions"]),
		Claims:         values[corev1.PersistentVolumeClaim](st["persistentvolumeclaims"]),
		Nodes:          values[corev1.Node](st["nodes"]),
		Packed:         values[capture.PackedPod](st["pods"]),
		Events:         values[chain.Event](st["events"]),
		Services:       values[corev1.Service](st["services"]),
		EndpointSlices: values[discoveryv1.EndpointSlice](st["endpointslices"]),
		ServicesRead:   st["services"] != nil,
		Policies:       values[networkingv1.NetworkPolicy](st["networkpolicies"]),
		Ingresses:      values[networkingv1.Ingress](st["ingresses"]),
		IngressClasses: values[networkingv1.IngressClass](st["ingressclasses"]),
		Gateways:       values[gatewayv1.Gateway](st["gateways"]),
		GatewayClasses: values[gatewayv1.GatewayClass](st["gatewayclasses"]),
		Routes: routesOf(values[gatewayv1.HTTPRoute](st["httproutes"]), values[gatewayv1.GRPCRoute](st["grpcroutes"]),
			values[gatewayv1.TLSRoute](st["tlsroutes"])),
	}
	for _, row := range chain.KindTable() {
		if row.Class == chain.ClassWorkload {
			m.bundle.SetObjects(row.Kind, objects(st[row.Kind.Plural()]))
		}
	}
	m.bundleAt = m.changes
	return m.bundle
}

// objects are a store's values in order, each as the object it holds (a
// workload kind's: *T, or what its row decodes).
func objects(st *store) []metav1.Object {
	if st == nil {
		return nil
	}
	if out, ok := memoized[[]metav1.Object](st); ok {
		return out
	}
	var out []metav1.Object
	st.each(func(_ string, v any) {
		if o, ok := v.(metav1.Object); ok {
			out = append(out, o)
		}
	})
	st.remember(out)
	return out
}

// values are a store's values in order, as T (the store holds *T, or T
// for events); nil for a store that is empty or was never read.
//
// The store then holds each value as a pointer into the slice: the
// slice is the only copy of each object, not a second one beside the
// store's (20,000 pods' worth in a cluster), and the objects the store
// held before are garbage. A value put after points elsewhere until the
// next slice is made.
func values[T any](st *store) []T {
	if st == nil || len(st.vals) == 0 {
		return nil
	}
	if out, ok := memoized[[]T](st); ok {
		return out
	}
	out := make([]T, 0, len(st.vals))
	var keys []string
	st.each(func(k string, v any) {
		switch o := v.(type) {
		case *T:
			out = append(out, *o)
		case T:
			out = append(out, o)
		default:
			return
		}
		keys = append(keys, k)
	})
	for i, k := range keys {
		st.vals[k] = &out[i]
	}
	st.remember(out)
	return out
}
