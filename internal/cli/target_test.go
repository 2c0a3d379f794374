package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseTargets(t *testing.T) {
	d := func(names ...string) []target {
		var out []target
		for _, n := range names {
			out = append(out, target{kindDeployment, n})
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
		{args: []string{"pod/web-7d4b9c6f5-x2x7q"}, want: []target{{kindPod, "web-7d4b9c6f5-x2x7q"}}},
		{args: []string{"po", "a", "b"}, want: []target{{kindPod, "a"}, {kindPod, "b"}}},
		{args: []string{"rs/web-7d4b9c6f5", "deploy/api"}, want: []target{{kindReplicaSet, "web-7d4b9c6f5"}, {kindDeployment, "api"}}},
		{args: []string{"replicasets.apps/web-7d4b9c6f5"}, want: []target{{kindReplicaSet, "web-7d4b9c6f5"}}},
		{args: nil, wantErr: "name a workload"},
		{args: []string{"statefulsets.apps/db"}, want: []target{{kindStatefulSet, "db"}}},
		{args: []string{"sts", "db", "cache"}, want: []target{{kindStatefulSet, "db"}, {kindStatefulSet, "cache"}}},
		{args: []string{"ds/agent", "daemonsets.v1.apps/node-exporter"}, want: []target{{kindDaemonSet, "agent"}, {kindDaemonSet, "node-exporter"}}},
		{args: []string{"job/migrate", "jobs.batch/seed"}, want: []target{{kindJob, "migrate"}, {kindJob, "seed"}}},
		{args: []string{"cj/nightly"}, want: []target{{kindCronJob, "nightly"}}},
		{args: []string{"cronjobs.v1.batch/nightly"}, want: []target{{kindCronJob, "nightly"}}},
		{args: []string{"sts/DB"}, wantErr: `"DB" is not a valid StatefulSet name`},
		{args: []string{"cm/web"}, wantErr: `unknown resource type "cm"`},
		{args: []string{"svc/web", "ing/web"}, want: []target{{kindService, "web"}, {kindIngress, "web"}}},
		{args: []string{"ingresses.networking.k8s.io/web"}, want: []target{{kindIngress, "web"}}},
		{args: []string{"gtw/edge", "httproute/web", "grpcroutes/api", "tlsroute.gateway.networking.k8s.io/tls"},
			want: []target{{kindGateway, "edge"}, {kindHTTPRoute, "web"}, {kindGRPCRoute, "api"}, {kindTLSRoute, "tls"}}},
		{args: []string{"httproutes.v1.gateway.networking.k8s.io/web"}, want: []target{{kindHTTPRoute, "web"}}},
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
