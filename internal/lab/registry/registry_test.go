package registry

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
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
