package certmanager

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestCRDsAsReleased: each embedded CRD is byte for byte the file of
// cert-manager's deploy/crds at Version (the module is downloaded from the
// module proxy; it is not a dependency of the lab).
func TestCRDsAsReleased(t *testing.T) {
	out, err := exec.Command("go", "mod", "download", "-json", Module+"@"+Version).Output()
	if err != nil {
		t.Fatalf("go mod download %s@%s: %v", Module, Version, err)
	}
	var mod struct{ Dir, Error string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		t.Fatalf("go mod download %s@%s: %s %v", Module, Version, mod.Error, err)
	}
	files, err := Files()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 4 {
		t.Errorf("embedded CRDs %v, want certificates, certificaterequests, issuers and clusterissuers", files)
	}
	for _, f := range files {
		want, err := os.ReadFile(filepath.Join(mod.Dir, "deploy", "crds", f))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		got, _ := crds.ReadFile("crds/" + f)
		if !bytes.Equal(got, want) {
			t.Errorf("crds/%s differs from cert-manager %s's deploy/crds/%s", f, Version, f)
		}
	}
}
