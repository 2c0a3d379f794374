package health

import (
	"testing"
)

// TestLookup checks Argo CD's lookup order on the real catalogue: the exact
// <group>/<Kind> folder, then the sorted wildcard folders, then nothing.
func TestLookup(t *testing.T) {
	v := "argo-cd " + Version() + " "
	tests := []struct {
		name, group, kind, want string // want "" = no check
	}{
		{"exact", "cert-manager.io", "Certificate", "cert-manager.io/Certificate/health.lua"},
		{"exact, short group", "batch", "CronJob", "batch/CronJob/health.lua"},
		{"exact beats a matching wildcard", "iam.aws.crossplane.io", "Role", "iam.aws.crossplane.io/Role/health.lua"},
		{"wildcard group and kind", "ec2.aws.crossplane.io", "VPC", "_.crossplane.io/_/health.lua"},
		{"wildcard, kind without folder in a group with folders", "iam.aws.crossplane.io", "User", "_.crossplane.io/_/health.lua"},
		{"wildcard upbound", "ec2.aws.upbound.io", "Instance", "_.upbound.io/_/health.lua"},
		{"wildcard config connector", "compute.cnrm.cloud.google.com", "ComputeInstance", "_.cnrm.cloud.google.com/_/health.lua"},
		{"wildcard kind only", "operator.victoriametrics.com", "VMAgent", "operator.victoriametrics.com/_/health.lua"},
		{"miss: bare suffix is not a subdomain", "crossplane.io", "Thing", ""},
		{"miss: suffix inside a longer label", "evilcrossplane.io", "Thing", ""},
		{"miss: Go-based in Argo CD", "apps", "Deployment", ""},
		{"miss: core kind", "", "Pod", ""},
		{"miss: unknown group", "example.com", "Widget", ""},
		{"miss: case matters", "Cert-Manager.io", "Certificate", ""},
		{"miss: path tricks", "..", "Certificate", ""},
	}
	cat := Builtin()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := cat.Script(tc.group, tc.kind)
			want := ""
			if tc.want != "" {
				want = v + tc.want
			}
			if got != want {
				t.Fatalf("Script(%q, %q) = %q, want %q", tc.group, tc.kind, got, want)
			}
			if has := cat.Has(tc.group, tc.kind); has != (tc.want != "") {
				t.Fatalf("Has = %v, want %v", has, tc.want != "")
			}
		})
	}
}

// TestVersion: the catalogue's version is the one go.mod pins, whether read
// from the build information or from the fallback.
func TestVersion(t *testing.T) {
	if got := Version(); got != pinnedVersion {
		t.Fatalf("Version() = %q, want %q (go.mod's github.com/argoproj/argo-cd/v3)", got, pinnedVersion)
	}
}
