package kube

import (
	"context"
	"slices"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// ReadProduced lists, in one round trip, the namespace's objects of each
// producer kind the cluster serves (apis, as discovery resolved them) and
// keeps those that write one of the secrets into snap.Produced. A list
// that fails is left out: the Secret is then judged as missing, as
// without producers.
func (r *Reader) ReadProduced(ctx context.Context, snap *chain.Snapshot, secrets []string, apis []chain.APIResource) error {
	if len(secrets) == 0 || len(apis) == 0 {
		return nil
	}
	dc, err := r.dynamicOf()
	if err != nil {
		return err
	}
	found := make([][]chain.Produced, len(apis))
	attempts := make([][]*unstructured.Unstructured, len(apis))
	steps := make([][]*unstructured.Unstructured, len(apis))
	list := func(api chain.APIResource) (*unstructured.UnstructuredList, error) {
		gvr := schema.GroupVersionResource{Group: api.Group, Version: api.Version, Resource: api.Resource}
		return dc.Resource(gvr).Namespace(snap.Namespace).List(ctx, metav1.ListOptions{})
	}
	var wg sync.WaitGroup
	for i, api := range apis {
		p := chain.ProducerOf(api)
		if p == nil {
			if chain.IsStep(api) {
				// A producer's steps (ACME Orders and Challenges), in the
				// same round trip; a list that fails leaves the attempt's
				// words as the cause.
				wg.Go(func() {
					if l, err := list(api); err == nil {
						for j := range l.Items {
							steps[i] = append(steps[i], &l.Items[j])
						}
					}
				})
				snap.Requests++
			}
			continue
		}
		wg.Go(func() {
			l, err := list(api)
			if err != nil {
				return
			}
			for j := range l.Items {
				if name := p.Writes(&l.Items[j]); slices.Contains(secrets, name) {
					found[i] = append(found[i], chain.Produced{API: api, Object: &l.Items[j], Secret: name})
				}
			}
		})
		snap.Requests++
		// Its attempts in the same round trip: a list that fails leaves
		// the producer's own conditions as the cause.
		if a := p.AttemptsOf(api); a != nil {
			wg.Go(func() {
				if l, err := list(*a); err == nil {
					for j := range l.Items {
						attempts[i] = append(attempts[i], &l.Items[j])
					}
				}
			})
			snap.Requests++
		}
	}
	wg.Wait()
	var allSteps []*unstructured.Unstructured
	for i, f := range found {
		chain.AttachAttempts(f, attempts[i])
		snap.Produced = append(snap.Produced, f...)
		allSteps = append(allSteps, steps[i]...)
	}
	chain.AttachSteps(snap.Produced, allSteps)
	// What each refers to (a Certificate's Issuer), in one more round trip.
	requests := make([]int, len(snap.Produced))
	for i := range snap.Produced {
		p := &snap.Produced[i]
		wg.Go(func() {
			var m string
			if m, requests[i] = r.missingRef(ctx, snap.Namespace, p.Object); m != "" {
				p.Missing = []string{m}
			}
		})
	}
	wg.Wait()
	for _, n := range requests {
		snap.Requests += n
	}
	return nil
}

// missingRef GETs what obj refers to (a Certificate's Issuer or
// ClusterIssuer, chain.IssuerOf): its chain.Absent name when it does not
// exist, "" when it does, when obj refers to nothing checked, or when it
// cannot be read (forbidden, not served: not judged). requests is 0 or 1.
func (r *Reader) missingRef(ctx context.Context, ns string, obj *unstructured.Unstructured) (missing string, requests int) {
	api, name, ok := chain.IssuerOf(obj)
	if !ok {
		return "", 0
	}
	dc, err := r.dynamicOf()
	if err != nil {
		return "", 0
	}
	gvr := schema.GroupVersionResource{Group: api.Group, Version: api.Version, Resource: api.Resource}
	if api.Namespaced {
		_, err = dc.Resource(gvr).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	} else {
		_, err = dc.Resource(gvr).Get(ctx, name, metav1.GetOptions{})
	}
	if apierrors.IsNotFound(err) && !notServed(err) {
		return chain.Absent(api, name), 1
	}
	return "", 1
}
