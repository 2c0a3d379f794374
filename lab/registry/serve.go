package registry

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	ggcr "github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/kubectl-chain/kubectl-chain/lab/registry/catalog"
)

// Handler is the registry: go-containerregistry's, with the private
// repository behind basic authentication as a real registry's would be
// (401 and a Basic challenge without credentials, 401 with wrong ones).
func Handler(logw io.Writer) http.Handler {
	reg := ggcr.New(ggcr.Logger(log.New(logw, "", log.LstdFlags)))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !outage(w, r, time.Now()) {
			return
		}
		w = slow(w, r)
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

// outage answers a request for a repository of an outage
// (catalog.ParseOutage) with its status while it lasts, and false; after
// it, the request goes on to the repository below the fault's path.
func outage(w http.ResponseWriter, r *http.Request, now time.Time) bool {
	repo, api, tail, ok := repoPath(r)
	if !ok {
		return true
	}
	o, ok := catalog.ParseOutage(repo)
	if !ok {
		return true
	}
	if now.Before(o.Until) {
		w.WriteHeader(o.Status)
		return false
	}
	r.URL.Path, r.URL.RawPath = "/v2/"+o.Repo+api+tail, ""
	return true
}

// slow serves a request below a slow repository path (catalog.ParseSlow)
// as the repository below it, its blobs paced over the path's length.
func slow(w http.ResponseWriter, r *http.Request) http.ResponseWriter {
	repo, api, tail, ok := repoPath(r)
	if !ok {
		return w
	}
	d, below, ok := catalog.ParseSlow(repo)
	if !ok {
		return w
	}
	r.URL.Path, r.URL.RawPath = "/v2/"+below+api+tail, ""
	if api == "/blobs/" && r.Method == http.MethodGet {
		return &pacedWriter{ResponseWriter: w, over: d}
	}
	return w
}

// repoPath splits a distribution API request's path
// (/v2/REPO/manifests/REF, /v2/REPO/blobs/DIGEST) into its repository, its
// API ("/manifests/" or "/blobs/") and what follows.
func repoPath(r *http.Request) (repo, api, tail string, ok bool) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/v2/")
	if !ok {
		return "", "", "", false
	}
	for _, api := range []string{"/manifests/", "/blobs/"} {
		if repo, tail, found := strings.Cut(rest, api); found {
			return repo, api, tail, true
		}
	}
	return "", "", "", false
}

// pacedWriter sends a response body at the pace that makes it last over:
// a chunk every pacedTick, so the client sees bytes all along.
type pacedWriter struct {
	http.ResponseWriter
	over  time.Duration
	start time.Time
	total int64
	sent  int64
}

const pacedTick = 250 * time.Millisecond

func (p *pacedWriter) Write(b []byte) (int, error) {
	if p.start.IsZero() {
		p.start = time.Now()
		p.total, _ = strconv.ParseInt(p.Header().Get("Content-Length"), 10, 64)
		if p.total <= 0 {
			p.total = int64(len(b))
		}
	}
	n := 0
	for len(b) > 0 {
		chunk := max(p.total*int64(pacedTick)/int64(p.over), 1)
		c := b[:min(int64(len(b)), chunk)]
		// Wait until this chunk's share of the time has passed.
		due := p.start.Add(time.Duration(float64(p.over) * float64(p.sent) / float64(p.total)))
		time.Sleep(time.Until(due))
		m, err := p.ResponseWriter.Write(c)
		n += m
		p.sent += int64(m)
		if err != nil {
			return n, err
		}
		if f, ok := p.ResponseWriter.(http.Flusher); ok {
			f.Flush()
		}
		b = b[m:]
	}
	return n, nil
}

func authorized(r *http.Request) bool {
	u, p, ok := r.BasicAuth()
	return ok && subtle.ConstantTimeCompare([]byte(u), []byte(User)) == 1 &&
		subtle.ConstantTimeCompare([]byte(p), []byte(Password)) == 1
}

// Fill builds the catalogue from the program and pushes it into h in
// process, with the lab's credentials; it returns how many it pushed.
func Fill(ctx context.Context, h http.Handler, workload []byte) (int, error) {
	images, indexes, err := Catalogue(workload)
	if err != nil {
		return 0, err
	}
	opts := []remote.Option{
		remote.WithContext(ctx),
		remote.WithTransport(inProcess{h}),
		remote.WithAuth(&authn.Basic{Username: User, Password: Password}),
	}
	for n, img := range images {
		ref, err := name.NewTag(Ref(n))
		if err != nil {
			return 0, err
		}
		if err := remote.Write(ref, img, opts...); err != nil {
			return 0, fmt.Errorf("pushing %s: %w", n, err)
		}
	}
	for n, idx := range indexes {
		ref, err := name.NewTag(Ref(n))
		if err != nil {
			return 0, err
		}
		if err := remote.WriteIndex(ref, idx, opts...); err != nil {
			return 0, fmt.Errorf("pushing %s: %w", n, err)
		}
	}
	return len(images) + len(indexes), nil
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

// Addrs are where Run listens: the registry, its untrusted double and the
// stalled one (see UntrustedHost).
type Addrs struct{ Registry, Untrusted, Stalled string }

// Run serves the registry on addr over TLS with the given certificate,
// filled from the chain-workload program at workloadPath, and its broken
// doubles, until ctx ends.
func Run(ctx context.Context, addrs Addrs, certFile, keyFile, workloadPath string, logw io.Writer) error {
	workload, err := os.ReadFile(workloadPath)
	if err != nil {
		return fmt.Errorf("reading the chain-workload program the images are built from: %w", err)
	}
	h := Handler(logw)
	start := time.Now()
	n, err := Fill(ctx, h, workload)
	if err != nil {
		return err
	}
	fmt.Fprintf(logw, "registry: %d images built and pushed in %s\n", n, time.Since(start).Round(time.Millisecond))
	l, err := net.Listen("tcp", addrs.Registry)
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
	if addrs.Untrusted != "" {
		if err := serveUntrusted(ctx, addrs.Untrusted, h, logw); err != nil {
			return err
		}
	}
	if addrs.Stalled != "" {
		if err := serveStalled(ctx, addrs.Stalled, logw); err != nil {
			return err
		}
	}
	fmt.Fprintf(logw, "registry: serving https://%s as %s\n", l.Addr(), Host)
	if err := srv.ServeTLS(l, certFile, keyFile); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// serveUntrusted serves h over TLS with a self-signed certificate made now,
// which no node trusts.
func serveUntrusted(ctx context.Context, addr string, h http.Handler, logw io.Writer) error {
	cert, err := selfSigned(UntrustedHost)
	if err != nil {
		return err
	}
	l, err := tls.Listen("tcp", addr, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	go func() { <-ctx.Done(); srv.Close() }()
	go srv.Serve(l) //nolint:errcheck // ends with ctx
	fmt.Fprintf(logw, "registry: serving https://%s as %s with a certificate no node trusts\n", l.Addr(), UntrustedHost)
	return nil
}

// serveStalled accepts connections and holds them without a byte, until
// the client gives up or ctx ends.
func serveStalled(ctx context.Context, addr string, logw io.Writer) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	go func() { <-ctx.Done(); l.Close() }()
	go func() {
		var held []net.Conn
		for {
			c, err := l.Accept()
			if err != nil {
				for _, c := range held {
					c.Close()
				}
				return
			}
			held = append(held, c)
		}
	}()
	fmt.Fprintf(logw, "registry: %s on %s accepts connections and never answers\n", StalledHost, l.Addr())
	return nil
}

// selfSigned is a certificate for name signed by its own key.
func selfSigned(name string) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: name},
		DNSNames:     []string{name},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:    time.Now().Add(-time.Minute),
		NotAfter:     time.Now().Add(365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}
