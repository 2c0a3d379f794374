package registry

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	ggcr "github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// Handler is the registry: go-containerregistry's, with the private
// repository behind basic authentication as a real registry's would be
// (401 and a Basic challenge without credentials, 401 with wrong ones).
func Handler(logw io.Writer) http.Handler {
	reg := ggcr.New(ggcr.Logger(log.New(logw, "", log.LstdFlags)))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/v2/private/") && !authorized(r) {
			w.Header().Set("WWW-Authenticate", `Basic realm="kubectl-chain-lab"`)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintln(w, `{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}`)
			return
		}
		reg.ServeHTTP(w, r)
	})
}

func authorized(r *http.Request) bool {
	u, p, ok := r.BasicAuth()
	return ok && subtle.ConstantTimeCompare([]byte(u), []byte(User)) == 1 &&
		subtle.ConstantTimeCompare([]byte(p), []byte(Password)) == 1
}

// Fill builds the catalogue from the program and pushes it into h in
// process, with the lab's credentials.
func Fill(ctx context.Context, h http.Handler, workload []byte) error {
	images, indexes, err := Catalogue(workload)
	if err != nil {
		return err
	}
	opts := []remote.Option{
		remote.WithContext(ctx),
		remote.WithTransport(inProcess{h}),
		remote.WithAuth(&authn.Basic{Username: User, Password: Password}),
	}
	for n, img := range images {
		ref, err := name.NewTag(Ref(n))
		if err != nil {
			return err
		}
		if err := remote.Write(ref, img, opts...); err != nil {
			return fmt.Errorf("pushing %s: %w", n, err)
		}
	}
	for n, idx := range indexes {
		ref, err := name.NewTag(Ref(n))
		if err != nil {
			return err
		}
		if err := remote.WriteIndex(ref, idx, opts...); err != nil {
			return fmt.Errorf("pushing %s: %w", n, err)
		}
	}
	return nil
}

// inProcess sends requests to a handler without a network.
type inProcess struct{ h http.Handler }

func (t inProcess) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	in := r.Clone(r.Context())
	if in.Body == nil {
		in.Body = http.NoBody // a server's request always has a body
	}
	t.h.ServeHTTP(rec, in)
	resp := rec.Result()
	resp.Request = r // the client resolves Location headers against it
	return resp, nil
}

// Run serves the registry on addr over TLS with the given certificate,
// filled from the chain-workload program at workloadPath, until ctx ends.
func Run(ctx context.Context, addr, certFile, keyFile, workloadPath string, logw io.Writer) error {
	workload, err := os.ReadFile(workloadPath)
	if err != nil {
		return fmt.Errorf("reading the chain-workload program the images are built from: %w", err)
	}
	h := Handler(logw)
	start := time.Now()
	if err := Fill(ctx, h, workload); err != nil {
		return err
	}
	fmt.Fprintf(logw, "registry: %d images built and pushed in %s\n", len(Names()), time.Since(start).Round(time.Millisecond))
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shut) //nolint:errcheck // the process ends next
	}()
	fmt.Fprintf(logw, "registry: serving https://%s as %s\n", l.Addr(), Host)
	if err := srv.ServeTLS(l, certFile, keyFile); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
