package kube

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// OwnerError says a ReplicaSet that was named to find its Deployment has
// none, or a pod has a controller of a kind kubectl chain does not walk.
type OwnerError struct {
	Kind, Namespace, Name string
	// OwnerKind and OwnerName are its controller, empty when it has none.
	OwnerKind, OwnerName string
}

func (e *OwnerError) Error() string {
	if e.OwnerKind == "" {
		return fmt.Sprintf("%s %s/%s has no controller", e.Kind, e.Namespace, e.Name)
	}
	return fmt.Sprintf("%s %s/%s is controlled by %s %s, which kubectl chain does not walk", e.Kind, e.Namespace, e.Name, e.OwnerKind, e.OwnerName)
}

// podOwner is the kind of the kinds table that a pod's controller is,
// when that kind's own controller creates its pods (a StatefulSet,
// DaemonSet or Job): its chain is walked. A kind of another group that
// shares the name (OpenKruise's DaemonSet) is not.
func podOwner(ref *metav1.OwnerReference) (chain.Kind, bool) {
	row, ok := chain.RowOf(chain.Kind(ref.Kind))
	gv, _ := schema.ParseGroupVersion(ref.APIVersion)
	if ref.Kind == "" || !ok || !row.CreatesPods() || chain.Foreign(row.Kind, gv.Group) {
		return "", false
	}
	return row.Kind, true
}

// FollowOwners finds the workload above kind/name ("pod" or "replicaset"),
// reading each object on the way with get: a pod's StatefulSet, DaemonSet
// or Job, or its ReplicaSet and then that one's Deployment or Argo
// Rollout. A pod with no
// controller is walked alone (chain.KindPod). Live (OwnerOf) and captured
// objects take the same way.
func FollowOwners(kind, name string, get func(kind, name string) (metav1.Object, error)) (chain.Ref, error) {
	for {
		obj, err := get(kind, name)
		if err != nil {
			return chain.Ref{}, err
		}
		ref := metav1.GetControllerOf(obj)
		switch {
		case kind == "pod" && ref == nil:
			return chain.Ref{Kind: chain.KindPod, Name: name}, nil
		case kind == "pod" && ref.Kind == "ReplicaSet":
			kind, name = "replicaset", ref.Name
			continue
		case kind == "pod":
			if k, ok := podOwner(ref); ok {
				return chain.Ref{Kind: k, Name: ref.Name}, nil
			}
		case kind == "replicaset" && ref != nil && ref.Kind == "Deployment":
			return chain.Ref{Kind: chain.KindDeployment, Name: ref.Name}, nil
		case kind == "replicaset" && ref != nil && ref.Kind == string(chain.KindRollout) && strings.HasPrefix(ref.APIVersion, chain.RolloutGroup+"/"):
			return chain.Ref{Kind: chain.KindRollout, Name: ref.Name}, nil
		}
		e := &OwnerError{Kind: kind, Namespace: obj.GetNamespace(), Name: name}
		if ref != nil {
			e.OwnerKind, e.OwnerName = ref.Kind, ref.Name
		}
		return chain.Ref{}, e
	}
}

// OwnerOf finds the workload above a pod or ReplicaSet of the namespace:
// one GET for a ReplicaSet or a pod of a StatefulSet, DaemonSet or Job, two
// for a Deployment's pod.
func (r *Reader) OwnerOf(ctx context.Context, namespace, kind, name string) (chain.Ref, error) {
	return FollowOwners(kind, name, func(kind, name string) (metav1.Object, error) {
		var (
			obj metav1.Object
			err error
		)
		if kind == "pod" {
			obj, err = r.Client.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
		} else {
			obj, err = r.Client.AppsV1().ReplicaSets(namespace).Get(ctx, name, metav1.GetOptions{})
		}
		if err != nil {
			return nil, getError(kind, kind+"s", namespace, name, err)
		}
		return obj, nil
	})
}

// getError is a failed GET of kind/name as the CLI reports it.
func getError(kind, resource, namespace, name string, err error) error {
	switch {
	case apierrors.IsNotFound(err):
		return &NotFoundError{Kind: kind, Namespace: namespace, Name: name, Err: err}
	case apierrors.IsForbidden(err):
		return &ForbiddenError{Kind: kind, Namespace: namespace, Name: name, Message: err.Error(), Err: err,
			Check: canI("get", resource+"/"+name, namespace)}
	}
	return fmt.Errorf("getting %s %s/%s: %w", kind, namespace, name, err)
}
