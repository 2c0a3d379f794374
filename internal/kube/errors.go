package kube

import "fmt"

// NotFoundError says the Deployment asked for does not exist. It has its own
// type so the CLI can say so plainly instead of printing an API status, and
// so CI can tell a typo in a pipeline from a broken rollout.
type NotFoundError struct {
	// Kind is the resource, "deployment" when empty: a pod or ReplicaSet
	// named to find its Deployment can be missing too.
	Kind      string
	Namespace string
	Name      string
	// Err is the API server's error, kept so apierrors.IsNotFound still holds.
	Err error
	// Requests, when set, counts the requests the read sent before it
	// knew (a traffic object's lists go out beside its GET).
	Requests int
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("%s %s/%s not found", e.What(), e.Namespace, e.Name)
}

// What is the kind of the missing object, in kubectl's words.
func (e *NotFoundError) What() string {
	if e.Kind == "" {
		return "deployment"
	}
	return e.Kind
}

// Unwrap returns the API server's error.
func (e *NotFoundError) Unwrap() error { return e.Err }

// ForbiddenError says RBAC refused to let us read the Deployment itself.
// Without it nothing else can be judged, so unlike a forbidden list it is an
// error, not a gap; it carries the command that checks the permission.
type ForbiddenError struct {
	// Kind is the resource refused, "deployment" when empty.
	Kind      string
	Namespace string
	Name      string
	// Message is the API server's error text, verbatim.
	Message string
	// Check is the `kubectl auth can-i` command to run.
	Check string
	Err   error
}

func (e *ForbiddenError) Error() string {
	kind := e.Kind
	if kind == "" {
		kind = "deployment"
	}
	return fmt.Sprintf("getting %s %s/%s: %s", kind, e.Namespace, e.Name, e.Message)
}

// Unwrap returns the API server's error, so apierrors.IsForbidden still holds.
func (e *ForbiddenError) Unwrap() error { return e.Err }

// canI is the command that tells whether the current identity may do verb on
// resource in the namespace.
func canI(verb, resource, namespace string) string {
	if namespace == "" {
		return fmt.Sprintf("kubectl auth can-i %s %s --all-namespaces", verb, resource)
	}
	return fmt.Sprintf("kubectl auth can-i %s %s -n %s", verb, resource, namespace)
}
