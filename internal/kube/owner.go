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

// DeploymentOf finds the Deployment above a pod (its controller ReplicaSet's
// controller) or a ReplicaSet (its controller): one GET for a ReplicaSet,
// two for a pod. kind is "pod" or "replicaset".
func (r *Reader) DeploymentOf(ctx context.Context, namespace, kind, name string) (string, int, error) {
	requests := 0
	if kind == "pod" {
		p, err := r.Client.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
		requests++
		if err != nil {
			return "", requests, getError("pod", "pods", namespace, name, err)
		}
		ref := metav1.GetControllerOf(p)
		if ref == nil || ref.Kind != "ReplicaSet" {
			return "", requests, NewOwnerError("pod", namespace, name, ref)
		}
		kind, name = "replicaset", ref.Name
	}
	rs, err := r.Client.AppsV1().ReplicaSets(namespace).Get(ctx, name, metav1.GetOptions{})
	requests++
	if err != nil {
		return "", requests, getError("replicaset", "replicasets", namespace, name, err)
	}
	ref := metav1.GetControllerOf(rs)
	if ref == nil || ref.Kind != "Deployment" {
		return "", requests, NewOwnerError("replicaset", namespace, name, ref)
	}
	return ref.Name, requests, nil
}

// NewOwnerError is kind/name's lack of a Deployment above it; ref is its
// controller, nil when it has none.
func NewOwnerError(kind, namespace, name string, ref *metav1.OwnerReference) error {
	e := &OwnerError{Kind: kind, Namespace: namespace, Name: name}
	if ref != nil {
		e.OwnerKind, e.OwnerName = ref.Kind, ref.Name
	}
	return e
}

// getError is a failed GET of kind/name as the CLI reports it.
func getError(kind, resource, namespace, name string, err error) error {
	switch {
	case apierrors.IsNotFound(err):
		return &NotFoundError{Kind: kind, Namespace: namespace, Name: name, Err: err}
	case apierrors.IsForbidden(err):
		return &ForbiddenError{Namespace: namespace, Name: name, Message: err.Error(), Err: err,
			Check: canI("get", resource+"/"+name, namespace)}
	}
	return fmt.Errorf("getting %s %s/%s: %w", kind, namespace, name, err)
}
