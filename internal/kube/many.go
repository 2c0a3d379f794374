package kube

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/internal/capture"
)

// pageSize bounds each response when reading a whole namespace or cluster.
const pageSize = 500

// Many reads every workload of a namespace ("" for all namespaces) that
// matches a label selector ("" for all): its Deployments, StatefulSets,
// DaemonSets, Jobs and CronJobs, with all ReplicaSets, Pods and events of
// that scope (and the revisions, claims and nodes when a StatefulSet or
// DaemonSet is among them), as one bundle the walk can cut per workload.
// The cost is one paged list per kind, whatever the number of workloads. A
// forbidden list other than the Deployments' is a gap every snapshot cut
// from the bundle carries.
func (r *Reader) Many(ctx context.Context, namespace, selector string) (*capture.Bundle, []chain.Gap, int, error) {
	b := &capture.Bundle{Skipped: map[string]int{}}
	requests := 0
	var gaps []chain.Gap
	scope := "namespace " + namespace
	if namespace == "" {
		scope = "all namespaces"
	}
	apps, batch, core := r.Client.AppsV1(), r.Client.BatchV1(), r.Client.CoreV1()
	err := paged(ctx, &requests, metav1.ListOptions{LabelSelector: selector}, func(o metav1.ListOptions) (string, error) {
		l, err := apps.Deployments(namespace).List(ctx, o)
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
	type list struct {
		res  chain.Resource
		opts metav1.ListOptions
		list func(metav1.ListOptions) (string, error)
	}
	bySelector := metav1.ListOptions{LabelSelector: selector}
	run := func(lists []list) error {
		for _, l := range lists {
			err := paged(ctx, &requests, l.opts, l.list)
			switch {
			case err == nil:
			case apierrors.IsForbidden(err):
				check := canI("list", string(l.res), namespace)
				if l.res == chain.ResourceNodes {
					check = "kubectl auth can-i list nodes"
				}
				gaps = append(gaps, chain.Gap{Resource: l.res, Verb: "list", Forbidden: true, Message: err.Error(), Check: check})
			case l.res == chain.ResourceEvents && ctxAlive(err):
				gaps = append(gaps, chain.Gap{Resource: l.res, Verb: "list", Message: err.Error()})
			default:
				return fmt.Errorf("listing %s in %s: %w", l.res, scope, err)
			}
		}
		return nil
	}
	// The other kinds, by the same selector; Jobs all, since a CronJob's
	// Jobs need not carry its labels (the walk keeps the Jobs the selector
	// matches and those of the CronJobs it matches).
	err = run([]list{
		{chain.ResourceStatefulSets, bySelector, func(o metav1.ListOptions) (string, error) {
			l, err := apps.StatefulSets(namespace).List(ctx, o)
			return collect(l, err, &b.StatefulSets, func(l *appsv1.StatefulSetList) []appsv1.StatefulSet { return l.Items })
		}},
		{chain.ResourceDaemonSets, bySelector, func(o metav1.ListOptions) (string, error) {
			l, err := apps.DaemonSets(namespace).List(ctx, o)
			return collect(l, err, &b.DaemonSets, func(l *appsv1.DaemonSetList) []appsv1.DaemonSet { return l.Items })
		}},
		{chain.ResourceCronJobs, bySelector, func(o metav1.ListOptions) (string, error) {
			l, err := batch.CronJobs(namespace).List(ctx, o)
			return collect(l, err, &b.CronJobs, func(l *batchv1.CronJobList) []batchv1.CronJob { return l.Items })
		}},
		{chain.ResourceJobs, metav1.ListOptions{}, func(o metav1.ListOptions) (string, error) {
			l, err := batch.Jobs(namespace).List(ctx, o)
			return collect(l, err, &b.Jobs, func(l *batchv1.JobList) []batchv1.Job { return l.Items })
		}},
	})
	if err != nil {
		return nil, nil, requests, err
	}
	lists := []list{
		{chain.ResourcePods, metav1.ListOptions{}, func(o metav1.ListOptions) (string, error) {
			l, err := core.Pods(namespace).List(ctx, o)
			if err == nil {
				r.read.note("pods", l.ResourceVersion)
			}
			return collect(l, err, &b.Pods, func(l *corev1.PodList) []corev1.Pod { return l.Items })
		}},
		{chain.ResourceEvents, metav1.ListOptions{}, func(o metav1.ListOptions) (string, error) {
			l, err := core.Events(namespace).List(ctx, o)
			if err == nil {
				b.Events = appendRelevantKinds(b.Events, l.Items)
				r.read.note("events", l.ResourceVersion)
				return l.Continue, nil
			}
			return "", err
		}},
	}
	if len(b.Deployments) > 0 {
		lists = append(lists, list{chain.ResourceReplicaSets, metav1.ListOptions{}, func(o metav1.ListOptions) (string, error) {
			l, err := apps.ReplicaSets(namespace).List(ctx, o)
			if err == nil {
				r.read.note("replicasets", l.ResourceVersion)
			}
			return collect(l, err, &b.ReplicaSets, func(l *appsv1.ReplicaSetList) []appsv1.ReplicaSet { return l.Items })
		}})
	}
	if len(b.StatefulSets)+len(b.DaemonSets) > 0 {
		lists = append(lists, list{chain.ResourceControllerRevisions, metav1.ListOptions{}, func(o metav1.ListOptions) (string, error) {
			l, err := apps.ControllerRevisions(namespace).List(ctx, o)
			return collect(l, err, &b.Revisions, func(l *appsv1.ControllerRevisionList) []appsv1.ControllerRevision { return l.Items })
		}})
	}
	if len(b.StatefulSets) > 0 {
		lists = append(lists, list{chain.ResourceClaims, metav1.ListOptions{}, func(o metav1.ListOptions) (string, error) {
			l, err := core.PersistentVolumeClaims(namespace).List(ctx, o)
			return collect(l, err, &b.Claims, func(l *corev1.PersistentVolumeClaimList) []corev1.PersistentVolumeClaim { return l.Items })
		}})
	}
	if len(b.DaemonSets) > 0 {
		lists = append(lists, list{chain.ResourceNodes, metav1.ListOptions{}, func(o metav1.ListOptions) (string, error) {
			l, err := core.Nodes().List(ctx, o)
			return collect(l, err, &b.Nodes, func(l *corev1.NodeList) []corev1.Node { return l.Items })
		}})
	}
	if err := run(lists); err != nil {
		return nil, nil, requests, err
	}
	for i := range b.Revisions {
		b.Revisions[i].Data.Raw = nil
	}
	for i := range b.Nodes {
		b.Nodes[i].Status.Images = nil
	}
	return b, gaps, requests, nil
}

// collect appends one page of a typed list and returns where the next
// page starts.
func collect[L interface{ GetContinue() string }, T any](l L, err error, dst *[]T, items func(L) []T) (string, error) {
	if err != nil {
		return "", err
	}
	*dst = append(*dst, items(l)...)
	return l.GetContinue(), nil
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
