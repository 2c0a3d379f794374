package kube

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/internal/capture"
)

// pageSize bounds each response when reading a whole namespace or cluster.
const pageSize = 500

// Many reads every Deployment of a namespace ("" for all namespaces) that
// matches a label selector ("" for all), with all ReplicaSets, Pods and
// events of that scope, as one bundle the walk can cut per Deployment. The
// cost is one paged list per kind, whatever the number of Deployments: four
// requests per 500 objects. A forbidden ReplicaSet, Pod or event list is a
// gap every snapshot cut from the bundle carries.
func (r *Reader) Many(ctx context.Context, namespace, selector string) (*capture.Bundle, []chain.Gap, int, error) {
	b := &capture.Bundle{Skipped: map[string]int{}}
	requests := 0
	var gaps []chain.Gap
	scope := "namespace " + namespace
	if namespace == "" {
		scope = "all namespaces"
	}
	err := paged(ctx, &requests, metav1.ListOptions{LabelSelector: selector}, func(o metav1.ListOptions) (string, error) {
		l, err := r.Client.AppsV1().Deployments(namespace).List(ctx, o)
		if err != nil {
			return "", err
		}
		b.Deployments = append(b.Deployments, l.Items...)
		r.read.note("deployments", l.ResourceVersion)
		return l.Continue, nil
	})
	if err != nil {
		if apierrors.IsForbidden(err) {
			return nil, nil, requests, &ForbiddenError{Namespace: namespace, Message: err.Error(), Err: err, Check: canI("list", "deployments", namespace)}
		}
		return nil, nil, requests, fmt.Errorf("listing deployments in %s: %w", scope, err)
	}
	lists := []struct {
		res  chain.Resource
		list func(metav1.ListOptions) (string, error)
	}{
		{chain.ResourceReplicaSets, func(o metav1.ListOptions) (string, error) {
			l, err := r.Client.AppsV1().ReplicaSets(namespace).List(ctx, o)
			if err == nil {
				b.ReplicaSets = append(b.ReplicaSets, l.Items...)
				r.read.note("replicasets", l.ResourceVersion)
				return l.Continue, nil
			}
			return "", err
		}},
		{chain.ResourcePods, func(o metav1.ListOptions) (string, error) {
			l, err := r.Client.CoreV1().Pods(namespace).List(ctx, o)
			if err == nil {
				b.Pods = append(b.Pods, l.Items...)
				r.read.note("pods", l.ResourceVersion)
				return l.Continue, nil
			}
			return "", err
		}},
		{chain.ResourceEvents, func(o metav1.ListOptions) (string, error) {
			l, err := r.Client.CoreV1().Events(namespace).List(ctx, o)
			if err == nil {
				b.Events = appendRelevantKinds(b.Events, l.Items)
				r.read.note("events", l.ResourceVersion)
				return l.Continue, nil
			}
			return "", err
		}},
	}
	for _, l := range lists {
		err := paged(ctx, &requests, metav1.ListOptions{}, l.list)
		switch {
		case err == nil:
		case apierrors.IsForbidden(err):
			gaps = append(gaps, chain.Gap{Resource: l.res, Verb: "list", Forbidden: true, Message: err.Error(), Check: canI("list", string(l.res), namespace)})
		case l.res == chain.ResourceEvents && ctxAlive(err):
			gaps = append(gaps, chain.Gap{Resource: l.res, Verb: "list", Message: err.Error()})
		default:
			return nil, nil, requests, fmt.Errorf("listing %s in %s: %w", l.res, scope, err)
		}
	}
	return b, gaps, requests, nil
}

// paged runs a list page by page, counting each request.
func paged(ctx context.Context, requests *int, opts metav1.ListOptions, list func(metav1.ListOptions) (string, error)) error {
	opts.Limit = pageSize
	for {
		next, err := list(opts)
		*requests++
		if err != nil || next == "" {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		opts.Continue = next
	}
}
