package kubelet

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
)

// outageNow is the time TestCatalogueErrors pulls at.
var outageNow = time.Unix(1764920000, 0)

// TestSlowPull: a slow path's pull takes its length on the simulated
// node; any other pull the healthy bandwidth's time.
func TestSlowPull(t *testing.T) {
	if d := (Lab{}).Pull(&corev1.Pod{}, &corev1.Container{}, "registry.lab.internal/slow/30s/web:v1").Duration; d != 30*time.Second {
		t.Errorf("slow pull took %v, want 30s", d)
	}
	if d := (Lab{}).Pull(&corev1.Pod{}, &corev1.Container{}, "registry.lab.internal/web:v1").Duration; d >= 30*time.Second {
		t.Errorf("a pull of web:v1 took %v", d)
	}
}

// TestCatalogueErrors compares each pull failure with the message the
// diagnosis decodes (decode/image_test.go, containerd v2 wording).
func TestCatalogueErrors(t *testing.T) {
	tests := []struct {
		image      string
		withSecret bool
		want       string
	}{
		{"registry.lab.internal/web:v1", false, ""},
		{"registry.lab.internal/web@sha256:0123", false, ""},
		{"example.internal/anything:missing", false, ""},
		{"registry.lab.internal/private/web:v1", true, ""},
		// core/remotes/docker/resolver.go: fmt.Errorf("%s: %w", ref, errdefs.ErrNotFound)
		{"registry.lab.internal/web:missing", false,
			`rpc error: code = NotFound desc = failed to pull and unpack image "registry.lab.internal/web:missing": failed to resolve image: registry.lab.internal/web:missing: not found`},
		{"registry.lab.internal/web:does-not-exist", false,
			`rpc error: code = NotFound desc = failed to pull and unpack image "registry.lab.internal/web:does-not-exist": failed to resolve image: registry.lab.internal/web:does-not-exist: not found`},
		// any tag the catalogue does not have, as the lab's registry answers
		{"registry.lab.internal/web:v9", false,
			`rpc error: code = NotFound desc = failed to pull and unpack image "registry.lab.internal/web:v9": failed to resolve image: registry.lab.internal/web:v9: not found`},
		{"registry.lab.internal/shop/web:1.4.2", false,
			`rpc error: code = NotFound desc = failed to pull and unpack image "registry.lab.internal/shop/web:1.4.2": failed to resolve image: registry.lab.internal/shop/web:1.4.2: not found`},
		{"registry.lab.internal/web:v2", false, ""},
		{"registry.lab.internal/pause:lab", false, ""},
		{"registry.lab.internal/web:no-entrypoint", false, ""},
		// image_pull.go "get image config descriptor: %w" around image.go's
		// "no match for platform in manifest %v: %w"
		{"registry.lab.internal/web:arm64-only", false,
			`rpc error: code = NotFound desc = get image config descriptor: no match for platform in manifest ` + digestOf("index", "registry.lab.internal/web:arm64-only") + `: not found`},
		// hosts.toml mirrors, as the lab's real node (containerd 2.4.2) words them
		{"untrusted.lab.internal/web:v1", false,
			`failed to pull and unpack image "untrusted.lab.internal/web:v1": failed to resolve image: failed to do request: Head "https://127.0.0.1:5443/v2/web/manifests/v1?ns=%5BREDACTED%5D": tls: failed to verify certificate: x509: certificate signed by unknown authority`},
		{"stalled.lab.internal/web:v1", false,
			`failed to pull and unpack image "stalled.lab.internal/web:v1": failed to resolve image: failed to do request: Head "https://127.0.0.1:5444/v2/web/manifests/v1?ns=%5BREDACTED%5D": net/http: TLS handshake timeout`},
		// an outage of the lab's registry, while it lasts: resolver.go keeps
		// the HEAD's status (errcode.go unexpectedResponseErr around
		// core/remotes/errors ErrUnexpectedStatus "unexpected status from %s
		// request to %s: %s"), the URL with its ns parameter
		{"registry.lab.internal/outage/503-until-1764920020/web:v1", false,
			`failed to pull and unpack image "registry.lab.internal/outage/503-until-1764920020/web:v1": failed to resolve image: unexpected status from HEAD request to https://127.0.0.1:5442/v2/outage/503-until-1764920020/web/manifests/v1?ns=registry.lab.internal: 503 Service Unavailable`},
		{"registry.lab.internal/outage/429-until-1764920020/web:v1", false,
			`failed to pull and unpack image "registry.lab.internal/outage/429-until-1764920020/web:v1": failed to resolve image: unexpected status from HEAD request to https://127.0.0.1:5442/v2/outage/429-until-1764920020/web/manifests/v1?ns=registry.lab.internal: 429 Too Many Requests`},
		// a slow path serves the catalogue's image below it, slowly
		{"registry.lab.internal/slow/30s/web:v1", false, ""},
		{"registry.lab.internal/slow/30s/web:v9", false,
			`rpc error: code = NotFound desc = failed to pull and unpack image "registry.lab.internal/slow/30s/web:v9": failed to resolve image: registry.lab.internal/slow/30s/web:v9: not found`},
		// and once it is over, the catalogue's image below it
		{"registry.lab.internal/outage/500-until-1764919990/web:v1", false, ""},
		{"registry.lab.internal/outage/500-until-1764919990/web:v9", false,
			`rpc error: code = NotFound desc = failed to pull and unpack image "registry.lab.internal/outage/500-until-1764919990/web:v9": failed to resolve image: registry.lab.internal/outage/500-until-1764919990/web:v9: not found`},
		// resolver.go "pull access denied, ...: %w" around authorizer.go "%w: no basic auth credentials"
		{"registry.lab.internal/private/web:v1", false,
			`failed to pull and unpack image "registry.lab.internal/private/web:v1": failed to resolve image: pull access denied, repository does not exist or may require authorization: authorization failed: no basic auth credentials`},
		// resolver.go "failed to do request: %w" around url.Error and net.DNSError
		{"unreachable.lab.internal/team/web:v2", false,
			`failed to pull and unpack image "unreachable.lab.internal/team/web:v2": failed to resolve image: failed to do request: Head "https://unreachable.lab.internal/v2/team/web/manifests/v2": dial tcp: lookup unreachable.lab.internal on 127.0.0.53:53: no such host`},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, catalogueError(tt.image, tt.withSecret, outageNow)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.image, diff)
		}
	}
}

func TestApplyDefaultImageTag(t *testing.T) {
	tests := []struct{ in, want, err string }{
		{"registry.lab.internal/web", "registry.lab.internal/web:latest", ""},
		{"registry.lab.internal/web:v1", "registry.lab.internal/web:v1", ""},
		// pkg/util/parsers/parsers.go "couldn't parse image name %q: %v"
		{"registry.lab.internal/Web:v1", "", `couldn't parse image name "registry.lab.internal/Web:v1": invalid reference format: repository name (Web) must be lowercase`},
	}
	for _, tt := range tests {
		got, err := applyDefaultImageTag(tt.in)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if got != tt.want || gotErr != tt.err {
			t.Errorf("applyDefaultImageTag(%q) = %q, %q; want %q, %q", tt.in, got, gotErr, tt.want, tt.err)
		}
	}
}

func TestCNIFailure(t *testing.T) {
	pod := &corev1.Pod{}
	pod.UID = types.UID("uid-1")
	id := sandboxID(pod, 1)
	if id == sandboxID(pod, 2) || len(id) != 64 {
		t.Errorf("sandbox IDs %q, %q: each try must be a new sandbox of 64 hex digits", id, sandboxID(pod, 2))
	}
	got := cniFailure(id)
	// The form of decode/sandbox_test.go (containerd sandbox_run.go, libcni).
	want := `rpc error: code = Unknown desc = failed to setup network for sandbox "` + id + `": plugin type="flannel" failed (add): failed to find plugin "flannel" in path [/opt/cni/bin]`
	if got != want {
		t.Errorf("cniFailure = %q, want %q", got, want)
	}
}

func TestLabRun(t *testing.T) {
	web := corev1.Container{Name: "web", Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("128Mi")}}}
	migrate := corev1.Container{Name: "migrate"}
	pod := func(ann map[string]string) *corev1.Pod {
		p := &corev1.Pod{Spec: corev1.PodSpec{InitContainers: []corev1.Container{migrate}, Containers: []corev1.Container{web}}}
		p.Annotations = ann
		return p
	}
	tests := []struct {
		name string
		ann  map[string]string
		c    corev1.Container
		want RunOutcome
	}{
		{"healthy", nil, web, RunOutcome{Ready: true}},
		{"exit code", map[string]string{"lab.kubectl-chain.io/exit-code": "1"}, web,
			RunOutcome{Ready: true, Exit: &Exit{After: time.Second, Code: 1, Reason: "Error"}}},
		{"exit 0 after 3s", map[string]string{"lab.kubectl-chain.io/exit-code": "0", "lab.kubectl-chain.io/exit-after": "3s"}, web,
			RunOutcome{Ready: true, Exit: &Exit{After: 3 * time.Second, Code: 0, Reason: "Completed"}}},
		{"pod-wide keys skip init containers", map[string]string{"lab.kubectl-chain.io/exit-code": "1"}, migrate, RunOutcome{Ready: true}},
		{"per-container key", map[string]string{"lab.kubectl-chain.io/migrate.exit-code": "2"}, migrate,
			RunOutcome{Ready: true, Exit: &Exit{After: time.Second, Code: 2, Reason: "Error"}}},
		{"per-container key wins", map[string]string{"lab.kubectl-chain.io/exit-code": "1", "lab.kubectl-chain.io/web.exit-code": "3"}, web,
			RunOutcome{Ready: true, Exit: &Exit{After: time.Second, Code: 3, Reason: "Error"}}},
		{"oom above the limit", map[string]string{"lab.kubectl-chain.io/memory-usage": "300Mi"}, web,
			RunOutcome{Ready: true, Exit: &Exit{After: time.Second, Code: 137, Reason: "OOMKilled"}}},
		{"memory within the limit", map[string]string{"lab.kubectl-chain.io/memory-usage": "100Mi"}, web, RunOutcome{Ready: true}},
		{"no limit, no oom", map[string]string{"lab.kubectl-chain.io/memory-usage": "300Mi"}, migrate, RunOutcome{Ready: true}},
		{"probes", map[string]string{"lab.kubectl-chain.io/readiness": "fail", "lab.kubectl-chain.io/liveness": "fail"}, web,
			RunOutcome{Ready: true, ReadinessFails: true, LivenessFails: true}},
	}
	for _, tt := range tests {
		got := Lab{}.Run(pod(tt.ann), &tt.c)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}
