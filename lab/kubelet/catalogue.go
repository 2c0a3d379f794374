package kubelet

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"k8s.io/kubernetes/pkg/util/parsers"

	"github.com/kubectl-chain/kubectl-chain/lab/registry/catalog"
	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

// The lab's invented registries (never a real registry's host).
const (
	// RegistryHost serves the images of the lab's catalogue
	// (lab/registry/catalog) and no other.
	RegistryHost = catalog.Host
	// PrivatePrefix is the part of RegistryHost that needs a pull secret.
	PrivatePrefix = RegistryHost + "/private/"
	// UnreachableHost does not resolve.
	UnreachableHost = "unreachable.lab.internal"
	// UntrustedHost serves with a certificate no node trusts; StalledHost
	// accepts connections and never answers. A real node reaches both
	// through containerd's hosts.toml, on loopback ports of the lab's
	// registry (lab/registry); the simulated kubelet names these
	// ports.
	UntrustedHost = "untrusted.lab.internal"
	StalledHost   = "stalled.lab.internal"
	registryAddr  = "127.0.0.1:5442"
	untrustedAddr = "127.0.0.1:5443"
	stalledAddr   = "127.0.0.1:5444"
)

// tlsHandshakeTimeout is containerd's HTTP client's (Go's
// http.Transport TLSHandshakeTimeout in core/remotes/docker/config).
const tlsHandshakeTimeout = 10 * time.Second

// pullFailureTime is how long a failing pull of image takes.
func pullFailureTime(image string) time.Duration {
	if host, _, _ := splitImage(image); host == StalledHost {
		return tlsHandshakeTimeout
	}
	return failedPullTime
}

// noEntrypointTag is the tag of web whose image's entrypoint is not in it
// (missingEntrypoint), as in the lab's registry for real nodes.
const (
	noEntrypointTag   = "no-entrypoint"
	missingEntrypoint = "/no-such-program"
)

// runcStartFailed is the start error of containerd 2.4.2 and runc 1.5.3 as
// the kubelet receives it (the lab's real node): containerd's "failed to
// create containerd task" and "failed to create shim task", runc's "OCI
// runtime create failed: runc create failed: unable to start container
// process: error during container init: %w".
const runcStartFailed = "failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: %s"

// failedPullTime is how long a failing pull takes to fail.
const failedPullTime = 30 * time.Millisecond

// nodeResolver is the DNS server in the node's resolv.conf (systemd-resolved's
// stub, as on most node images).
const nodeResolver = "127.0.0.53:53"

// applyDefaultImageTag is the kubelet's check of an image reference
// (pkg/kubelet/images/image_manager.go): it parses the reference with
// pkg/util/parsers and appends the default tag when there is neither tag
// nor digest.
func applyDefaultImageTag(image string) (string, error) {
	_, tag, digest, err := parsers.ParseImageName(image)
	if err != nil {
		return "", err
	}
	if digest == "" && tag != "" && !strings.HasSuffix(image, ":"+tag) {
		image = image + ":" + tag
	}
	return image, nil
}

// Error formats of containerd v2.4.2 (and the libraries it uses) that the
// lab's pull and sandbox failures are built from; formats_test.go checks
// each against its source, and the real node of the lab (up --real-nodes)
// prints them (lab/e2e's fidelity test compares the two).
const (
	// internal/cri/server/images/image_pull.go
	ctrPullAndUnpack = "failed to pull and unpack image %q: %w"
	// core/transfer/local/pull.go: the CRI plugin pulls through the
	// transfer service since 2.1
	ctrResolve = "failed to resolve image: %w"
	// core/remotes/docker/resolver.go
	ctrDenied    = "pull access denied, repository does not exist or may require authorization: %w"
	ctrDoRequest = "failed to do request: %w"
	// core/remotes/errors/errors.go: a registry's status above 399
	ctrUnexpectedStatus = "unexpected status from %s request to %s: %s"
	// core/remotes/docker/authorizer.go: a registry that asks for basic
	// authentication (the lab's) and a pull without credentials
	ctrNoBasicAuth = "%w: no basic auth credentials"
	// internal/cri/server/images/image_pull.go and core/images/image.go:
	// an index without a manifest for the node's platform
	ctrConfigDescriptor = "get image config descriptor: %w"
	ctrNoPlatform       = "no match for platform in manifest %v: %w"
	// internal/cri/server/sandbox_run.go
	ctrSandboxNetwork = "failed to setup network for sandbox %q: %w"
	// github.com/containernetworking/cni v1.3.1 libcni/api.go and
	// pkg/invoke/find.go
	cniPluginFailed = "plugin %s failed (add): %w"
	cniFindPlugin   = "failed to find plugin %q in path %s"
)

// Sentinel texts: errdefs.ErrNotFound, docker.ErrInvalidAuthorization, and
// the scope error a registry's token server answers with.
var (
	errNotFound             = errors.New("not found")
	errInvalidAuthorization = errors.New("authorization failed")
)

// grpcError is the CRI error as the kubelet prints it: a gRPC status
// ("rpc error: code = %s desc = %s", google.golang.org/grpc/internal/status),
// except that the kubelet's CRI client strips the code Unknown from pull
// errors (k8s.io/cri-client v0.37.2 pkg/remote_image.go pullImageV1).
func grpcError(code string, err error) string {
	return fmt.Sprintf("rpc error: code = %s desc = %s", code, err)
}

// pullError is a failed pull's error as the kubelet receives it.
func pullError(code string, err error) string {
	if code == "Unknown" {
		return err.Error()
	}
	return grpcError(code, err)
}

// catalogueError is the CRI error of pulling image at now, "" when the
// pull works.
func catalogueError(image string, withSecret bool, now time.Time) string {
	host, path, ref := splitImage(image)
	pullErr := func(code string, err error) string {
		return pullError(code, fmt.Errorf(ctrPullAndUnpack, image, fmt.Errorf(ctrResolve, err)))
	}
	// A mirror from hosts.toml: the request goes to its server, with the
	// registry's name in a query parameter that the error redacts (the
	// lab's real node, containerd 2.4.2).
	mirrored := func(addr string, cause string) string {
		return pullErr("Unknown", fmt.Errorf(ctrDoRequest, fmt.Errorf(`Head "https://%s/v2/%s/manifests/%s?ns=%%5BREDACTED%%5D": %s`, addr, path, ref, cause)))
	}
	o, outage := catalog.ParseOutage(path)
	switch {
	case host == UntrustedHost:
		// crypto/tls "tls: failed to verify certificate: %w" around
		// crypto/x509 UnknownAuthorityError
		return mirrored(untrustedAddr, "tls: failed to verify certificate: x509: certificate signed by unknown authority")
	case host == StalledHost:
		// net/http's tlsHandshakeTimeoutError
		return mirrored(stalledAddr, "net/http: TLS handshake timeout")
	case host == UnreachableHost:
		// Go's url.Error ("%s %q: %s") around net.OpError and net.DNSError.
		dns := fmt.Errorf(`Head "https://%s/v2/%s/manifests/%s": dial tcp: lookup %s on %s: no such host`, host, path, ref, host, nodeResolver)
		return pullErr("Unknown", fmt.Errorf(ctrDoRequest, dns))
	case host != RegistryHost:
		return ""
	case outage && now.Before(o.Until):
		// resolver.go keeps a HEAD's status above 399 as the error
		// (errcode.go unexpectedResponseErr: core/remotes/errors
		// ErrUnexpectedStatus, whose URL no one redacts), after one retry
		// of a 5xx and a few of a 429.
		url := fmt.Sprintf("https://%s/v2/%s/manifests/%s?ns=%s", registryAddr, path, ref, host)
		status := fmt.Errorf(ctrUnexpectedStatus, http.MethodHead, url, fmt.Sprintf("%d %s", o.Status, http.StatusText(o.Status)))
		return pullErr("Unknown", status)
	case strings.HasPrefix(image, PrivatePrefix) && !withSecret:
		denied := fmt.Errorf(ctrNoBasicAuth, errInvalidAuthorization)
		return pullErr("Unknown", fmt.Errorf(ctrDenied, denied))
	}
	// A tag is present only if the catalogue has it, as the lab's registry
	// serves for real nodes; a digest is taken as present (the simulated
	// kubelet makes its own digests).
	if outage {
		path = o.Repo // the outage is over: the registry serves the repository below it
	}
	if _, below, ok := catalog.ParseSlow(path); ok {
		path = below // slow, then the repository below it
	}
	if !strings.HasPrefix(ref, "sha256:") && !catalog.Has(path+":"+ref) {
		return pullErr("NotFound", fmt.Errorf("%s: %w", image, errNotFound))
	}
	if path+":"+ref == catalog.OtherArch {
		// The index resolves and is fetched; no manifest in it is for
		// linux/amd64 (the error names the index's digest).
		return grpcError("NotFound", fmt.Errorf(ctrConfigDescriptor, fmt.Errorf(ctrNoPlatform, digestOf("index", image), errNotFound)))
	}
	return ""
}

// slowPull is how long a pull of image from a slow repository path of the
// lab's registry takes (catalog.ParseSlow), 0 for any other.
func slowPull(image string) time.Duration {
	host, path, _ := splitImage(image)
	if d, _, ok := catalog.ParseSlow(path); ok && host == RegistryHost {
		return d
	}
	return 0
}

// splitImage splits a tagged or digested reference into registry host,
// repository path and tag or digest.
func splitImage(image string) (host, path, ref string) {
	repo := repository(image)
	ref = strings.TrimPrefix(strings.TrimPrefix(image, repo), ":")
	ref = strings.TrimPrefix(ref, "@")
	host, path, ok := strings.Cut(repo, "/")
	if !ok || !strings.ContainsAny(host, ".:") && host != "localhost" {
		return "", repo, ref
	}
	return host, path, ref
}

// cniFailure is containerd's error for sandbox id when the node's CNI
// configuration names a plugin it does not have: the lab nodes' network of
// runtime handler state.HandlerCNIMissing. libcni's pluginDescription names
// the plugin's own name, which a plugin of a list (as flannel's) lacks.
func cniFailure(id string) string {
	find := fmt.Errorf(cniFindPlugin, state.CNIMissingPlugin, "[/opt/cni/bin]")
	plugin := fmt.Errorf(cniPluginFailed, fmt.Sprintf("type=%q", state.CNIMissingPlugin), find)
	return grpcError("Unknown", fmt.Errorf(ctrSandboxNetwork, id, plugin))
}
