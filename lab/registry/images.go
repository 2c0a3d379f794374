// Package registry is the lab's image registry for real nodes: an OCI
// registry (go-containerregistry's pkg/registry) served over HTTPS on
// loopback, holding images the lab builds itself from the chain-workload
// program, with no download. Its catalogue has the variants real failures
// need: a tag that does not exist, a repository that needs credentials, an
// image for another platform only, an image whose entrypoint does not exist.
package registry

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/kubectl-chain/kubectl-chain/lab/registry/catalog"
)

// Host is the registry's name in image references (catalog.Host).
const Host = catalog.Host

// The registry's broken doubles, by name: UntrustedHost serves the same
// images with a certificate no node trusts (a self-signed one made at
// start); StalledHost accepts connections and never answers, so a pull
// times out.
const (
	UntrustedHost = "untrusted.lab.internal"
	StalledHost   = "stalled.lab.internal"
)

// Names of the catalogue, as REPOSITORY:TAG on Host: the list is
// lab/registry/catalog's, which the simulated kubelet follows too.
const (
	Web        = catalog.Web
	WebV2      = catalog.WebV2
	Pause      = catalog.Pause
	Private    = catalog.Private
	OtherArch  = catalog.OtherArch
	NoEntry    = catalog.NoEntry
	WorkloadAt = "/chain-workload"    // where the program is in every image
	missingTag = "web:does-not-exist" // never pushed: the tag that does not exist
)

// Credentials of the private repository (a lab secret, not a real one).
const (
	User     = "lab"
	Password = "lab-password"
)

// MissingTag is a reference that is never pushed.
func MissingTag() string { return Host + "/" + missingTag }

// Ref is the full reference of a catalogue name.
func Ref(name string) string { return Host + "/" + name }

// created is every image's creation time: fixed, so the lab's digests are
// the same on every machine for the same program.
var created = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Catalogue builds every image of the lab from the chain-workload binary.
// Its keys are catalogue names (REPOSITORY:TAG); an index is pushed for the
// one image made for another platform.
func Catalogue(workload []byte) (map[string]v1.Image, map[string]v1.ImageIndex, error) {
	layer, err := programLayer(workload)
	if err != nil {
		return nil, nil, err
	}
	build := func(arch string, entrypoint []string) (v1.Image, error) {
		img, err := mutate.AppendLayers(empty.Image, layer)
		if err != nil {
			return nil, err
		}
		img = mutate.MediaType(img, types.OCIManifestSchema1)
		img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
		cf, err := img.ConfigFile()
		if err != nil {
			return nil, err
		}
		cf = cf.DeepCopy()
		cf.OS, cf.Architecture = "linux", arch
		cf.Created = v1.Time{Time: created}
		cf.Config.Entrypoint = entrypoint
		cf.Config.Env = []string{"PATH=/"}
		cf.Config.ExposedPorts = map[string]struct{}{"8080/tcp": {}}
		return mutate.ConfigFile(img, cf)
	}
	images := map[string]v1.Image{}
	for name, entry := range map[string][]string{
		Web:     {WorkloadAt},
		WebV2:   {WorkloadAt},
		Private: {WorkloadAt},
		Pause:   {WorkloadAt, "pause"},
		NoEntry: {"/no-such-program"},
	} {
		if images[name], err = build("amd64", entry); err != nil {
			return nil, nil, fmt.Errorf("building %s: %w", name, err)
		}
	}
	arm, err := build("arm64", []string{WorkloadAt})
	if err != nil {
		return nil, nil, err
	}
	index := mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), mutate.IndexAddendum{
		Add:        arm,
		Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: "arm64"}},
	})
	return images, map[string]v1.ImageIndex{OtherArch: index}, nil
}

// programLayer is one layer holding the program at WorkloadAt and an empty
// /tmp, which chain-workload writes to.
func programLayer(workload []byte) (v1.Layer, error) {
	if len(workload) == 0 {
		return nil, fmt.Errorf("the chain-workload program is empty")
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{Name: "tmp/", Typeflag: tar.TypeDir, Mode: 0o1777, ModTime: created}); err != nil {
		return nil, err
	}
	if err := tw.WriteHeader(&tar.Header{Name: WorkloadAt[1:], Typeflag: tar.TypeReg, Mode: 0o755, Size: int64(len(workload)), ModTime: created}); err != nil {
		return nil, err
	}
	if _, err := tw.Write(workload); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}, tarball.WithMediaType(types.OCILayer))
}
