package gatewayapi

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCRDsAsReleased: each embedded CRD is byte for byte the file of the
// gateway-api module go.mod requires (config/crd/standard), and that
// module is the Version the package says.
func TestCRDsAsReleased(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}} {{.Dir}}", "sigs.k8s.io/gateway-api").Output()
	if err != nil {
		t.Fatalf("go list -m sigs.k8s.io/gateway-api: %v", err)
	}
	version, dir, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	if version != Version {
		t.Errorf("go.mod requires gateway-api %s; the embedded CRDs say %s: copy config/crd/standard of the new version and set Version", version, Version)
	}
	if dir == "" {
		t.Fatalf("the gateway-api module is not downloaded (go mod download sigs.k8s.io/gateway-api)")
	}
	files, err := Files()
	if err != nil {
		t.Fatal(err)
	}
	// Every CRD of the standard channel: a controller (Traefik's provider
	// in the lab) watches kinds a chain never reads, BackendTLSPolicies
	// and ListenerSets among them. The ValidatingAdmissionPolicy file is
	// not a CRD.
	released, _ := filepath.Glob(filepath.Join(dir, "config", "crd", "standard", "gateway.networking.k8s.io_*.yaml"))
	var want []string
	for _, f := range released {
		if !strings.Contains(f, "_vap_") {
			want = append(want, filepath.Base(f))
		}
	}
	if strings.Join(files, " ") != strings.Join(want, " ") {
		t.Errorf("embedded CRDs %v, want the standard channel's %v", files, want)
	}
	for _, f := range files {
		want, err := os.ReadFile(filepath.Join(dir, "config", "crd", "standard", f))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		got, _ := crds.ReadFile("crds/" + f)
		if !bytes.Equal(got, want) {
			t.Errorf("crds/%s differs from gateway-api %s's config/crd/standard/%s", f, Version, f)
		}
	}
}
