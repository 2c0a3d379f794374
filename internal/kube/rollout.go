package kube

import (
	"context"
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// readRollout reads an Argo Rollout as Snapshot reads a Deployment: a GET
// of the Rollout beside the namespace's Services, then its ReplicaSets,
// pods and events by its selector. A Rollout whose pod template is a
// Deployment's (spec.workloadRef) costs one more GET, of the Deployment.
// A cluster without Argo Rollouts' CRDs is a *NotServedError.
func (r *Reader) readRollout(ctx context.Context, namespace string, ref chain.Ref) (*chain.Snapshot, error) {
	dc, err := r.dynamicOf()
	if err != nil {
		return nil, err
	}
	api := chain.RolloutAPI
	gvr := schema.GroupVersionResource{Group: api.Group, Version: api.Version, Resource: api.Resource}
	snap := &chain.Snapshot{Kind: chain.KindRollout, Namespace: namespace, Name: ref.Name}
	svcs := r.servicesAsync(ctx, namespace)
	hpas := r.autoscalersAsync(ctx, namespace, chain.KindRollout)
	evs := r.eventsAsync(ctx, namespace)
	u, err := dc.Resource(gvr).Namespace(namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	snap.Requests++
	if err != nil {
		<-svcs
		drain(hpas)
		drain(evs)
		if notServed(err) {
			return nil, &NotServedError{Resource: gvr, Why: rolloutsNotInstalled, Err: err}
		}
		return nil, getError(chain.KindRollout.Resource(), api.Type(), namespace, ref.Name, err)
	}
	ro, err := chain.DecodeRollout(u)
	if err != nil {
		<-svcs
		drain(hpas)
		drain(evs)
		return nil, err
	}
	chain.KeepTemplateManagers(ro)
	snap.Rollout = ro
	r.read.note(api.Type(), ro.ResourceVersion)
	if err := errors.Join(r.settleServices(snap, <-svcs), settleAutoscalers(snap, hpas)); err != nil {
		drain(evs)
		return nil, err
	}
	if ro.Spec.WorkloadRef != nil && ro.Spec.WorkloadRef.Kind == "Deployment" {
		if err := r.workloadTemplate(ctx, snap, ro); err != nil {
			drain(evs)
			return nil, err
		}
	}
	if err := r.readDependents(ctx, snap, ro.Spec.Selector, evs); err != nil {
		return nil, err
	}
	snap.Now = r.now()
	return snap, nil
}

// workloadTemplate fills a Rollout's pod template and, when it has none,
// its selector from the Deployment its spec.workloadRef names, as the
// Rollouts controller does (rollout/templateref.go).
func (r *Reader) workloadTemplate(ctx context.Context, snap *chain.Snapshot, ro *chain.Rollout) error {
	d, err := r.Client.AppsV1().Deployments(snap.Namespace).Get(ctx, ro.Spec.WorkloadRef.Name, metav1.GetOptions{})
	snap.Requests++
	switch {
	case apierrors.IsNotFound(err):
		return nil // the Rollouts controller reports it (InvalidSpec), which the walk quotes
	case err != nil:
		return getError("deployment", "deployments", snap.Namespace, ro.Spec.WorkloadRef.Name, err)
	}
	ro.Spec.Template = *d.Spec.Template.DeepCopy()
	if ro.Spec.Selector == nil {
		ro.Spec.Selector = d.Spec.Selector.DeepCopy()
	}
	return nil
}
