package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/internal/capture"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

// fixtureNow is the capture time of a snapshot fixture, so a run against a
// fake clientset judges it at the moment it was taken.
func fixtureNow(t *testing.T, name string) time.Time {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", "snapshots", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := capture.Load(f)
	if err != nil {
		t.Fatal(err)
	}
	s, err := b.Snapshot("", "")
	if err != nil {
		t.Fatal(err)
	}
	return s.Now
}

// runFixture runs the real root command against a fake clientset holding a
// snapshot fixture, at the fixture's time.
func runFixture(t *testing.T, fixture string, client kube.Client, args ...string) result {
	t.Helper()
	if client == nil {
		client = fakeClient(t, fixture)
	}
	streams, _, out, errOut := genericiooptions.NewTestIOStreams()
	o := NewOptions(streams)
	o.NewClient = func() (kube.Client, error) { return client, nil }
	at := fixtureNow(t, fixture)
	o.Now = func() time.Time { return at }
	err := ExecuteWith(context.Background(), o, args)
	return result{stdout: out.String(), stderr: errOut.String(), code: ExitCode(err)}
}

func TestVerdictExitCodes(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "shop")
	tests := []struct {
		fixture string
		code    int
		health  chain.Health
		cause   chain.CauseID
	}{
		{"healthy.yaml", ExitHealthy, chain.Healthy, ""},
		{"image-not-found.yaml", ExitBroken, chain.Broken, "ImageNotFound"},
		{"quota-exceeded.yaml", ExitBroken, chain.Broken, "QuotaExceeded"},
		{"image-pulling.yaml", ExitProgressing, chain.Progressing, "ImagePulling"},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			r := runFixture(t, tt.fixture, nil, "deploy/web", "-o", "json")
			var rep chain.Report
			decodeJSON(t, r.stdout, &rep)
			if r.code != tt.code || rep.Verdict.Health != tt.health || rep.Verdict.Cause != tt.cause {
				t.Errorf("code %d, verdict %s/%s; want %d, %s/%s (stderr %q)", r.code, rep.Verdict.Health, rep.Verdict.Cause, tt.code, tt.health, tt.cause, r.stderr)
			}
			if rep.Schema != chain.SchemaVersion || rep.Requests != 6 || len(rep.Links) != 7 {
				t.Errorf("schema %q, requests %d, %d links; want %q, 6, 7", rep.Schema, rep.Requests, len(rep.Links), chain.SchemaVersion)
			}
			if r.stderr != "" {
				t.Errorf("stderr %q, want nothing: the report says it all", r.stderr)
			}
		})
	}
}

// TestForbiddenPodsIsUnknown: a namespace Role without pods gives an
// unknown link that names the permission, and the unknown exit code.
func TestForbiddenPodsIsUnknown(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "shop")
	c := fakeClient(t, "healthy.yaml")
	c.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "",
			errString(`User "dev" cannot list resource "pods" in API group "" in the namespace "shop"`))
	})
	r := runFixture(t, "healthy.yaml", c, "deploy/web", "--color", "never")
	if r.code != ExitUnknown {
		t.Errorf("code %d, want %d\n%s", r.code, ExitUnknown, r.stdout)
	}
	for _, want := range []string{"UNKNOWN at pods", "kubectl auth can-i list pods -n shop", "? pods"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
}

func TestColor(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "shop")
	tests := []struct {
		args    []string
		noColor bool
		escapes bool
	}{
		{[]string{"--color", "always"}, false, true},
		{[]string{"--color", "never"}, false, false},
		{[]string{"--color", "auto"}, false, false}, // not a terminal
		{[]string{"--color", "always"}, true, true}, // the flag beats NO_COLOR
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			if tt.noColor {
				t.Setenv("NO_COLOR", "1")
			}
			r := runFixture(t, "image-not-found.yaml", nil, append([]string{"deploy/web"}, tt.args...)...)
			if got := strings.Contains(r.stdout, "\x1b["); got != tt.escapes {
				t.Errorf("escape codes %v, want %v:\n%q", got, tt.escapes, r.stdout)
			}
		})
	}
}

func TestYAMLOutput(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "shop")
	r := runFixture(t, "healthy.yaml", nil, "deployment", "web", "-o", "yaml")
	if r.code != ExitHealthy || !strings.HasPrefix(r.stdout, "kind: Deployment\nlinks:") || !strings.Contains(r.stdout, "schema: kubectl-chain/v1") {
		t.Errorf("code %d, output:\n%s", r.code, r.stdout)
	}
}
