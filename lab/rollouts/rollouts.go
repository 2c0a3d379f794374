// Package rollouts runs Argo Rollouts' own controller in the lab (`up
// --rollouts-controller PATH`): rollouts-controller v1.10.2, built by the
// module lab/rolloutsbin. What only that controller writes (a
// Rollout's phase, its pause conditions, an AnalysisRun's failed metric,
// its abort) is then written by the real controller, never by the lab.
// `up` installs Argo's CRDs from the directory beside the program and
// grants the controller's user cluster-admin (a lab shortcut: upstream's
// ClusterRole is narrower; the lab runs no other tenant).
package rollouts

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-chain/kubectl-chain/lab/crd"
)

// Program is the file name of the controller's program.
const Program = "rollouts-controller"

// CRDDir is the directory beside the program that holds Argo's CRDs (its
// module's manifests/crds).
const CRDDir = "argo-rollouts-crds"

// BuildHint says how to build the program and place its CRDs, from a
// checkout.
const BuildHint = "from a checkout of kubectl-chain: GOTOOLCHAIN=go1.27.3 go build -C lab/rolloutsbin -o DIR/ tool && " +
	`cp -r "$(go -C lab/rolloutsbin list -m -f '{{.Dir}}' github.com/argoproj/argo-rollouts)/manifests/crds" DIR/` + CRDDir

// Resource is the path the controller's user must be able to read before
// it starts: the Rollouts, which exist once the CRDs are established.
const Resource = "/apis/argoproj.io/v1alpha1/rollouts"

// CRDs are the CRD manifests beside program, in name order.
func CRDs(program string) ([]string, error) {
	dir := filepath.Join(filepath.Dir(program), CRDDir)
	paths, err := filepath.Glob(filepath.Join(dir, "*-crd.yaml"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("--rollouts-controller %s: no Argo Rollouts CRDs (*-crd.yaml) in %s; place them %s", program, dir, BuildHint)
	}
	sort.Strings(paths)
	return paths, nil
}

// CheckProgram reports a path that is not an executable file, or one
// without its CRDs beside it.
func CheckProgram(path string) error {
	st, err := os.Stat(path)
	if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		return fmt.Errorf("--rollouts-controller %s is not an executable file; build %s %s", path, Program, BuildHint)
	}
	_, err = CRDs(path)
	return err
}

// Command is the controller's process: the program with the component's
// kubeconfig, no leader election, and its metrics and health servers on
// ports the kernel picks (two labs never collide).
func Command(program, kubeconfig string) *exec.Cmd {
	return exec.Command(program, "--kubeconfig", kubeconfig, "--leader-elect=false", "--metricsPort", "0", "--healthzPort", "0")
}

const bindingName = "kubectl-chain-lab:rollouts-controller"

// Install creates Argo's CRDs and grants user cluster-admin; it reports
// whether every CRD is established.
func Install(ctx context.Context, c kubernetes.Interface, program, user string) (bool, error) {
	paths, err := CRDs(program)
	if err != nil {
		return false, err
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: bindingName},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	if _, err := c.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return false, nil
	}
	all := true
	for _, p := range paths {
		manifest, err := os.ReadFile(p)
		if err != nil {
			return false, err
		}
		ok, err := crd.Install(ctx, c, manifest)
		if err != nil {
			return false, fmt.Errorf("%s: %w", p, err)
		}
		all = all && ok
	}
	return all, nil
}
