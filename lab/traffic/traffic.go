// Package traffic runs the lab's Ingress and Gateway API controller (`up
// --traffic-controller PATH`): lab-traefik, built by the module
// lab/trafficbin from Traefik's Kubernetes Ingress and Gateway
// providers. What only a controller writes (an Ingress's address, a
// GatewayClass accepted, a route's ResolvedRefs) is then written by a real
// controller, never invented by the lab. `up` grants its user Traefik's
// RBAC and creates the classes a Traefik install has: IngressClass and
// GatewayClass "traefik".
package traffic

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"

	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Traefik's controller names, which its providers match classes by.
const (
	IngressController = "traefik.io/ingress-controller"
	GatewayController = "traefik.io/gateway-controller"
)

// Class is the name of the IngressClass and the GatewayClass `up` creates.
const Class = "traefik"

// Program is the file name of the controller's program.
const Program = "lab-traefik"

// BuildHint says how to build the program, from a checkout.
const BuildHint = "from a checkout of kubectl-chain: go build -C lab/trafficbin -o DIR/ ./cmd/lab-traefik"

// CheckProgram reports a path that is not an executable file.
func CheckProgram(path string) error {
	st, err := os.Stat(path)
	if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		return fmt.Errorf("--traffic-controller %s is not an executable file; build %s %s", path, Program, BuildHint)
	}
	return nil
}

// Command is the controller's process: the program with the component's
// kubeconfig, writing address into the statuses.
func Command(program, kubeconfig, address string) *exec.Cmd {
	cmd := exec.Command(program, "--address", address)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	return cmd
}

const roleName = "kubectl-chain-lab:traffic-controller"

// ClusterRole is what Traefik's providers read and write: the objects they
// watch, and the statuses they update.
func ClusterRole() *rbacv1.ClusterRole {
	read := []string{"get", "list", "watch"}
	status := []string{"get", "update", "patch"}
	return &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: roleName},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"namespaces", "nodes", "services", "secrets", "configmaps"}, Verbs: read},
			{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: read},
			{APIGroups: []string{"networking.k8s.io"}, Resources: []string{"ingresses", "ingressclasses"}, Verbs: read},
			{APIGroups: []string{"networking.k8s.io"}, Resources: []string{"ingresses/status"}, Verbs: status},
			{APIGroups: []string{gatewayv1.GroupName}, Resources: []string{"gatewayclasses", "gateways", "httproutes", "grpcroutes", "tlsroutes", "tcproutes", "referencegrants", "backendtlspolicies"}, Verbs: read},
			{APIGroups: []string{gatewayv1.GroupName}, Resources: []string{"gatewayclasses/status", "gateways/status", "httproutes/status", "grpcroutes/status", "tlsroutes/status", "tcproutes/status", "backendtlspolicies/status"}, Verbs: status},
		},
	}
}

// Install grants user the ClusterRole, creates the classes, and reports
// whether the controller has accepted GatewayClass "traefik" (it has
// started and writes statuses).
func Install(ctx context.Context, c kubernetes.Interface, user string) (bool, error) {
	if _, err := c.RbacV1().ClusterRoles().Create(ctx, ClusterRole(), metav1.CreateOptions{}); ignoreExists(err) != nil {
		return false, nil
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: roleName},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: roleName},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	if _, err := c.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); ignoreExists(err) != nil {
		return false, nil
	}
	ic := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: Class}, Spec: networkingv1.IngressClassSpec{Controller: IngressController}}
	if _, err := c.NetworkingV1().IngressClasses().Create(ctx, ic, metav1.CreateOptions{}); ignoreExists(err) != nil {
		return false, nil
	}
	gc := &gatewayv1.GatewayClass{
		TypeMeta:   metav1.TypeMeta{APIVersion: gatewayv1.GroupVersion.String(), Kind: "GatewayClass"},
		ObjectMeta: metav1.ObjectMeta{Name: Class},
		Spec:       gatewayv1.GatewayClassSpec{ControllerName: GatewayController},
	}
	body, err := json.Marshal(gc)
	if err != nil {
		return false, err
	}
	rest := c.Discovery().RESTClient()
	err = rest.Post().AbsPath(classesPath).SetHeader("Content-Type", "application/json").Body(body).Do(ctx).Error()
	if ignoreExists(err) != nil {
		return false, nil
	}
	return Accepted(ctx, c)
}

const classesPath = "/apis/gateway.networking.k8s.io/v1/gatewayclasses"

// Accepted reports whether the controller has accepted GatewayClass
// "traefik": false, and no error, while it has not (or the class is
// missing).
func Accepted(ctx context.Context, c kubernetes.Interface) (bool, error) {
	raw, err := c.Discovery().RESTClient().Get().AbsPath(classesPath, Class).DoRaw(ctx)
	if err != nil {
		return false, nil
	}
	var gc gatewayv1.GatewayClass
	if err := json.Unmarshal(raw, &gc); err != nil {
		return false, err
	}
	return meta.IsStatusConditionTrue(gc.Status.Conditions, string(gatewayv1.GatewayClassConditionStatusAccepted)), nil
}

func ignoreExists(err error) error {
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}
