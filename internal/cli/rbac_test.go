package cli

import (
	"bufio"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

// TestRBACCommand: the printed Role grants exactly kube.Permissions' namespaced
// verbs in -n's namespace, the nodes come in a ClusterRole of their own,
// -A grants it all cluster-wide, every binding names the subject, and
// nothing but get, list and watch is granted, never on Secrets.
func TestRBACCommand(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "default")
	docs := func(out string) map[string][]byte {
		m := map[string][]byte{}
		r := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(out)))
		for {
			doc, err := r.Read()
			if err != nil {
				break
			}
			var tm struct{ Kind string }
			if yaml.Unmarshal(doc, &tm) == nil && tm.Kind != "" {
				m[tm.Kind] = doc
			}
		}
		return m
	}
	rules := func(doc []byte, kind string) []rbacv1.PolicyRule {
		if kind == "Role" {
			var r rbacv1.Role
			if err := yaml.Unmarshal(doc, &r); err != nil {
				t.Fatal(err)
			}
			return r.Rules
		}
		var r rbacv1.ClusterRole
		if err := yaml.Unmarshal(doc, &r); err != nil {
			t.Fatal(err)
		}
		return r.Rules
	}
	check := func(rs []rbacv1.PolicyRule) int {
		n := 0
		for _, r := range rs {
			for _, v := range r.Verbs {
				if v != "get" && v != "list" && v != "watch" {
					t.Errorf("verb %s granted", v)
				}
			}
			for _, res := range r.Resources {
				if res == "secrets" {
					t.Error("secrets granted")
				}
				n++
			}
		}
		return n
	}
	r := runWith(t, nil, "rbac", "--serviceaccount", "ci:deployer", "-n", "shop")
	m := docs(r.stdout)
	if r.code != 0 || len(m) != 4 {
		t.Fatalf("exit %d, %d kinds of documents:\n%s\n%s", r.code, len(m), r.stdout, r.stderr)
	}
	cluster := 0
	for _, p := range kube.Permissions {
		if p.Cluster {
			cluster++
		}
	}
	if n := check(rules(m["Role"], "Role")); n != len(kube.Permissions)-cluster {
		t.Errorf("the Role grants %d resources, want %d", n, len(kube.Permissions)-cluster)
	}
	if n := check(rules(m["ClusterRole"], "ClusterRole")); n != cluster {
		t.Errorf("the ClusterRole grants %d resources, want the %d cluster-scoped ones", n, cluster)
	}
	for _, kind := range []string{"Role", "RoleBinding"} {
		if !strings.Contains(string(m[kind]), "namespace: shop") {
			t.Errorf("%s is not in namespace shop:\n%s", kind, m[kind])
		}
	}
	var rb rbacv1.RoleBinding
	if err := yaml.Unmarshal(m["RoleBinding"], &rb); err != nil || len(rb.Subjects) != 1 || rb.Subjects[0].Kind != "ServiceAccount" ||
		rb.Subjects[0].Namespace != "ci" || rb.Subjects[0].Name != "deployer" || rb.RoleRef.Name != rbacName {
		t.Errorf("RoleBinding %+v (%v)", rb, err)
	}
	r = runWith(t, nil, "rbac", "--group", "sre", "-A")
	m = docs(r.stdout)
	if _, ok := m["Role"]; ok || r.code != 0 {
		t.Errorf("-A printed a Role, or exit %d", r.code)
	}
	if n := check(rules(m["ClusterRole"], "ClusterRole")); n != len(kube.Permissions) {
		t.Errorf("-A: the ClusterRole grants %d resources, want all %d", n, len(kube.Permissions))
	}
	for _, args := range [][]string{{"rbac"}, {"rbac", "--serviceaccount", "deployer"}, {"rbac", "--user", "a", "--group", "b"}} {
		if r := runWith(t, nil, args...); r.code != ExitUsage || r.stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
}
