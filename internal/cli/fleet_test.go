package cli

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// fleetKubeconfig writes a kubeconfig of two contexts, a and b, whose
// servers refuse connections, and points KUBECONFIG at it.
func fleetKubeconfig(t *testing.T) {
	t.Helper()
	var addrs []string
	for range 2 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addrs = append(addrs, l.Addr().String())
		defer l.Close() // after both are chosen, so they differ; then nothing listens there
	}
	cfg := `apiVersion: v1
kind: Config
clusters:
- {name: a, cluster: {server: "http://` + addrs[0] + `"}}
- {name: b, cluster: {server: "http://` + addrs[1] + `"}}
contexts:
- {name: a, context: {cluster: a, user: u, namespace: shop}}
- {name: b, context: {cluster: b, user: u, namespace: web}}
current-context: a
users:
- {name: u, user: {token: t}}
`
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", path)
}

// TestFleetCommandLine: --context a,b and --all-contexts judge in each
// context, one row each (here both unreachable: exit 6, each row saying
// so, in its own context's namespace); the mistakes a user can make with
// them are clear errors.
func TestFleetCommandLine(t *testing.T) {
	fleetKubeconfig(t)
	for _, args := range [][]string{{"deploy/web", "--context", "a,b", "-o", "json"}, {"deploy/web", "--all-contexts", "-o", "json"}} {
		r := runWith(t, nil, args...)
		var l chain.ReportList
		decodeJSON(t, r.stdout, &l)
		if r.code != ExitCluster || len(l.Items) != 2 {
			t.Fatalf("%v: exit %d, %d reports; want %d, one per context\n%s%s", args, r.code, len(l.Items), ExitCluster, r.stdout, r.stderr)
		}
		for i, want := range []struct{ context, ns string }{{"a", "shop"}, {"b", "web"}} {
			it := l.Items[i]
			if it.Context != want.context || it.Namespace != want.ns || it.Name != "web" || it.Error == nil || it.Error.Exit != ExitCluster ||
				!strings.Contains(it.Error.Message, "refused") {
				t.Errorf("%v: row %d %+v; want context %s, %s/web, exit 6 saying the connection was refused", args, i, it, want.context, want.ns)
			}
		}
		if !strings.Contains(r.stderr, "context a: ") || !strings.Contains(r.stderr, "context b: ") {
			t.Errorf("%v: stderr %q should name each context not read", args, r.stderr)
		}
	}
	r := runWith(t, nil, "deploy/web", "--context", "a,b")
	if !strings.HasPrefix(r.stdout, "context a\n") && !strings.Contains(r.stdout, "CONTEXT") {
		t.Errorf("text: %q, want a table with a CONTEXT column", r.stdout)
	}
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"deploy/web", "--context", "a,nope"}, ExitCluster, `context "nope" is not in the kubeconfig (it has: a, b)`},
		{[]string{"deploy/web", "--context", "a,,b"}, ExitUsage, "names an empty context"},
		{[]string{"deploy/web", "--all-contexts", "--context", "a"}, ExitUsage, "leave out --context a"},
		{[]string{"-f", "x.yaml", "--context", "a,b"}, ExitUsage, "-f walks files"},
		{[]string{"capture", "deploy/web", "--context", "a,b"}, ExitUsage, "this command reads one"},
	} {
		r := runWith(t, nil, c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.says) {
			t.Errorf("%v: exit %d, stderr %q; want %d saying %q", c.args, r.code, r.stderr, c.code, c.says)
		}
	}
}
