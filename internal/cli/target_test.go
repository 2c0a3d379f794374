package cli

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
	d := func(names ...string) []target {
		var out []target
		for _, n := range names {
			out = append(out, target{kind: kindDeployment, name: n})
		}
		return out
	}
	tests := []struct {
		args    []string
		want    []target
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
		{args: []string{"pod/web-7d4b9c6f5-x2x7q"}, want: []target{{kind: kindPod, name: "web-7d4b9c6f5-x2x7q"}}},
		{args: []string{"po", "a", "b"}, want: []target{{kind: kindPod, name: "a"}, {kind: kindPod, name: "b"}}},
		{args: []string{"rs/web-7d4b9c6f5", "deploy/api"}, want: []target{{kind: kindReplicaSet, name: "web-7d4b9c6f5"}, {kind: kindDeployment, name: "api"}}},
		{args: []string{"replicasets.apps/web-7d4b9c6f5"}, want: []target{{kind: kindReplicaSet, name: "web-7d4b9c6f5"}}},
		{args: nil, wantErr: "name a workload"},
		{args: []string{"statefulsets.apps/db"}, want: []target{{kind: kindStatefulSet, name: "db"}}},
		{args: []string{"sts", "db", "cache"}, want: []target{{kind: kindStatefulSet, name: "db"}, {kind: kindStatefulSet, name: "cache"}}},
		{args: []string{"ds/agent", "daemonsets.v1.apps/node-exporter"}, want: []target{{kind: kindDaemonSet, name: "agent"}, {kind: kindDaemonSet, name: "node-exporter"}}},
		{args: []string{"job/migrate", "jobs.batch/seed"}, want: []target{{kind: kindJob, name: "migrate"}, {kind: kindJob, name: "seed"}}},
		{args: []string{"cj/nightly"}, want: []target{{kind: kindCronJob, name: "nightly"}}},
		{args: []string{"cronjobs.v1.batch/nightly"}, want: []target{{kind: kindCronJob, name: "nightly"}}},
		{args: []string{"sts/DB"}, wantErr: `"DB" is not a valid StatefulSet name`},
		{args: []string{"certificate/web-tls", "certificates.v1.cert-manager.io/api"}, want: []target{{kind: kindResource, name: "web-tls", typ: "certificate"}, {kind: kindResource, name: "api", typ: "certificates.v1.cert-manager.io"}}},
		{args: []string{"/web"}, wantErr: "names no type"},
		{args: []string{"svc/web", "ing/web"}, want: []target{{kind: kindService, name: "web"}, {kind: kindIngress, name: "web"}}},
		{args: []string{"ingresses.networking.k8s.io/web"}, want: []target{{kind: kindIngress, name: "web"}}},
		{args: []string{"gtw/edge", "httproute/web", "grpcroutes/api", "tlsroute.gateway.networking.k8s.io/tls"},
			want: []target{{kind: kindGateway, name: "edge"}, {kind: kindHTTPRoute, name: "web"}, {kind: kindGRPCRoute, name: "api"}, {kind: kindTLSRoute, name: "tls"}}},
		{args: []string{"httproutes.v1.gateway.networking.k8s.io/web"}, want: []target{{kind: kindHTTPRoute, name: "web"}}},
		{args: []string{"ro/web", "rollouts.argoproj.io/api", "rollout.v1alpha1.argoproj.io/db"},
			want: []target{{kind: kindRollout, name: "web"}, {kind: kindRollout, name: "api"}, {kind: kindRollout, name: "db"}}},
		{args: []string{"rollout/Web"}, wantErr: `"Web" is not a valid Rollout name`},
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
			got, err := parseTargets(tt.args)
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
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(target{})); diff != "" {
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
		targets, err := parseTargets(strings.Fields(s))
		if err != nil {
			var e *ExitError
			if !errors.As(err, &e) || e.Code != ExitUsage {
				t.Fatalf("%q: error without usage code: %v", s, err)
			}
			return
		}
		for _, tg := range targets {
			if kindOf(tg.kind) == "" || validName(tg.kind, tg.name) != nil {
				t.Fatalf("%q: accepted %+v", s, tg)
			}
		}
	})
}
