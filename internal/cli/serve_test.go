package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"
)

// TestServeManifests: what serve manifests prints decodes as Kubernetes
// objects; the watcher runs serve -A as non-root; its RBAC reads only
// (never Secrets), and may create events only with --events.
func TestServeManifests(t *testing.T) {
	for _, events := range []bool{false, true} {
		out, err := serveManifests(&serveManifestOptions{namespace: "obs", image: "registry.example.com/kubectl-chain:v1", events: events})
		if err != nil {
			t.Fatal(err)
		}
		var kinds []string
		createsEvents := false
		for _, doc := range strings.Split(string(out), "\n---\n") {
			if strings.TrimSpace(strings.TrimPrefix(doc, "---")) == "" || !strings.Contains(doc, "kind:") {
				continue
			}
			if strings.Contains(doc, "kind: PrometheusRule") {
				var rule map[string]any
				if err := yaml.Unmarshal([]byte(doc), &rule); err != nil || !strings.Contains(doc, "kubectl_chain_workload_broken_info") {
					t.Errorf("PrometheusRule: %v\n%s", err, doc)
				}
				kinds = append(kinds, "PrometheusRule")
				continue
			}
			obj, _, err := scheme.Codecs.UniversalDeserializer().Decode([]byte(doc), nil, nil)
			if err != nil {
				t.Fatalf("decoding:\n%s\n%v", doc, err)
			}
			kinds = append(kinds, obj.GetObjectKind().GroupVersionKind().Kind)
			checkServeObject(t, obj, &createsEvents)
		}
		want := "ServiceAccount,Deployment,Service,PrometheusRule,ClusterRole,ClusterRoleBinding"
		if events {
			want = "ServiceAccount,ClusterRole,ClusterRoleBinding,Deployment,Service,PrometheusRule,ClusterRole,ClusterRoleBinding"
		}
		if got := strings.Join(kinds, ","); got != want {
			t.Errorf("events %v: kinds %s, want %s", events, got, want)
		}
		if createsEvents != events {
			t.Errorf("events %v: create on events granted %v", events, createsEvents)
		}
	}
}

func checkServeObject(t *testing.T, obj runtime.Object, createsEvents *bool) {
	t.Helper()
	switch o := obj.(type) {
	case *appsv1.Deployment:
		spec := o.Spec.Template.Spec
		c := spec.Containers[0]
		if args := strings.Join(c.Args, " "); !strings.HasPrefix(args, "serve -A --listen :8080") || c.Image != "registry.example.com/kubectl-chain:v1" ||
			!*spec.SecurityContext.RunAsNonRoot || !*c.SecurityContext.ReadOnlyRootFilesystem || o.Namespace != "obs" {
			t.Errorf("Deployment: args %q image %s", args, c.Image)
		}
	case *rbacv1.ClusterRole:
		for _, r := range o.Rules {
			for _, res := range r.Resources {
				if res == "secrets" {
					t.Errorf("ClusterRole %s grants Secrets", o.Name)
				}
			}
			for _, v := range r.Verbs {
				switch {
				case v == "create" && len(r.Resources) == 1 && r.Resources[0] == "events":
					*createsEvents = true
				case v != "get" && v != "list" && v != "watch":
					t.Errorf("ClusterRole %s grants %s on %v", o.Name, v, r.Resources)
				}
			}
		}
	}
}

// TestServeUsage: wrong flags get a usage error that says what to do.
func TestServeUsage(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "manifests"}, "--image is required"},
		{[]string{"serve", "manifests", "--image", "x", "--namespace", "Not_OK"}, "--namespace"},
		{[]string{"serve", "-A", "--namespaces", "a"}, "choose -A or --namespaces"},
		{[]string{"serve", "--resync", "0s"}, "--resync must be positive"},
	} {
		var out, errOut bytes.Buffer
		o := NewOptions(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
		err := ExecuteWith(t.Context(), o, tt.args)
		var e *ExitError
		if !errors.As(err, &e) || e.Code != ExitUsage || !strings.Contains(errOut.String(), tt.want) {
			t.Errorf("%v: %v (stderr %q), want usage error %q", tt.args, err, errOut.String(), tt.want)
		}
	}
}

// TestServeRules: serve rules prints the rule file with the durations and
// job asked for; a duration or job that cannot be is a usage error.
func TestServeRules(t *testing.T) {
	r := runWith(t, nil, "serve", "rules", "--for", "2m", "--job", "chain")
	if r.code != 0 || !strings.Contains(r.stdout, "for: 2m") || !strings.Contains(r.stdout, `up{job="chain"} == 0`) || strings.Count(r.stdout, "- alert: ") != 4 {
		t.Errorf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, args := range [][]string{{"--for", "0s"}, {"--progressing", "-1h"}, {"--job", " "}} {
		r := runWith(t, nil, append([]string{"serve", "rules"}, args...)...)
		if r.code != ExitUsage || r.stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want a usage error", args, r.code, r.stdout, r.stderr)
		}
	}
}
