package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseTargets(t *testing.T) {
	tests := []struct {
		args    []string
		want    []string
		wantErr string
	}{
		{args: []string{"deploy/web"}, want: []string{"web"}},
		{args: []string{"deployment", "web"}, want: []string{"web"}},
		{args: []string{"deployments.apps/web"}, want: []string{"web"}},
		{args: []string{"deployments.v1.apps/web"}, want: []string{"web"}},
		{args: []string{"Deployment/web"}, want: []string{"web"}},
		{args: []string{"web"}, want: []string{"web"}},
		{args: []string{"deploy", "a", "b"}, want: []string{"a", "b"}},
		{args: []string{"deploy/a", "deploy/b"}, want: []string{"a", "b"}},
		{args: nil, wantErr: "name a Deployment"},
		{args: []string{"pod/web"}, wantErr: `unknown resource type "pod"`},
		{args: []string{"statefulsets.apps/db"}, wantErr: `unknown resource type "statefulsets.apps"`},
		{args: []string{"deploy"}, wantErr: `"deploy" is a resource type`},
		{args: []string{"deploy/"}, wantErr: "empty Deployment name"},
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
		names, err := parseTargets(strings.Fields(s))
		if err != nil {
			var e *ExitError
			if !errors.As(err, &e) || e.Code != ExitUsage {
				t.Fatalf("%q: error without usage code: %v", s, err)
			}
			return
		}
		for _, n := range names {
			if validName(n) != nil {
				t.Fatalf("%q: accepted invalid name %q", s, n)
			}
		}
	})
}
