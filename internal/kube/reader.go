// Package kube is the only code that talks to a cluster. It reads one
// Deployment's chain.Snapshot, read-only, and nothing in it decides anything.
package kube

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Reader fetches snapshots in two sequential round trips: GET the workload
// beside a list of the namespace's Services, then its ReplicaSets, Pods,
// events and (for the Services that select the pods) EndpointSlices in
// parallel; a namespace of more than 500 events adds a third. It uses no
// discovery and no cluster-wide list, so it works with namespace-scoped RBAC.
type Reader struct {
	Client Client
	// Now stamps the snapshot; tests inject a fixed clock. Nil means time.Now.
	Now func() time.Time
	// EventsPageSize, when positive, pages the events list with
	// Limit/Continue so a namespace with many events is never held in one
	// response; each extra page is one more request. Zero lists at once.
	EventsPageSize int64

	// APIs are where the resource kinds named are served (APIKey), as
	// discovery resolved them: the reader of any other kind uses none.
	APIs map[string]chain.APIResource
	// Apart, when set, names the workloads judged on their own (a
	// release's): a resource kind's object still walks what else it owns
	// (an operator's Deployments, which no release lists), not those.
	Apart func(namespace string, ref chain.Ref) bool
	// MirrorEverything makes a Mirror follow every kind a workload may own
	// (ReplicaSets, ControllerRevisions, claims, Services, nodes) whatever
	// its first read found: a watcher that runs for days sees kinds appear
	// that were not there when it started (kubectl chain serve).
	MirrorEverything bool

	// read is where the reads leave off, for Watch and WatchNamespace.
	read versions
	// conn is whether the watches reach the API server.
	conn Conn
}

// Conn is what the reader's watches know of the API server's reachability.
func (r *Reader) Conn() *Conn { return &r.conn }

// Snapshot reads the Deployment namespace/name and what its selector
// matches. A missing Deployment is a *NotFoundError and a forbidden one a
// *ForbiddenError; a forbidden list becomes a chain.Gap so the walk can say
// "unknown" instead of failing or pretending all is well.
func (r *Reader) Snapshot(ctx context.Context, namespace, name string) (*chain.Snapshot, error) {
	snap := &chain.Snapshot{Namespace: namespace, Name: name}
	svcs := r.servicesAsync(ctx, namespace)
	hpas := r.autoscalersAsync(ctx, namespace, chain.KindDeployment)
	evs := r.eventsAsync(ctx, namespace)
	d, err := r.Client.AppsV1().Deployments(namespace).Get(ctx, name, metav1.GetOptions{})
	snap.Requests++
	if err != nil {
		<-svcs // sent in the same round trip: the read ends when all have
		drain(hpas)
		drain(evs)
		return nil, deploymentError(namespace, name, err)
	}
	snap.Deployment = d
	r.read.note("deployments", d.ResourceVersion)
	if err := errors.Join(r.settleServices(snap, <-svcs), settleAutoscalers(snap, hpas)); err != nil {
		drain(evs)
		return nil, err
	}
	if err := r.readDependents(ctx, snap, d.Spec.Selector, evs); err != nil {
		return nil, err
	}
	snap.Now = r.now()
	return snap, nil
}

func (r *Reader) now() time.Time {
	if r.Now == nil {
		return time.Now()
	}
	return r.Now()
}

// deploymentError translates a failed GET into the typed errors the CLI
// knows how to explain.
func deploymentError(namespace, name string, err error) error {
	return getError("deployment", "deployments", namespace, name, err)
}

// readDependents is the second round trip: the lists run in parallel,
// then their results are applied in a fixed order so gaps and errors never
// depend on which answer came first. first is the events' first page,
// asked for with the workload (eventsAsync).
func (r *Reader) readDependents(ctx context.Context, snap *chain.Snapshot, selector *metav1.LabelSelector, first <-chan listed[chain.Event]) error {
	sel, selErr := selectorOf(snap.KindOf(), selector)
	var (
		wg          sync.WaitGroup
		rss         listed[appsv1.ReplicaSet]
		pods        listed[corev1.Pod]
		slices      listed[discoveryv1.EndpointSlice]
		listOptions = metav1.ListOptions{}
	)
	if owners := snap.EndpointSliceOwners(); len(owners) > 0 {
		wg.Go(func() { slices = r.listSlices(ctx, snap.Namespace, owners) })
	}
	var pols listed[networkingv1.NetworkPolicy]
	if snap.Served() {
		wg.Go(func() { pols = r.listPolicies(ctx, snap.Namespace) })
	}
	var others listed[corev1.Pod]
	if len(snap.NearMisses()) > 0 {
		wg.Go(func() { others = r.listOtherPods(ctx, snap, sel) })
	}
	if selErr == nil {
		listOptions.LabelSelector = sel.String()
		wg.Go(func() { rss = r.listReplicaSets(ctx, snap.Namespace, listOptions) })
		wg.Go(func() { pods = r.listPods(ctx, snap.Namespace, listOptions) })
	}
	events := r.eventsBesidePods(ctx, &wg, snap, first)
	wg.Wait()
	// The claims its pods that wait to be scheduled use: a second round
	// trip, only then.
	claims := r.pendingClaims(ctx, snap.Namespace, pods.items)
	snap.Claims = claims.items

	if selErr != nil {
		msg := fmt.Sprintf("not listing the namespace: %v", selErr)
		snap.Gaps = append(snap.Gaps,
			chain.Gap{Resource: chain.ResourceReplicaSets, Verb: "list", Message: msg},
			chain.Gap{Resource: chain.ResourcePods, Verb: "list", Message: msg})
	}
	var assemble func()
	if rss.err == nil && pods.err == nil {
		assemble = func() { snap.Assemble(rss.items, pods.items, nil) }
	}
	evs := events.read(ctx, snap, assemble)
	snap.Requests += rss.requests + pods.requests + evs.requests + others.requests + claims.requests
	snap.OtherPods = others.items
	if err := errors.Join(r.settleSlices(snap, slices), r.settlePolicies(snap, pols)); err != nil {
		return err
	}
	r.read.note("replicasets", rss.rv)
	r.read.note("pods", pods.rv)
	r.read.note("events", evs.rv)
	of := fmt.Sprintf("of %s %s/%s", snap.KindOf().Resource(), snap.Namespace, snap.Name)
	errs := []error{
		settle(snap, chain.ResourceReplicaSets, of, rss.err),
		settle(snap, chain.ResourcePods, of, pods.err),
		settle(snap, chain.ResourceEvents, of, evs.err),
		settle(snap, chain.ResourceClaims, of, claims.err),
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	snap.Assemble(rss.items, pods.items, evs.items)
	r.readGoneNodes(ctx, snap)
	return nil
}

// settle records a forbidden list as a gap (the walk goes on without it) and
// wraps any other failure with the object it was for.
func settle(snap *chain.Snapshot, res chain.Resource, of string, err error) error {
	switch {
	case err == nil:
		return nil
	case apierrors.IsForbidden(err):
		snap.Gaps = append(snap.Gaps, chain.Gap{
			Resource: res, Verb: "list", Forbidden: true, Message: err.Error(),
			Check: canI("list", string(res), snap.Namespace),
		})
		return nil
	case res == chain.ResourceEvents && ctxAlive(err):
		// Events are the second kind of evidence: a namespace whose events
		// list times out or fails still has conditions and states to judge.
		snap.Gaps = append(snap.Gaps, chain.Gap{Resource: res, Verb: "list", Message: err.Error()})
		return nil
	}
	return fmt.Errorf("listing %s %s: %w", res, of, err)
}

// ctxAlive says an error is the server's, not the caller giving up: a
// cancelled run must fail, not walk half a snapshot.
func ctxAlive(err error) bool {
	return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}
