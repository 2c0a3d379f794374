package cli

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// TestClusterErrors runs the real command, with the real client, against
// servers that fail the way real ones do, and checks the one-line message
// and the exit code.
func TestClusterErrors(t *testing.T) {
	t.Run("connection refused", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close() // nothing listens there now
		kubeconfig(t, "http://"+addr, "default")
		r := runWith(t, nil, "deploy/web")
		want := "error: the connection to the server " + addr + " was refused - did you specify the right host or port?\n"
		if r.code != ExitCluster || r.stderr != want {
			t.Errorf("code %d, stderr %q; want %d, %q", r.code, r.stderr, ExitCluster, want)
		}
	})
	t.Run("slow server", func(t *testing.T) {
		done := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-done:
			case <-time.After(5 * time.Second):
			}
		}))
		defer srv.Close()
		defer close(done)
		kubeconfig(t, srv.URL, "default")
		r := runWith(t, nil, "deploy/web", "--request-timeout", "200ms")
		if r.code != ExitCluster || !strings.Contains(r.stderr, "timed out") || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("code %d, stderr %q; want %d and one line saying it timed out", r.code, r.stderr, ExitCluster)
		}
	})
	t.Run("unauthorized", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`))
		}))
		defer srv.Close()
		kubeconfig(t, srv.URL, "default")
		r := runWith(t, nil, "deploy/web")
		want := "error: you must be logged in to the server (Unauthorized): refresh your credentials for this context\n"
		if r.code != ExitCluster || r.stderr != want {
			t.Errorf("code %d, stderr %q; want %d, %q", r.code, r.stderr, ExitCluster, want)
		}
	})
	t.Run("Gateway API not installed", func(t *testing.T) {
		// An API server answers a resource it does not serve with a 404
		// that names no object.
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}`))
		}))
		defer srv.Close()
		kubeconfig(t, srv.URL, "default")
		r := runWith(t, nil, "httproute/web")
		want := "error: this cluster does not serve httproutes.gateway.networking.k8s.io/v1: the Gateway API's CRDs are not installed (kubectl get crd httproutes.gateway.networking.k8s.io)\n"
		if r.code != ExitUsage || r.stderr != want {
			t.Errorf("code %d, stderr %q; want %d, %q", r.code, r.stderr, ExitUsage, want)
		}
	})
	t.Run("no kubeconfig", func(t *testing.T) {
		t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "missing"))
		t.Setenv("HOME", t.TempDir())
		t.Setenv("KUBECTL_CHAIN_LAB_HOME", t.TempDir()) // and no lab
		r := runWith(t, nil, "deploy/web")
		if r.code != ExitCluster || !strings.Contains(r.stderr, "no cluster configured") || !strings.Contains(r.stderr, "kubectl chain lab up") {
			t.Errorf("code %d, stderr %q", r.code, r.stderr)
		}
	})
	t.Run("broken kubeconfig", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "kubeconfig")
		os.WriteFile(path, []byte("clusters: [this is not: a kubeconfig"), 0o600)
		t.Setenv("KUBECONFIG", path)
		r := runWith(t, nil, "deploy/web")
		if r.code != ExitCluster || !strings.Contains(r.stderr, "error in configuration") || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("code %d, stderr %q", r.code, r.stderr)
		}
	})
	t.Run("usage error without a kubeconfig", func(t *testing.T) {
		t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "missing"))
		t.Setenv("HOME", t.TempDir())
		r := runWith(t, nil, "deploy/web", "-o", "xml")
		if r.code != ExitUsage {
			t.Errorf("code %d, stderr %q; a wrong flag is a usage error whatever the kubeconfig", r.code, r.stderr)
		}
	})
	t.Run("unknown context", func(t *testing.T) {
		kubeconfig(t, "https://127.0.0.1:1", "default")
		r := runWith(t, nil, "deploy/web", "--context", "nope")
		if r.code != ExitCluster || !strings.Contains(r.stderr, `context "nope"`) {
			t.Errorf("code %d, stderr %q", r.code, r.stderr)
		}
	})
}

func TestDeploymentErrors(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "shop")
	t.Run("not found", func(t *testing.T) {
		r := runWith(t, fake.NewClientset(), "deploy/web")
		want := `error: deployment "web" not found in namespace "shop": pass -n NAMESPACE if it lives elsewhere (kubectl get deployments -A --field-selector metadata.name=web)` + "\n"
		if r.code != ExitNotFound || r.stderr != want || r.stdout != "" {
			t.Errorf("code %d, stderr %q, stdout %q; want %d, %q", r.code, r.stderr, r.stdout, ExitNotFound, want)
		}
	})
	t.Run("not found as JSON", func(t *testing.T) {
		r := runWith(t, fake.NewClientset(), "deploy/web", "-o", "json")
		var rep chain.Report
		decodeJSON(t, r.stdout, &rep)
		if r.code != ExitNotFound || rep.Verdict.Cause != "DeploymentNotFound" || rep.Verdict.Link != chain.LinkStored {
			t.Errorf("code %d, verdict %+v; want %d and DeploymentNotFound at stored", r.code, rep.Verdict, ExitNotFound)
		}
	})
	t.Run("forbidden", func(t *testing.T) {
		c := fake.NewClientset()
		c.PrependReactor("get", "deployments", func(k8stesting.Action) (bool, runtime.Object, error) {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web",
				errForbiddenReason)
		})
		r := runWith(t, c, "deploy/web")
		if r.code != ExitCluster || !strings.Contains(r.stderr, "kubectl auth can-i get deployments/web -n shop") {
			t.Errorf("code %d, stderr %q", r.code, r.stderr)
		}
	})
}

// errForbiddenReason is the RBAC authorizer's reason wording
// (k8s.io/apiserver/pkg/authorization/... "User %q cannot %s resource %q in API group %q in the namespace %q").
var errForbiddenReason = errString(`User "dev" cannot get resource "deployments" in API group "apps" in the namespace "shop"`)

type errString string

func (e errString) Error() string { return string(e) }

func TestUsageErrors(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "default")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"bogus/web"}, `unknown resource type "bogus": this cluster serves no such resource`},
		{[]string{"certificate/web", "-f", "../../testdata/captures/healthy.yaml"}, `certificate/web: no object of type "certificate" in [../../testdata/captures/healthy.yaml]`},
		{[]string{"ro/web", "-f", "../../testdata/captures/healthy.yaml"}, `no Rollout "web" in the input`},
		{[]string{"deploy/web", "-o", "xml"}, `unknown output format "xml"`},
		{[]string{"deploy/web", "--color", "sometimes"}, `unknown --color "sometimes"`},
		{[]string{"deploy/web", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"deploy/web", "--grace", "-1s"}, "--grace must not be negative"},
		{[]string{}, "name a workload"},
	}
	// A type discovery must resolve, on a cluster that does not answer: one
	// line, client-go's retries not logged.
	// client-go's klog writes to the process's standard error: catch it.
	rd, wr, perr := os.Pipe()
	if perr != nil {
		t.Fatal(perr)
	}
	stderr := os.Stderr
	os.Stderr = wr
	streams, _, _, errOut := genericiooptions.NewTestIOStreams()
	err := ExecuteWith(context.Background(), NewOptions(streams), []string{"certificate/web"})
	os.Stderr = stderr
	wr.Close()
	logged, _ := io.ReadAll(rd)
	if ExitCode(err) != ExitCluster || strings.Count(errOut.String(), "\n") != 1 || !strings.Contains(errOut.String(), "127.0.0.1:1") || len(logged) > 0 {
		t.Errorf("certificate/web on an unreachable cluster: exit %d, stderr %q, logged %q", ExitCode(err), errOut.String(), logged)
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := runWith(t, fake.NewClientset(), tt.args...)
			if r.code != ExitUsage || !strings.Contains(r.stderr, tt.want) || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("code %d, stderr %q; want %d and one line containing %q", r.code, r.stderr, ExitUsage, tt.want)
			}
		})
	}
}

// TestDefaultsToLab: a user with no kubeconfig but a running lab gets the lab
// (and is told so); here the lab's API server says the Deployment is absent.
func TestDefaultsToLab(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \"web\" not found","reason":"NotFound","details":{"name":"web","group":"apps","kind":"deployments"},"code":404}`))
	}))
	defer srv.Close()
	home := t.TempDir()
	t.Setenv("KUBECTL_CHAIN_LAB_HOME", home)
	labCfg := kubeconfig(t, srv.URL, "default") // writes a kubeconfig and points KUBECONFIG at it
	os.MkdirAll(filepath.Join(home, "lab"), 0o700)
	data, _ := os.ReadFile(labCfg)
	os.WriteFile(filepath.Join(home, "lab", "kubeconfig"), data, 0o600)
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "missing"))
	t.Setenv("HOME", t.TempDir())
	r := runWith(t, nil, "deploy/web")
	if r.code != ExitNotFound || !strings.Contains(r.stderr, `no kubeconfig: using the local lab "lab"`) {
		t.Errorf("code %d, stderr %q", r.code, r.stderr)
	}
	// One lab up under another name (lab up --name dev) is used too.
	if err := os.Rename(filepath.Join(home, "lab"), filepath.Join(home, "dev")); err != nil {
		t.Fatal(err)
	}
	r = runWith(t, nil, "deploy/web")
	if r.code != ExitNotFound || !strings.Contains(r.stderr, `no kubeconfig: using the local lab "dev"`) {
		t.Errorf("a lab named dev: code %d, stderr %q", r.code, r.stderr)
	}
	// With two up, the error names them and how to choose.
	os.MkdirAll(filepath.Join(home, "ci"), 0o700)
	os.WriteFile(filepath.Join(home, "ci", "kubeconfig"), data, 0o600)
	r = runWith(t, nil, "deploy/web")
	if r.code != ExitCluster || !strings.Contains(r.stderr, "several labs are up (ci, dev)") || !strings.Contains(r.stderr, "kubectl chain lab kubeconfig --name ci") {
		t.Errorf("two labs: code %d, stderr %q", r.code, r.stderr)
	}
}
