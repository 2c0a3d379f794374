package e2e

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// actionScript is the GitHub Action's step.
var actionScript = filepath.Join("..", "..", ".github", "actions", "wait", "run.sh")

// release serves a release of the kubectl-chain under test as the
// releases' download address does: /latest redirects to the tag, and
// /download/TAG/ holds the archive and checksums.txt (sum, if not empty,
// replaces the archive's).
func release(t *testing.T, tag, sum string) string {
	t.Helper()
	bin, err := os.ReadFile(chainBin)
	if err != nil {
		t.Fatal(err)
	}
	var archive bytes.Buffer
	gz := gzip.NewWriter(&archive)
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Name: "kubectl-chain", Mode: 0o755, Size: int64(len(bin))}); err != nil {
		t.Fatal(err)
	}
	_, _ = tw.Write(bin)
	tw.Close()
	gz.Close()
	name := fmt.Sprintf("kubectl-chain_%s_%s_%s.tar.gz", tag, runtime.GOOS, runtime.GOARCH)
	if sum == "" {
		h := sha256.Sum256(archive.Bytes())
		sum = hex.EncodeToString(h[:])
	}
	files := map[string][]byte{
		"/download/" + tag + "/" + name:       archive.Bytes(),
		"/download/" + tag + "/checksums.txt": fmt.Appendf(nil, "%s  %s\n", sum, name),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/latest" {
			http.Redirect(w, r, "/tag/"+tag, http.StatusFound)
			return
		}
		if r.URL.Path == "/tag/"+tag {
			return
		}
		b, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// runAction runs the action's script as the runner would, with inputs.
func runAction(ctx context.Context, t *testing.T, releases string, inputs map[string]string) (int, string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, "bash", actionScript)
	tmp := t.TempDir()
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "KUBECTL_CHAIN_RELEASES="+releases, "GITHUB_ACTIONS=true",
		"RUNNER_TEMP="+tmp, "GITHUB_PATH="+filepath.Join(tmp, "path"), "RUNNER_OS=Linux", "RUNNER_ARCH=X64")
	for k, v := range inputs {
		cmd.Env = append(cmd.Env, "INPUT_"+strings.ToUpper(k)+"="+v)
	}
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

// TestAction runs the GitHub Action's script against the lab with a
// release served from here: it installs the latest release (checked
// against its checksums), waits for a healthy Deployment (exit 0) and for
// one whose image does not exist (exit 1, with the ::error annotation
// that names the cause), and refuses an archive whose checksum does not
// match (exit 2, nothing run).
func TestAction(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("the test serves this machine's build as the linux/amd64 release; this is %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ns := createNamespace(ctx, t, "action")
	createDeployment(ctx, t, ns, healthyDeployment("web", 2))
	bad := healthyDeployment("api", 1)
	bad.Spec.Template.Spec.Containers[0].Image = "registry.lab.internal/api:does-not-exist"
	createDeployment(ctx, t, ns, bad)
	releases := release(t, "v0.0.0-e2e", "")

	code, out := runAction(ctx, t, releases, map[string]string{"targets": "deploy/web", "namespace": ns, "timeout": "90s", "version": "latest"})
	if code != 0 || !strings.Contains(out, "HEALTHY") {
		t.Errorf("deploy/web: exit %d, want 0 and HEALTHY:\n%s", code, out)
	}
	code, out = runAction(ctx, t, releases, map[string]string{"targets": "deploy/api", "namespace": ns, "timeout": "90s", "grace": "10s", "version": "v0.0.0-e2e"})
	if want := "::error title=deployment " + ns + "/api::broken at containers"; code != 1 || !strings.Contains(out, want) || !strings.Contains(out, "ImageNotFound") {
		t.Errorf("deploy/api: exit %d, want 1 with %q and ImageNotFound:\n%s", code, want, out)
	}
	tampered := release(t, "v0.0.0-e2e", strings.Repeat("0", 64))
	code, out = runAction(ctx, t, tampered, map[string]string{"targets": "deploy/web", "namespace": ns, "version": "v0.0.0-e2e"})
	if code != 2 || !strings.Contains(out, "does not match the release's checksums.txt") {
		t.Errorf("tampered archive: exit %d, want 2 and the checksum error:\n%s", code, out)
	}
}
