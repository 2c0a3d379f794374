package kube

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// OwnerError says a pod or ReplicaSet that was named to find its
// Deployment has no Deployment above it: no controller at all, or a
// controller of another kind.
type OwnerError struct {
	Kind, Namespace, Name string
	// OwnerKind and OwnerName are its controller, empty when it has none.
	OwnerKind, OwnerName string
}

func (e *OwnerError) Error() string {
	if e.OwnerKind == "" {
		return fmt.Sprintf("%s %s/%s has no controller", e.Kind, e.Namespace, e.Name)
	}
	return fmt.Sprintf("%s %s/%s is controlled by %s %s, not by a Deployment", e.Kind, e.Namespace, e.Name, e.OwnerKind, e.OwnerName)
}

// ownerKinds is the controller each kind must have on the way up to a
// Deployment, and the kind that controller is looked up as.
var ownerKinds = map[string]struct{ owner, next string }{
	"pod":        {"ReplicaSet", "replicaset"},
	"replicaset": {"Deployment", "deployment"},
}

// FollowOwners finds the Deployment above kind/name ("pod" or
// "replicaset"), reading each object on the way with get: a pod's
// controller ReplicaSet, then that one's controller Deployment. Live
// (DeploymentOf) and captured objects take the same way.
func FollowOwners(kind, name string, get func(kind, name string) (metav1.Object, error)) (string, error) {
	for kind != "deployment" {
		obj, err := get(kind, name)
		if err != nil {
			return "", err
		}
		up := ownerKinds[kind]
		ref := metav1.GetControllerOf(obj)
		if ref == nil || ref.Kind != up.owner {
			e := &OwnerError{Kind: kind, Namespace: obj.GetNamespace(), Name: name}
			if ref != nil {
				e.OwnerKind, e.OwnerName = ref.Kind, ref.Name
			}
			return "", e
		}
		kind, name = up.next, ref.Name
	}
	return name, nil
}

// DeploymentOf finds the Deployment above a pod or ReplicaSet of the
// namespace: one GET for a ReplicaSet, two for a pod.
func (r *Reader) DeploymentOf(ctx context.Context, namespace, kind, name string) (string, error) {
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
