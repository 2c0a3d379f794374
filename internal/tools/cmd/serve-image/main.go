// Command serve-image builds the container image of `kubectl chain serve`
// without Docker: it compiles kubectl-chain statically (CGO_ENABLED=0) for
// linux/amd64 and linux/arm64, puts each binary as the only layer onto an
// empty base, and writes the multi-platform index to an OCI image layout,
// or pushes it with -push to the repository the user names.
//
//	go -C internal/tools run ./cmd/serve-image -version v0.4.0 -o ../../dist/image
//	go -C internal/tools run ./cmd/serve-image -version v0.4.0 -push registry.example.com/kubectl-chain:v0.4.0
//
// goreleaser's kos pipe is not used: in a snapshot it publishes to a Docker
// engine only, it pulls its base image from a registry, and it has no
// setting for the image's default arguments (serve -A).
package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image's fixed settings.
const (
	binPath = "/usr/local/bin/kubectl-chain"
	user    = "65532:65532"
	source  = "https://github.com/kubectl-chain/kubectl-chain"
	license = "Apache-2.0"
	module  = "github.com/kubectl-chain/kubectl-chain"
)

var platforms = []string{"linux/amd64", "linux/arm64"}

func main() {
	root := flag.String("root", filepath.Join("..", ".."), "the kubectl-chain repository (the root module)")
	version := flag.String("version", "dev", "the version the binary and the image's annotations carry")
	commit := flag.String("commit", "none", "the commit the binary carries")
	out := flag.String("o", "", "write the image index to this OCI image layout directory")
	push := flag.String("push", "", "push the image index to this reference (repository:tag) instead")
	only := flag.String("platforms", strings.Join(platforms, ","), "comma-separated platforms to build (of "+strings.Join(platforms, ", ")+")")
	flag.Parse()
	if err := run(*root, *version, *commit, *out, *push, *only); err != nil {
		fmt.Fprintln(os.Stderr, "serve-image:", err)
		os.Exit(1)
	}
}

func run(root, version, commit, out, push, only string) error {
	if (out == "") == (push == "") {
		return errors.New("give exactly one of -o DIR (an OCI image layout) or -push REPOSITORY:TAG")
	}
	var ref name.Reference
	if push != "" {
		var err error
		if ref, err = name.ParseReference(push); err != nil {
			return fmt.Errorf("-push %q is not an image reference (want host/repository:tag): %w", push, err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "cmd", "kubectl-chain")); err != nil {
		return fmt.Errorf("-root %q is not the kubectl-chain repository (no cmd/kubectl-chain): %w", root, err)
	}
	created := time.Unix(0, 0).UTC()
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		sec, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return fmt.Errorf("SOURCE_DATE_EPOCH %q is not a number of seconds: %w", s, err)
		}
		created = time.Unix(sec, 0).UTC()
	}
	ann := map[string]string{
		"org.opencontainers.image.source":   source,
		"org.opencontainers.image.version":  version,
		"org.opencontainers.image.licenses": license,
		"org.opencontainers.image.title":    "kubectl-chain",
		"org.opencontainers.image.revision": commit,
		"org.opencontainers.image.created":  created.Format(time.RFC3339),
	}
	tmp, err := os.MkdirTemp("", "serve-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	var idx v1.ImageIndex = empty.Index
	idx = mutate.IndexMediaType(idx, types.OCIImageIndex)
	for _, p := range strings.Split(only, ",") {
		osName, arch, ok := strings.Cut(strings.TrimSpace(p), "/")
		if !ok || osName != "linux" || (arch != "amd64" && arch != "arm64") {
			return fmt.Errorf("platform %q: the image is built for %s only", p, strings.Join(platforms, ", "))
		}
		bin := filepath.Join(tmp, "kubectl-chain-"+arch)
		if err := build(root, bin, arch, version, commit); err != nil {
			return err
		}
		img, err := image(bin, arch, created, ann)
		if err != nil {
			return fmt.Errorf("image for linux/%s: %w", arch, err)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: arch}, Annotations: ann},
		})
	}
	idx = mutate.Annotations(idx, ann).(v1.ImageIndex)

	if ref != nil {
		if err := remote.WriteIndex(ref, idx, remote.WithAuthFromKeychain(authn.DefaultKeychain)); err != nil {
			return fmt.Errorf("push %s: %w", ref, err)
		}
		d, _ := idx.Digest()
		fmt.Printf("%s@%s\n", ref, d)
		return nil
	}
	lp, err := layout.Write(out, empty.Index)
	if err != nil {
		return fmt.Errorf("OCI layout %s: %w", out, err)
	}
	if err := lp.AppendIndex(idx, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": version})); err != nil {
		return fmt.Errorf("OCI layout %s: %w", out, err)
	}
	d, _ := idx.Digest()
	fmt.Printf("%s@%s\n", out, d)
	return nil
}

// build compiles kubectl-chain for linux/arch as goreleaser's build does.
func build(root, out, arch, version, commit string) error {
	abs, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	cmd := exec.Command("go", "build", "-trimpath", "-o", abs,
		"-ldflags", "-s -w -X "+module+"/internal/cli.version="+version+" -X "+module+"/internal/cli.commit="+commit,
		"./cmd/kubectl-chain")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build for linux/%s: %v\n%s", arch, err, b)
	}
	return nil
}

// image is the binary as the one layer of an empty base, run as 65532.
func image(bin, arch string, created time.Time, ann map[string]string) (v1.Image, error) {
	data, err := os.ReadFile(bin)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, dir := range []string{"usr/", "usr/local/", "usr/local/bin/", "tmp/"} {
		mode := int64(0o755)
		if dir == "tmp/" {
			mode = 0o1777
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: dir, Mode: mode, ModTime: created}); err != nil {
			return nil, err
		}
	}
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: strings.TrimPrefix(binPath, "/"), Mode: 0o755, Size: int64(len(data)), ModTime: created}); err != nil {
		return nil, err
	}
	if _, err := tw.Write(data); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(buf.Bytes())), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{Layer: layer, History: v1.History{Created: v1.Time{Time: created}, CreatedBy: "serve-image: " + binPath}})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = "linux", arch
	cf.Created = v1.Time{Time: created}
	cf.Config.User = user
	cf.Config.Entrypoint = []string{binPath}
	cf.Config.Cmd = []string{"serve", "-A"}
	cf.Config.WorkingDir = "/"
	cf.Config.Env = []string{"PATH=/usr/local/bin", "HOME=/tmp"}
	cf.Config.Labels = ann
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, err
	}
	return mutate.Annotations(img, ann).(v1.Image), nil
}
