package decode

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// rtCase is one kubelet reason+message and what a decoder makes of it.
type rtCase struct {
	name, reason, message string
	want                  Decoded
	ok                    bool
}

func rtRun(t *testing.T, decode func(string, string) (Decoded, bool), cases []rtCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := decode(tc.reason, tc.message)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v (got %+v)", ok, tc.ok, got)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("decoded (-want +got):\n%s", diff)
			}
		})
	}
}

// rtFuzzCheck asserts what every kubelet decoder promises: no panic, the same
// answer twice, a declared cause when ok, nothing when not, and keyed details.
func rtFuzzCheck(t *testing.T, decode func(string, string) (Decoded, bool), causes []Cause, reason, message string) {
	got, ok := decode(reason, message)
	again, ok2 := decode(reason, message)
	if ok != ok2 || !cmp.Equal(got, again) {
		t.Fatalf("not deterministic for %q %q", reason, message)
	}
	if !ok {
		if !cmp.Equal(got, Decoded{}) {
			t.Fatalf("ok is false but decoded %+v", got)
		}
		return
	}
	declared := false
	for _, c := range causes {
		declared = declared || c.ID == got.Cause
	}
	if !declared {
		t.Fatalf("%q %q decoded to undeclared cause %q", reason, message, got.Cause)
	}
	if got.Progressing != (got.Cause == ImagePulling) {
		t.Fatalf("%q: Progressing = %v for cause %q", message, got.Progressing, got.Cause)
	}
	for _, d := range got.Details {
		if d.Key == "" {
			t.Fatalf("%q: detail without key: %+v", message, got.Details)
		}
	}
}

func rtCheckCauses(t *testing.T, causes []Cause) {
	t.Helper()
	seen := map[chain.CauseID]bool{}
	for _, c := range causes {
		if seen[c.ID] || c.Link != chain.LinkContainers || c.Summary == "" || c.NextStep == "" {
			t.Errorf("bad catalogue entry %+v", c)
		}
		seen[c.ID] = true
		switch c.Terminal.Mode {
		case AfterRepeats:
			if c.Terminal.Repeats < 1 {
				t.Errorf("%s: after-repeats without repeats", c.ID)
			}
		case Transient, AfterGrace, Immediate:
			if c.Terminal.Repeats != 0 {
				t.Errorf("%s: repeats set for %s", c.ID, c.Terminal.Mode)
			}
		default:
			t.Errorf("%s: unknown terminal mode %q", c.ID, c.Terminal.Mode)
		}
	}
}

// Pull errors as containerd v2.4.2 writes them and the CRI passes them on:
// internal/cri/server/images/image_pull.go "failed to pull and unpack image %q: %w",
// client/pull.go "failed to resolve reference %q: %w", gRPC status from
// errdefs/pkg errgrpc.ToGRPC ("rpc error: code = %s desc = %s").
const (
	imgRef     = "registry.lab.internal/web:v9"
	imgPrivate = "registry.lab.internal/team/private:1.0"
	imgPrefix  = `rpc error: code = Unknown desc = failed to pull and unpack image "registry.lab.internal/web:v9": failed to resolve reference "registry.lab.internal/web:v9": `
	// core/remotes/docker/resolver.go: fmt.Errorf("%s: %w", ref, errdefs.ErrNotFound)
	imgNotFound = `rpc error: code = NotFound desc = failed to pull and unpack image "registry.lab.internal/web:v9": failed to resolve reference "registry.lab.internal/web:v9": registry.lab.internal/web:v9: not found`
	// resolver.go "pull access denied, repository does not exist or may require
	// authorization: %w" around authorizer.go "server message: %s: %w" (ErrInvalidAuthorization "authorization failed")
	imgDenied = `rpc error: code = Unknown desc = failed to pull and unpack image "registry.lab.internal/team/private:1.0": failed to resolve reference "registry.lab.internal/team/private:1.0": pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed`
	// resolver.go "failed to authorize: %w", authorizer.go "failed to fetch anonymous token: %w",
	// core/remotes/errors/errors.go "unexpected status from %s request to %s: %s"
	imgAnon401 = `rpc error: code = Unknown desc = failed to pull and unpack image "registry.lab.internal/team/private:1.0": failed to resolve reference "registry.lab.internal/team/private:1.0": failed to authorize: failed to fetch anonymous token: unexpected status from GET request to https://registry.lab.internal/token?scope=repository%3Ateam%2Fprivate%3Apull&service=registry.lab.internal: 401 Unauthorized`
	// errcode.go unexpectedResponseErr: errors.Join(status, registry errors "%s: %s" (code lowercased, message))
	imgForbidden = "rpc error: code = Unknown desc = failed to pull and unpack image \"registry.lab.internal/team/private:1.0\": failed to resolve reference \"registry.lab.internal/team/private:1.0\": unexpected status from HEAD request to https://registry.lab.internal/v2/team/private/manifests/1.0: 403 Forbidden\ndenied: requested access to the resource is denied"
	// resolver.go "failed to do request: %w" around Go's url.Error `%s %q: %s` and net.OpError / net.DNSError
	imgDNS     = imgPrefix + `failed to do request: Head "https://registry.lab.internal/v2/web/manifests/v9": dial tcp: lookup registry.lab.internal on 192.0.2.53:53: no such host`
	imgTimeout = imgPrefix + `failed to do request: Head "https://registry.lab.internal/v2/web/manifests/v9": dial tcp 192.0.2.10:443: i/o timeout`
	imgRefused = imgPrefix + `failed to do request: Head "https://registry.lab.internal/v2/web/manifests/v9": dial tcp 192.0.2.10:443: connect: connection refused`
	imgTLS     = imgPrefix + `failed to do request: Head "https://registry.lab.internal/v2/web/manifests/v9": tls: failed to verify certificate: x509: certificate signed by unknown authority`
	// resolver.go unexpectedResponseErr on a HEAD 429 (no body)
	img429 = imgPrefix + `unexpected status from HEAD request to https://registry.lab.internal/v2/web/manifests/v9: 429 Too Many Requests`
	// core/content/helpers.go "failed to copy: %w", httpreadseeker.go "httpReadSeeker: failed open: %w",
	// errdesc.go TOOMANYREQUESTS ("too many requests") joined to the status
	imgTooMany = "rpc error: code = Unknown desc = failed to pull and unpack image \"registry.lab.internal/web:v9\": failed to copy: httpReadSeeker: failed open: unexpected status from GET request to https://registry.lab.internal/v2/web/blobs/sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945: 429 Too Many Requests\ntoomanyrequests: too many requests"
	// core/images/handlers.go "no match for platform in manifest: %w" (errdefs.ErrNotFound)
	imgPlatform = `rpc error: code = NotFound desc = failed to pull and unpack image "registry.lab.internal/web:v9": no match for platform in manifest: not found`
)

var (
	imgDetails     = []chain.Detail{{Key: "image", Value: imgRef}, {Key: "registry", Value: "registry.lab.internal"}}
	privateDetails = []chain.Detail{{Key: "image", Value: imgPrivate}, {Key: "registry", Value: "registry.lab.internal"}}
	notFoundWant   = Decoded{Cause: ImageNotFound,
		Summary:  `image "registry.lab.internal/web:v9" not found in registry.lab.internal`,
		NextStep: `check that "registry.lab.internal/web:v9" exists with your registry tooling (e.g. crane ls registry.lab.internal/web), then fix spec.template.spec.containers[].image`,
		Details:  imgDetails}
	unauthorizedStep = `set spec.template.spec.imagePullSecrets to a kubernetes.io/dockerconfigjson Secret with credentials for registry.lab.internal and check it with kubectl get secret NAME -o jsonpath='{.data.\.dockerconfigjson}' | base64 -d; also check the repository name`
	rateLimitedWant  = Decoded{Cause: ImagePullRateLimited,
		Summary:  `registry.lab.internal is rate-limiting pulls of image "registry.lab.internal/web:v9" (429 Too Many Requests)`,
		NextStep: `authenticate pulls from registry.lab.internal with spec.template.spec.imagePullSecrets, or mirror "registry.lab.internal/web:v9" to a registry you control`,
		Details:  imgDetails}
)

func unreachable(kind, summary, step string) Decoded {
	cause := map[string]chain.CauseID{"dns": RegistryHostUnresolved, "tls": RegistryCertificateUntrusted, "timeout": ImagePullTimeout}[kind]
	if cause == "" {
		cause = RegistryUnreachable
	}
	return Decoded{Cause: cause, Summary: summary, NextStep: step,
		Details: append(append([]chain.Detail{}, imgDetails...), chain.Detail{Key: "kind", Value: kind})}
}

// The kubelet's wrappers are pkg/kubelet/images/image_manager.go: event
// Failed "Failed to pull image %q: %v", waiting ErrImagePull with the CRI
// error itself, waiting ImagePullBackOff "Back-off pulling image %q" + ": %s"
// of prevPullErrMsg "%s: %s" (error name, message), event BackOff "Back-off
// pulling image %q", Pulling "Pulling image %q", ErrImageNeverPull "Container
// image %q is not present with pull policy of Never", InspectFailed/
// InvalidImageName "Failed to apply default image tag %q: %v" around
// pkg/util/parsers "couldn't parse image name %q: %v"; evalCRIPullErr
// "image pull failed for %s because the registry is unavailable%s"; and
// kuberuntime_container.go Failed "Error: %v" with the error's name.
var imageCases = []rtCase{
	{name: "waiting ErrImagePull not found", reason: "ErrImagePull", message: imgNotFound, want: notFoundWant, ok: true},
	{name: "event Failed not found", reason: "Failed", message: `Failed to pull image "registry.lab.internal/web:v9": ` + imgNotFound, want: notFoundWant, ok: true},
	{name: "waiting ImagePullBackOff not found", reason: "ImagePullBackOff",
		message: `Back-off pulling image "registry.lab.internal/web:v9": ErrImagePull: ` + imgNotFound, want: notFoundWant, ok: true},
	{name: "unauthorized insufficient scope", reason: "ErrImagePull", message: imgDenied, ok: true, want: Decoded{Cause: ImagePullUnauthorized,
		Summary:  `registry.lab.internal refused to serve image "registry.lab.internal/team/private:1.0": missing or wrong credentials, or no such repository (pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed)`,
		NextStep: unauthorizedStep, Details: privateDetails}},
	{name: "unauthorized 401 in back-off", reason: "ImagePullBackOff",
		message: `Back-off pulling image "registry.lab.internal/team/private:1.0": ErrImagePull: ` + imgAnon401, ok: true, want: Decoded{Cause: ImagePullUnauthorized,
			Summary:  `registry.lab.internal refused to serve image "registry.lab.internal/team/private:1.0": missing or wrong credentials, or no such repository (failed to authorize: failed to fetch anonymous token: unexpected status from GET request to https://registry.lab.internal/token?scope=repository%3Ateam%2Fprivate%3Apull&service=registry.lab.internal: 401 Unauthorized)`,
			NextStep: unauthorizedStep, Details: privateDetails}},
	{name: "unauthorized 403 event", reason: "Failed", message: `Failed to pull image "registry.lab.internal/team/private:1.0": ` + imgForbidden, ok: true, want: Decoded{Cause: ImagePullUnauthorized,
		Summary:  `registry.lab.internal refused to serve image "registry.lab.internal/team/private:1.0": missing or wrong credentials, or no such repository (unexpected status from HEAD request to https://registry.lab.internal/v2/team/private/manifests/1.0: 403 Forbidden; denied: requested access to the resource is denied)`,
		NextStep: unauthorizedStep, Details: privateDetails}},
	{name: "dns", reason: "ErrImagePull", message: imgDNS, ok: true, want: unreachable("dns",
		`the node could not resolve registry.lab.internal to pull image "registry.lab.internal/web:v9" (failed to do request: Head "https://registry.lab.internal/v2/web/manifests/v9": dial tcp: lookup registry.lab.internal on 192.0.2.53:53: no such host)`,
		`check the registry host of spec.template.spec.containers[].image for typos, then that the nodes' DNS resolves registry.lab.internal (nslookup on the node: the runtime uses the node's resolver, not the cluster DNS)`)},
	{name: "timeout", reason: "ErrImagePull", message: imgTimeout, ok: true, want: unreachable("timeout",
		`pulling image "registry.lab.internal/web:v9" from registry.lab.internal timed out (failed to do request: Head "https://registry.lab.internal/v2/web/manifests/v9": dial tcp 192.0.2.10:443: i/o timeout)`,
		`check that the nodes reach registry.lab.internal on port 443 without a filtering firewall or proxy; for a large image raise the kubelet's runtimeRequestTimeout or pre-pull it`)},
	{name: "refused in back-off", reason: "ImagePullBackOff", message: `Back-off pulling image "registry.lab.internal/web:v9": ErrImagePull: ` + imgRefused, ok: true, want: unreachable("refused",
		`registry.lab.internal refused the connection pulling image "registry.lab.internal/web:v9" (failed to do request: Head "https://registry.lab.internal/v2/web/manifests/v9": dial tcp 192.0.2.10:443: connect: connection refused)`,
		`check that the registry at registry.lab.internal is running and listens on the port in the image reference`)},
	{name: "tls", reason: "Failed", message: `Failed to pull image "registry.lab.internal/web:v9": ` + imgTLS, ok: true, want: unreachable("tls",
		`the node does not trust the TLS certificate of registry.lab.internal pulling image "registry.lab.internal/web:v9" (failed to do request: Head "https://registry.lab.internal/v2/web/manifests/v9": tls: failed to verify certificate: x509: certificate signed by unknown authority)`,
		`add the CA of registry.lab.internal to the container runtime's trust on every node (containerd: /etc/containerd/certs.d/registry.lab.internal/ca.crt; Docker: /etc/docker/certs.d/registry.lab.internal/ca.crt), or fix the registry's certificate`)},
	{name: "kubelet RegistryUnavailable", reason: "RegistryUnavailable", message: `image pull failed for registry.lab.internal/web:v9 because the registry is unavailable`, ok: true, want: unreachable("other",
		`registry.lab.internal is unavailable pulling image "registry.lab.internal/web:v9" (the registry is unavailable)`,
		`check the health of registry.lab.internal and the nodes' network path to it (firewall, the runtime's HTTP proxy)`)},
	{name: "RegistryUnavailable in back-off", reason: "ImagePullBackOff",
		message: `Back-off pulling image "registry.lab.internal/web:v9": RegistryUnavailable: image pull failed for registry.lab.internal/web:v9 because the registry is unavailable`, ok: true, want: unreachable("other",
			`registry.lab.internal is unavailable pulling image "registry.lab.internal/web:v9" (the registry is unavailable)`,
			`check the health of registry.lab.internal and the nodes' network path to it (firewall, the runtime's HTTP proxy)`)},
	{name: "rate limited HEAD 429", reason: "ErrImagePull", message: img429, want: rateLimitedWant, ok: true},
	{name: "rate limited toomanyrequests", reason: "Failed", message: `Failed to pull image "registry.lab.internal/web:v9": ` + imgTooMany, want: rateLimitedWant, ok: true},
	{name: "no platform variant", reason: "ErrImagePull", message: imgPlatform, ok: true, want: Decoded{Cause: ImagePlatformMismatch,
		Summary:  `image "registry.lab.internal/web:v9" has no variant for the node's platform (no match for platform in manifest: not found)`,
		NextStep: `push "registry.lab.internal/web:v9" for the nodes' platform (docker buildx build --platform linux/amd64,linux/arm64 ...), or pin the pods to matching nodes with nodeSelector kubernetes.io/arch`,
		Details:  imgDetails}},
	{name: "signature validation", reason: "SignatureValidationFailed", message: `image pull failed for registry.lab.internal/web:v9 because the signature validation failed`, ok: true,
		want: Decoded{Cause: ImagePullFailed, Summary: `pulling image "registry.lab.internal/web:v9" failed: the signature validation failed`, Details: imgDetails}},
	{name: "back-off event", reason: "BackOff", message: `Back-off pulling image "registry.lab.internal/web:v9"`, ok: true,
		want: Decoded{Cause: ImagePullFailed, Summary: `the kubelet is backing off pulling image "registry.lab.internal/web:v9" after failed pulls`, Details: imgDetails}},
	{name: "invalid name waiting", reason: "InvalidImageName",
		message: `Failed to apply default image tag "registry.lab.internal/web::v9": couldn't parse image name "registry.lab.internal/web::v9": invalid reference format`, ok: true,
		want: Decoded{Cause: InvalidImageName,
			Summary:  `image name "registry.lab.internal/web::v9" is invalid: invalid reference format`,
			NextStep: `fix spec.template.spec.containers[].image: "registry.lab.internal/web::v9" is not a valid reference ([host[:port]/]lowercase/path[:tag][@sha256:digest])`,
			Details:  []chain.Detail{{Key: "image", Value: "registry.lab.internal/web::v9"}, {Key: "error", Value: "invalid reference format"}}}},
	// distribution/reference normalize.go "invalid reference format: repository name (%s) must be lowercase"
	{name: "invalid name InspectFailed event", reason: "InspectFailed",
		message: `Failed to apply default image tag "registry.lab.internal/Web:v9": couldn't parse image name "registry.lab.internal/Web:v9": invalid reference format: repository name (Web) must be lowercase`, ok: true,
		want: Decoded{Cause: InvalidImageName,
			Summary:  `image name "registry.lab.internal/Web:v9" is invalid: invalid reference format: repository name (Web) must be lowercase`,
			NextStep: `fix spec.template.spec.containers[].image: "registry.lab.internal/Web:v9" is not a valid reference ([host[:port]/]lowercase/path[:tag][@sha256:digest])`,
			Details:  []chain.Detail{{Key: "image", Value: "registry.lab.internal/Web:v9"}, {Key: "error", Value: "invalid reference format: repository name (Web) must be lowercase"}}}},
	{name: "never pull", reason: "ErrImageNeverPull", message: `Container image "registry.lab.internal/web:v9" is not present with pull policy of Never`, ok: true,
		want: Decoded{Cause: ImageNeverPulled,
			Summary:  `image "registry.lab.internal/web:v9" is not on the node and imagePullPolicy is Never`,
			NextStep: `load "registry.lab.internal/web:v9" onto every node that may run the pod, or set spec.template.spec.containers[].imagePullPolicy to IfNotPresent`,
			Details:  imgDetails}},
	{name: "pulling", reason: "Pulling", message: `Pulling image "registry.lab.internal/web:v9"`, ok: true,
		want: Decoded{Cause: ImagePulling, Progressing: true, Summary: `pulling image "registry.lab.internal/web:v9" from registry.lab.internal`, Details: imgDetails}},
	{name: "pulling without registry host", reason: "Pulling", message: `Pulling image "web:v9"`, ok: true,
		want: Decoded{Cause: ImagePulling, Progressing: true, Summary: `pulling image "web:v9" from the runtime's default registry`, Details: []chain.Detail{{Key: "image", Value: "web:v9"}}}},
	{name: "pulled is no cause", reason: "Pulled",
		message: `Successfully pulled image "registry.lab.internal/web:v9" in 1.204s (1.204s including waiting). Image size: 7340032 bytes.`},
	{name: "already present is no cause", reason: "Pulled", message: `Container image "registry.lab.internal/web:v9" already present on machine`},
	{name: "Error: ErrImagePull", reason: "Failed", message: "Error: ErrImagePull", ok: true,
		want: Decoded{Cause: ImagePullFailed, Details: []chain.Detail{{Key: "reason", Value: "ErrImagePull"}}}},
	{name: "Error: ImagePullBackOff", reason: "Failed", message: "Error: ImagePullBackOff", ok: true,
		want: Decoded{Cause: ImagePullFailed, Summary: "the kubelet is backing off pulling an image after failed pulls", Details: []chain.Detail{{Key: "reason", Value: "ImagePullBackOff"}}}},
	{name: "Error: InvalidImageName", reason: "Failed", message: "Error: InvalidImageName", ok: true,
		want: Decoded{Cause: InvalidImageName, Details: []chain.Detail{{Key: "reason", Value: "InvalidImageName"}}}},
	{name: "Error: ErrImageNeverPull", reason: "Failed", message: "Error: ErrImageNeverPull", ok: true,
		want: Decoded{Cause: ImageNeverPulled, Details: []chain.Detail{{Key: "reason", Value: "ErrImageNeverPull"}}}},
	// kuberuntime_manager.go doBackOff: "Back-off restarting failed container %s in pod %s"
	{name: "container back-off is not an image", reason: "BackOff",
		message: `Back-off restarting failed container web in pod web-6d4f8b7c9-x2x7q_default(0f8b6a52-3c1d-4e7a-9b0e-2a5c8d7f1e64)`},
	// kubelet_pods.go "couldn't find key %v in Secret %v/%v" in a Failed "Error: %v"
	{name: "config error is not an image", reason: "Failed", message: `Error: couldn't find key password in Secret default/db`},
}

func TestImagePull(t *testing.T) {
	rtRun(t, ImagePull, imageCases)
}

func TestImageCauses(t *testing.T) {
	rtCheckCauses(t, imageCauses)
}

func TestImageRegistry(t *testing.T) {
	for ref, want := range map[string]string{
		"registry.lab.internal/web:v9": "registry.lab.internal",
		"localhost/web":                "localhost",
		"registry.lab.internal:5000/a": "registry.lab.internal:5000",
		"Team/web":                     "Team",
		"team/web:v1":                  "",
		"web":                          "",
		"/web":                         "",
	} {
		if got := imageRegistry(ref); got != want {
			t.Errorf("imageRegistry(%q) = %q, want %q", ref, got, want)
		}
	}
}

func FuzzImagePull(f *testing.F) {
	for _, tc := range imageCases {
		f.Add(tc.reason, tc.message)
	}
	f.Add("ImagePullBackOff", `Back-off pulling image "`)
	f.Add("Failed", `Failed to pull image "\x": rpc error: code = `)
	f.Fuzz(func(t *testing.T, reason, message string) {
		rtFuzzCheck(t, ImagePull, imageCauses, reason, message)
	})
}

// TestImagePullDockerDenied: Docker's daemon names the repository it
// refused, the only name of the image in the waiting message (the
// kubelet's ErrImagePull state, without the event's 'Failed to pull image
// "X": ').
func TestImagePullDockerDenied(t *testing.T) {
	d, ok := ImagePull("ErrImagePull", `Error response from daemon: pull access denied for headscale-api-key, repository does not exist or may require 'docker login': denied: requested access to the resource is denied`)
	if !ok || d.Cause != ImageNotFound || !strings.Contains(d.Summary, `"headscale-api-key"`) {
		t.Errorf("got %v %+v, want ImageNotFound naming headscale-api-key", ok, d)
	}
}
