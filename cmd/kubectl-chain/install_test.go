package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

// installVersion is the version the checkout is published as on the
// proxy the install test lays out.
const installVersion = "v0.0.0-20261206000000-000000000000"

// TestGoInstall proves the README's install line: `go install
// MODULE/cmd/kubectl-chain@VERSION` refuses a module whose go.mod has a
// replace or exclude directive (go help install), so this checkout is
// published, as a module proxy would serve it, into a proxy on disk
// (golang.org/x/mod/zip builds the zip exactly as the go command does,
// leaving out nested modules such as lab/), and installed from there with
// no network: the module's dependencies come from the module cache's own
// download directory, which is a proxy too. Then the installed binary runs.
func TestGoInstall(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mf, err := modfile.Parse("go.mod", gomod, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(mf.Replace) > 0 || len(mf.Exclude) > 0 {
		t.Fatalf("go.mod has %d replace and %d exclude directives: go install %s/cmd/kubectl-chain@VERSION refuses it; keep them in the lab's module", len(mf.Replace), len(mf.Exclude), mf.Module.Mod.Path)
	}
	m := module.Version{Path: mf.Module.Mod.Path, Version: installVersion}

	tmp := t.TempDir()
	at := filepath.Join(tmp, "proxy", m.Path, "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	zf, err := os.Create(filepath.Join(at, m.Version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	if err := zip.CreateFromDir(zf, m, root); err != nil {
		t.Fatalf("zipping the checkout as %s: %v", m, err)
	}
	if err := zf.Close(); err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(map[string]any{"Version": m.Version, "Time": time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)})
	for name, data := range map[string][]byte{"list": []byte(m.Version + "\n"), m.Version + ".info": info, m.Version + ".mod": gomod} {
		if err := os.WriteFile(filepath.Join(at, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	modcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatalf("go env GOMODCACHE: %v", err)
	}
	deps := filepath.Join(strings.TrimSpace(string(modcache)), "cache", "download")
	bin := filepath.Join(tmp, "bin")
	// -trimpath and CGO_ENABLED=0, as the release builds it
	// (buildRelease): the dependencies compiled for TestBinarySize are
	// reused although this install has a module cache of its own.
	cmd := exec.Command("go", "install", "-trimpath", m.Path+"/cmd/kubectl-chain@"+m.Version)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0",
		"GOPROXY=file://"+filepath.Join(tmp, "proxy")+",file://"+deps,
		"GOSUMDB=off", "GOWORK=off", "GOTOOLCHAIN=local", "GOFLAGS=-modcacherw",
		"GOMODCACHE="+filepath.Join(tmp, "modcache"), "GOBIN="+bin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install %s/cmd/kubectl-chain@%s: %v\n%s", m.Path, m.Version, err, out)
	}
	out, err := exec.Command(filepath.Join(bin, "kubectl-chain"), "version").CombinedOutput()
	if err != nil {
		t.Fatalf("the installed kubectl-chain version: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "kubectl-chain") {
		t.Errorf("the installed kubectl-chain version printed %q", out)
	}
	t.Logf("go install %s/cmd/kubectl-chain@%s from a proxy on disk: %s", m.Path, m.Version, strings.TrimSpace(string(out)))
}
