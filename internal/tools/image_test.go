package tools

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"io"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// TestServeImage builds the image of `kubectl chain serve` with
// cmd/serve-image, offline and without Docker, into an OCI image layout,
// and checks what a cluster would run: one image per platform
// (linux/amd64, linux/arm64), user 65532, entrypoint kubectl-chain with
// serve -A, the OCI annotations, and a static binary of the platform's
// machine (an ELF without PT_INTERP).
func TestServeImage(t *testing.T) {
	bin := t.TempDir()
	serveImage := tool(t, bin, "./cmd/serve-image", "serve-image")
	out := filepath.Join(t.TempDir(), "oci")
	start := time.Now()
	cmd := exec.Command(serveImage, "-root", root, "-version", "v0.0.0-test", "-o", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("serve-image: %v\n%s", err, b)
	}
	t.Logf("serve-image built both platforms in %s", time.Since(start).Round(time.Second))

	lp, err := layout.FromPath(out)
	if err != nil {
		t.Fatal(err)
	}
	top, err := lp.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	topM, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(topM.Manifests) != 1 {
		t.Fatalf("the layout holds %d entries, want the one image index", len(topM.Manifests))
	}
	idx, err := top.ImageIndex(topM.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	wantAnn := map[string]string{
		"org.opencontainers.image.source":   "https://github.com/kubectl-chain/kubectl-chain",
		"org.opencontainers.image.version":  "v0.0.0-test",
		"org.opencontainers.image.licenses": "Apache-2.0",
	}
	for k, v := range wantAnn {
		if m.Annotations[k] != v {
			t.Errorf("index annotation %s = %q, want %q", k, m.Annotations[k], v)
		}
	}
	machine := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}
	var archs []string
	for _, d := range m.Manifests {
		if d.Platform == nil {
			t.Fatalf("manifest %s has no platform", d.Digest)
		}
		arch := d.Platform.Architecture
		archs = append(archs, d.Platform.OS+"/"+arch)
		img, err := idx.Image(d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		cf, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		if cf.OS != "linux" || cf.Architecture != arch {
			t.Errorf("%s: config says %s/%s", arch, cf.OS, cf.Architecture)
		}
		if cf.Config.User != "65532:65532" {
			t.Errorf("%s: user %q, want 65532:65532", arch, cf.Config.User)
		}
		if want := []string{"/usr/local/bin/kubectl-chain"}; !reflect.DeepEqual(cf.Config.Entrypoint, want) {
			t.Errorf("%s: entrypoint %q, want %q", arch, cf.Config.Entrypoint, want)
		}
		if want := []string{"serve", "-A"}; !reflect.DeepEqual(cf.Config.Cmd, want) {
			t.Errorf("%s: default args %q, want %q", arch, cf.Config.Cmd, want)
		}
		im, err := img.Manifest()
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range wantAnn {
			if im.Annotations[k] != v || cf.Config.Labels[k] != v {
				t.Errorf("%s: annotation %s = %q, label %q, want %q", arch, k, im.Annotations[k], cf.Config.Labels[k], v)
			}
		}
		f := elfOf(t, img, cf.Config.Entrypoint[0])
		if f.Machine != machine[arch] {
			t.Errorf("%s: the binary is for %s", arch, f.Machine)
		}
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				t.Errorf("%s: the binary has PT_INTERP (dynamically linked); build it with CGO_ENABLED=0", arch)
			}
		}
	}
	if want := []string{"linux/amd64", "linux/arm64"}; !reflect.DeepEqual(archs, want) {
		t.Errorf("platforms %v, want %v", archs, want)
	}

	// A user's mistakes: a clear error, no image.
	for _, args := range [][]string{
		{"-root", root},
		{"-root", root, "-o", out, "-push", "registry.example.com/kubectl-chain:x"},
		{"-root", root, "-o", out, "-platforms", "windows/amd64"},
		{"-root", t.TempDir(), "-o", out},
		{"-root", root, "-push", "Not A Reference"},
	} {
		b, err := exec.Command(serveImage, args...).CombinedOutput()
		if err == nil || !strings.HasPrefix(string(b), "serve-image: ") || strings.Contains(string(b), "goroutine") {
			t.Errorf("serve-image %v: err %v, output %q; want a one-line error", args, err, b)
		}
	}
}

// elfOf reads the file at path from the image's layers as an ELF.
func elfOf(t *testing.T, img v1.Image, path string) *elf.File {
	t.Helper()
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range layers {
		rc, err := l.Uncompressed()
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(rc)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if "/"+strings.TrimPrefix(h.Name, "./") != path {
				continue
			}
			if h.Mode&0o111 == 0 {
				t.Errorf("%s is not executable (mode %o)", path, h.Mode)
			}
			data, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			rc.Close()
			f, err := elf.NewFile(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("%s is not an ELF: %v", path, err)
			}
			return f
		}
		rc.Close()
	}
	t.Fatalf("no %s in the image's layers", path)
	return nil
}
