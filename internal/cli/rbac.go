package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/internal/connect"
	"github.com/kubectl-chain/kubectl-chain/internal/engine"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
	"github.com/kubectl-chain/kubectl-chain/internal/serve"
)

// rbacName names the Role, ClusterRoles and bindings `kubectl chain rbac`
// prints.
const rbacName = "kubectl-chain-reader"

type rbacOptions struct {
	user, group, serviceAccount string
	allNamespaces               bool
	// manifests are a release whose objects of other kinds are granted
	// too (get and watch), as --manifests judges them.
	manifests []string
}

func newRBACCommand(o *Options) *cobra.Command {
	r := &rbacOptions{}
	cmd := &cobra.Command{
		Use:   "rbac (--serviceaccount NAMESPACE:NAME | --user NAME | --group NAME) [-n NAMESPACE | -A]",
		Short: "Print the minimal RBAC kubectl chain needs: get, list and watch on what it reads, nothing else",
		Long: `Print, as YAML for kubectl apply -f -, the least RBAC that lets a user, group or
ServiceAccount run every kubectl chain command: a Role and RoleBinding for one
namespace (plus a ClusterRole for the nodes a DaemonSet's chain reads, which a
Role cannot grant; without it that link says what it could not read), or with
-A a ClusterRole and ClusterRoleBinding for every namespace. Only get, list
and watch; never Secrets.`,
		Example: `  kubectl chain rbac --serviceaccount ci:deployer -n shop | kubectl apply -f -
  kubectl chain rbac --group sre -A`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			subject, err := r.subject()
			if err != nil {
				return err
			}
			ns := ""
			if !r.allNamespaces {
				if ns, _, err = o.ConfigFlags.ToRawKubeConfigLoader().Namespace(); err != nil || ns == "" {
					ns = "default"
				}
			}
			var extra []kube.Permission
			if len(r.manifests) > 0 {
				req, err := o.request()
				if err != nil {
					return err
				}
				req.Manifests = r.manifests
				if req.Namespace, err = connect.Kubeconfig(o.ConfigFlags, o.ErrOut); err != nil {
					return err
				}
				if extra, err = releasePermissions(engine.New(*req, o.ErrOut)); err != nil {
					return err
				}
			}
			out, err := rbacManifests(ns, subject, extra...)
			if err != nil {
				return err
			}
			_, err = o.Out.Write(out)
			return err
		},
	}
	cmd.Flags().StringVar(&r.serviceAccount, "serviceaccount", "", "bind to this ServiceAccount, as NAMESPACE:NAME")
	cmd.Flags().StringVar(&r.user, "user", "", "bind to this user")
	cmd.Flags().StringVar(&r.group, "group", "", "bind to this group")
	cmd.Flags().StringArrayVar(&r.manifests, "manifests", nil, "also grant get and watch on the release's objects of other kinds (a Certificate, a HelmRelease, a claim), resolved through the cluster's discovery, never Secrets: what kubectl chain --manifests judges (repeatable; - reads stdin)")
	cmd.Flags().BoolVarP(&r.allNamespaces, "all-namespaces", "A", false, "grant every namespace (what -A and --manifests over several namespaces need)")
	return cmd
}

// subject is the one identity the flags name.
func (r *rbacOptions) subject() (rbacv1.Subject, error) {
	var subjects []rbacv1.Subject
	if r.serviceAccount != "" {
		ns, name, ok := strings.Cut(r.serviceAccount, ":")
		if !ok || ns == "" || name == "" {
			return rbacv1.Subject{}, usageErrorf("--serviceaccount %q: give it as NAMESPACE:NAME", r.serviceAccount)
		}
		subjects = append(subjects, rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: name})
	}
	if r.user != "" {
		subjects = append(subjects, rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: r.user})
	}
	if r.group != "" {
		subjects = append(subjects, rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: r.group})
	}
	if len(subjects) != 1 {
		return rbacv1.Subject{}, usageErrorf("name whom to grant: one of --serviceaccount NAMESPACE:NAME, --user NAME or --group NAME")
	}
	return subjects[0], nil
}

// rbacManifests are the Role (namespace ns) or ClusterRole ("" for every
// namespace) of kube.Permissions and their bindings to subject.
func rbacManifests(ns string, subject rbacv1.Subject, extra ...kube.Permission) ([]byte, error) {
	var namespaced, cluster []rbacv1.PolicyRule
	for _, p := range append(slices.Clone(kube.Permissions), extra...) {
		rule := rbacv1.PolicyRule{APIGroups: []string{p.Group}, Resources: []string{p.Resource}, Verbs: p.Verbs}
		if p.Cluster || ns == "" {
			cluster = append(cluster, rule)
		} else {
			namespaced = append(namespaced, rule)
		}
	}
	labels := map[string]string{"app.kubernetes.io/name": "kubectl-chain"}
	var docs []any
	clusterRole := rbacName
	if ns != "" {
		clusterRole = rbacName + "-nodes"
		docs = append(docs,
			&rbacv1.Role{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "Role"},
				ObjectMeta: metav1.ObjectMeta{Name: rbacName, Namespace: ns, Labels: labels}, Rules: namespaced},
			&rbacv1.RoleBinding{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding"},
				ObjectMeta: metav1.ObjectMeta{Name: rbacName, Namespace: ns, Labels: labels},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: rbacName}, Subjects: []rbacv1.Subject{subject}})
	}
	docs = append(docs,
		&rbacv1.ClusterRole{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
			ObjectMeta: metav1.ObjectMeta{Name: clusterRole, Labels: labels}, Rules: cluster},
		&rbacv1.ClusterRoleBinding{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRoleBinding"},
			ObjectMeta: metav1.ObjectMeta{Name: bindingName(clusterRole, subject), Labels: labels},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: clusterRole}, Subjects: []rbacv1.Subject{subject}})
	return serve.YAMLDocs(fmt.Sprintf("# kubectl chain %s: get, list and watch only; never Secrets.\n", Version()), docs)
}

// releasePermissions are get and watch on each resource of the release's
// objects of other kinds, once each, in the order the release names them.
func releasePermissions(e *engine.Engine) ([]kube.Permission, error) {
	apis, err := e.ReleaseAPIs()
	if err != nil {
		return nil, err
	}
	var out []kube.Permission
	for _, api := range apis {
		p := kube.Permission{Group: api.Group, Resource: api.Resource, Verbs: []string{"get", "watch"}, Cluster: !api.Namespaced,
			Why: "a " + api.Kind + " of the release (--manifests)"}
		if !slices.ContainsFunc(out, func(q kube.Permission) bool { return q.Group == p.Group && q.Resource == p.Resource }) {
			out = append(out, p)
		}
	}
	return out, nil
}

// bindingName keeps cluster-wide bindings of different subjects apart.
func bindingName(role string, s rbacv1.Subject) string {
	name := strings.ToLower(s.Kind) + "-" + s.Name
	if s.Namespace != "" {
		name = strings.ToLower(s.Kind) + "-" + s.Namespace + "-" + s.Name
	}
	return role + "-" + strings.NewReplacer(":", "-", "@", "-", "/", "-").Replace(name)
}
