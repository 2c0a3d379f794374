package registry

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"

	"github.com/kubectl-chain/kubectl-chain/lab/registry/catalog"
)

// TestCatalogue fills a registry and pulls every image back as a node's
// runtime would: the program is where the entrypoint says, the private
// repository refuses anonymous pulls, the missing tag is missing, and the
// other-platform image has no linux/amd64 manifest.
func TestCatalogue(t *testing.T) {
	program := []byte("#!chain-workload stand-in\n")
	h := Handler(io.Discard)
	if _, err := Fill(context.Background(), h, program); err != nil {
		t.Fatal(err)
	}
	anon := []remote.Option{remote.WithTransport(inProcess{h}), remote.WithAuth(authn.Anonymous)}
	pull := func(ref string, opts ...remote.Option) (*remote.Descriptor, error) {
		t.Helper()
		r, err := name.ParseReference(ref)
		if err != nil {
			t.Fatal(err)
		}
		return remote.Get(r, opts...)
	}

	d, err := pull(Ref(Web), anon...)
	if err != nil {
		t.Fatal(err)
	}
	img, err := d.Image()
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cf.Architecture != "amd64" || len(cf.Config.Entrypoint) != 1 || cf.Config.Entrypoint[0] != WorkloadAt {
		t.Errorf("%s: arch %s entrypoint %v", Web, cf.Architecture, cf.Config.Entrypoint)
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("%s: layers %d, %v", Web, len(layers), err)
	}

	if _, err := pull(Ref(Private), anon...); !isStatus(err, http.StatusUnauthorized) {
		t.Errorf("anonymous pull of %s: %v, want 401", Private, err)
	}
	withCreds := []remote.Option{remote.WithTransport(inProcess{h}), remote.WithAuth(&authn.Basic{Username: User, Password: Password})}
	if _, err := pull(Ref(Private), withCreds...); err != nil {
		t.Errorf("pull of %s with the lab's credentials: %v", Private, err)
	}
	if _, err := pull(MissingTag(), anon...); !isStatus(err, http.StatusNotFound) {
		t.Errorf("pull of %s: %v, want 404", MissingTag(), err)
	}

	d, err = pull(Ref(OtherArch), anon...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Image(); err == nil || !strings.Contains(err.Error(), "no child with platform linux/amd64") {
		t.Errorf("%s as linux/amd64: %v, want no matching platform", OtherArch, err)
	}
	idx, err := d.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil || len(m.Manifests) != 1 || m.Manifests[0].Platform.String() != "linux/arm64" {
		t.Errorf("%s: index %+v, %v", OtherArch, m, err)
	}
}

func isStatus(err error, code int) bool {
	var te *transport.Error
	return errors.As(err, &te) && te.StatusCode == code
}

func TestCatalogueNeedsTheProgram(t *testing.T) {
	if _, _, err := Catalogue(nil); err == nil {
		t.Error("an empty program built images")
	}
}

// TestCatalogueIsTheSharedList: the registry builds exactly the names the
// simulated kubelet takes as present (catalog.Names), no more, no fewer.
func TestCatalogueIsTheSharedList(t *testing.T) {
	images, indexes, err := Catalogue([]byte("#!chain-workload stand-in\n"))
	if err != nil {
		t.Fatal(err)
	}
	var built []string
	for n := range images {
		built = append(built, n)
	}
	for n := range indexes {
		built = append(built, n)
	}
	want := catalog.Names()
	slices.Sort(built)
	slices.Sort(want)
	if !slices.Equal(built, want) {
		t.Errorf("registry builds %v; catalog.Names() is %v", built, want)
	}
}

// TestOutage: a repository of an outage answers its status while the
// outage lasts, then serves the catalogue's image below it, blobs too.
func TestOutage(t *testing.T) {
	h := Handler(io.Discard)
	if _, err := Fill(context.Background(), h, []byte("#!chain-workload stand-in\n")); err != nil {
		t.Fatal(err)
	}
	anon := []remote.Option{remote.WithTransport(inProcess{h}), remote.WithAuth(authn.Anonymous)}
	for _, status := range []int{http.StatusInternalServerError, http.StatusServiceUnavailable, http.StatusTooManyRequests} {
		now := time.Now()
		during := catalog.Localize(catalog.Host+"/outage/"+strconv.Itoa(status)+"-1h/"+Web, now)
		ref, err := name.ParseReference(during)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := remote.Get(ref, anon...); !isStatus(err, status) {
			t.Errorf("%s during the outage: %v, want %d", during, err, status)
		}
		after := catalog.Localize(catalog.Host+"/outage/"+strconv.Itoa(status)+"-0s/"+Web, now.Add(-time.Second))
		ref, err = name.ParseReference(after)
		if err != nil {
			t.Fatal(err)
		}
		img, err := remote.Image(ref, anon...)
		if err != nil {
			t.Fatalf("%s after the outage: %v", after, err)
		}
		if layers, err := img.Layers(); err != nil || len(layers) != 1 {
			t.Fatalf("%s after the outage: layers %d, %v", after, len(layers), err)
		} else if _, err := layers[0].Compressed(); err != nil {
			t.Errorf("%s after the outage, its layer: %v", after, err)
		}
	}
}

// TestSlow: a slow repository path serves the image below it, its layer
// spread over the path's length (never sooner: a lower bound holds on a
// busy machine).
func TestSlow(t *testing.T) {
	h := Handler(io.Discard)
	if _, err := Fill(context.Background(), h, []byte("#!chain-workload stand-in\n")); err != nil {
		t.Fatal(err)
	}
	ref, err := name.ParseReference(catalog.Host + "/slow/2s/" + Web)
	if err != nil {
		t.Fatal(err)
	}
	img, err := remote.Image(ref, remote.WithTransport(inProcess{h}), remote.WithAuth(authn.Anonymous))
	if err != nil {
		t.Fatal(err)
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("layers %d, %v", len(layers), err)
	}
	start := time.Now()
	rc, err := layers[0].Compressed()
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, rc)
	rc.Close()
	if err != nil || n == 0 {
		t.Fatalf("layer: %d bytes, %v", n, err)
	}
	if took := time.Since(start); took < 1500*time.Millisecond {
		t.Errorf("a layer of %d bytes from a 2s slow path arrived in %v", n, took)
	}
}
