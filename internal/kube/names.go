package kube

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Names lists the names of the namespace's objects of kind ("deployment",
// "statefulset", "daemonset", "job", "cronjob", "pod", "replicaset",
// "service", "ingress", or a kind of the kinds table served by its CRD:
// "gateway", "httproute", "rollout"...), for shell completion: one list,
// only when the shell asks.
func (r *Reader) Names(ctx context.Context, namespace, kind string) ([]string, error) {
	var (
		list runtime.Object
		err  error
	)
	switch kind {
	case "deployment":
		list, err = r.Client.AppsV1().Deployments(namespace).List(ctx, metav1.ListOptions{})
	case "pod":
		list, err = r.Client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
	case "replicaset":
		list, err = r.Client.AppsV1().ReplicaSets(namespace).List(ctx, metav1.ListOptions{})
	case "statefulset":
		list, err = r.Client.AppsV1().StatefulSets(namespace).List(ctx, metav1.ListOptions{})
	case "daemonset":
		list, err = r.Client.AppsV1().DaemonSets(namespace).List(ctx, metav1.ListOptions{})
	case "job":
		list, err = r.Client.BatchV1().Jobs(namespace).List(ctx, metav1.ListOptions{})
	case "cronjob":
		list, err = r.Client.BatchV1().CronJobs(namespace).List(ctx, metav1.ListOptions{})
	case "service":
		list, err = r.Client.CoreV1().Services(namespace).List(ctx, metav1.ListOptions{})
	case "ingress":
		list, err = r.Client.NetworkingV1().Ingresses(namespace).List(ctx, metav1.ListOptions{})
	default:
		// A kind served once its CRD is installed (the Gateway API's,
		// an Argo Rollout): through the dynamic client.
		k, ok := chain.KindBySpelling(kind)
		row, _ := chain.RowOf(k)
		if !ok || !row.CRD {
			return nil, fmt.Errorf("no names of kind %q", kind)
		}
		dc, derr := r.dynamicOf()
		if derr != nil {
			return nil, derr
		}
		list, err = dc.Resource(gvrOf(row.API())).Namespace(namespace).List(ctx, metav1.ListOptions{})
	}
	if err != nil {
		return nil, err
	}
	var names []string
	err = meta.EachListItem(list, func(o runtime.Object) error {
		m, err := meta.Accessor(o)
		if err == nil {
			names = append(names, m.GetName())
		}
		return err
	})
	return names, err
}

// gvrOf is where a resource of api is served, for the dynamic client.
func gvrOf(api chain.APIResource) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: api.Group, Version: api.Version, Resource: api.Resource}
}
