package engine

import (
	"errors"
	"github.com/kubectl-chain/kubectl-chain/chain"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestResolveType checks that a type kubectl chain does not know is
// resolved as kubectl resolves it, through discovery's mapping: singular,
// plural, TYPE.GROUP and TYPE.VERSION.GROUP; cluster-scoped kinds too; a
// kind it walks itself comes back as that kind.
func TestResolveType(t *testing.T) {
	m := testMapper()
	cert := chain.APIResource{Group: "cert-manager.io", Version: "v1", Resource: "certificates", Kind: "Certificate", Namespaced: true}
	for _, typ := range []string{"certificate", "certificates", "certificate.cert-manager.io", "certificates.v1.cert-manager.io", "Certificate"} {
		got, err := resolveType(m, typ)
		if err != nil || got != cert {
			t.Errorf("resolveType(%q) = %+v, %v; want %+v", typ, got, err, cert)
		}
	}
	if got, err := resolveType(m, "clusterissuer"); err != nil || got.Namespaced || got.Resource != "clusterissuers" {
		t.Errorf("clusterissuer: %+v, %v", got, err)
	}
	if got, err := resolveType(m, "persistentvolumeclaims"); err != nil || got.Group != "" || got.Kind != "PersistentVolumeClaim" {
		t.Errorf("persistentvolumeclaims: %+v, %v", got, err)
	}
	dep, err := resolveType(m, "deployments.v1.apps")
	if err != nil || ownKind(dep) != kindDeployment {
		t.Errorf("deployments.v1.apps: %+v, %v, own kind %q", dep, err, ownKind(dep))
	}
	if _, err := resolveType(m, "bogus"); err == nil || !strings.Contains(err.Error(), "kubectl api-resources") {
		t.Errorf("bogus: %v, want an error naming kubectl api-resources", err)
	}
}

func TestParseTargets(t *testing.T) {
	d := func(names ...string) []Target {
		var out []Target
		for _, n := range names {
			out = append(out, Target{Kind: kindDeployment, Name: n})
		}
		return out
	}
	tests := []struct {
		args    []string
		want    []Target
		wantErr string
	}{
		{args: []string{"deploy/web"}, want: d("web")},
		{args: []string{"deployment", "web"}, want: d("web")},
		{args: []string{"deployments.apps/web"}, want: d("web")},
		{args: []string{"deployments.v1.apps/web"}, want: d("web")},
		{args: []string{"Deployment/web"}, want: d("web")},
		{args: []string{"web"}, want: d("web")},
		{args: []string{"deploy", "a", "b"}, want: d("a", "b")},
		{args: []string{"deploy/a", "deploy/b"}, want: d("a", "b")},
		{args: []string{"pod/web-7d4b9c6f5-x2x7q"}, want: []Target{{Kind: kindPod, Name: "web-7d4b9c6f5-x2x7q"}}},
		{args: []string{"po", "a", "b"}, want: []Target{{Kind: kindPod, Name: "a"}, {Kind: kindPod, Name: "b"}}},
		{args: []string{"rs/web-7d4b9c6f5", "deploy/api"}, want: []Target{{Kind: kindReplicaSet, Name: "web-7d4b9c6f5"}, {Kind: kindDeployment, Name: "api"}}},
		{args: []string{"replicasets.apps/web-7d4b9c6f5"}, want: []Target{{Kind: kindReplicaSet, Name: "web-7d4b9c6f5"}}},
		{args: nil, wantErr: "name a workload"},
		{args: []string{"statefulsets.apps/db"}, want: []Target{{Kind: kindStatefulSet, Name: "db"}}},
		{args: []string{"sts", "db", "cache"}, want: []Target{{Kind: kindStatefulSet, Name: "db"}, {Kind: kindStatefulSet, Name: "cache"}}},
		{args: []string{"ds/agent", "daemonsets.v1.apps/node-exporter"}, want: []Target{{Kind: kindDaemonSet, Name: "agent"}, {Kind: kindDaemonSet, Name: "node-exporter"}}},
		{args: []string{"job/migrate", "jobs.batch/seed"}, want: []Target{{Kind: kindJob, Name: "migrate"}, {Kind: kindJob, Name: "seed"}}},
		{args: []string{"cj/nightly"}, want: []Target{{Kind: kindCronJob, Name: "nightly"}}},
		{args: []string{"cronjobs.v1.batch/nightly"}, want: []Target{{Kind: kindCronJob, Name: "nightly"}}},
		{args: []string{"sts/DB"}, wantErr: `"DB" is not a valid StatefulSet name`},
		{args: []string{"certificate/web-tls", "certificates.v1.cert-manager.io/api"}, want: []Target{{Kind: kindResource, Name: "web-tls", Type: "certificate"}, {Kind: kindResource, Name: "api", Type: "certificates.v1.cert-manager.io"}}},
		{args: []string{"/web"}, wantErr: "names no type"},
		{args: []string{"svc/web", "ing/web"}, want: []Target{{Kind: kindService, Name: "web"}, {Kind: kindIngress, Name: "web"}}},
		{args: []string{"ingresses.networking.k8s.io/web"}, want: []Target{{Kind: kindIngress, Name: "web"}}},
		{args: []string{"gtw/edge", "httproute/web", "grpcroutes/api", "tlsroute.gateway.networking.k8s.io/tls"},
			want: []Target{{Kind: kindGateway, Name: "edge"}, {Kind: kindHTTPRoute, Name: "web"}, {Kind: kindGRPCRoute, Name: "api"}, {Kind: kindTLSRoute, Name: "tls"}}},
		{args: []string{"httproutes.v1.gateway.networking.k8s.io/web"}, want: []Target{{Kind: kindHTTPRoute, Name: "web"}}},
		{args: []string{"ro/web", "rollouts.argoproj.io/api", "rollout.v1alpha1.argoproj.io/db"},
			want: []Target{{Kind: kindRollout, Name: "web"}, {Kind: kindRollout, Name: "api"}, {Kind: kindRollout, Name: "db"}}},
		{args: []string{"clone/web", "clonesets.apps.kruise.io/api", "cloneset.v1alpha1.apps.kruise.io/db"},
			want: []Target{{Kind: "cloneset", Name: "web"}, {Kind: "cloneset", Name: "api"}, {Kind: "cloneset", Name: "db"}}},
		{args: []string{"rollout/Web"}, wantErr: `"Web" is not a valid Rollout name`},
		{args: []string{"clone/Web"}, wantErr: `"Web" is not a valid CloneSet name`},
		{args: []string{"svc/Web"}, wantErr: `"Web" is not a valid Service name`},
		{args: []string{"deploy"}, wantErr: `"deploy" is a resource type`},
		{args: []string{"pods"}, wantErr: `"pods" is a resource type`},
		{args: []string{"deploy/"}, wantErr: "empty Deployment name"},
		{args: []string{"pod/"}, wantErr: "empty pod name"},
		{args: []string{"deploy/Web"}, wantErr: `"Web" is not a valid Deployment name`},
		{args: []string{"web-"}, wantErr: `"web-" is not a valid Deployment name`},
		{args: []string{"deploy", "deploy/web"}, wantErr: "give plain names"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			got, err := ParseTargets(tt.args)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
				}
				var e *ExitError
				if !errors.As(err, &e) || e.Code != ExitUsage {
					t.Errorf("error %v has no usage exit code", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzParseTargets(f *testing.F) {
	for _, s := range []string{"deploy/web", "deployment web", "web", "pod/x", "deploy/", "a/b/c", "deploy a b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		targets, err := ParseTargets(strings.Fields(s))
		if err != nil {
			var e *ExitError
			if !errors.As(err, &e) || e.Code != ExitUsage {
				t.Fatalf("%q: error without usage code: %v", s, err)
			}
			return
		}
		for _, tg := range targets {
			if KindOf(tg.Kind) == "" || validName(tg.Kind, tg.Name) != nil {
				t.Fatalf("%q: accepted %+v", s, tg)
			}
		}
	})
}
