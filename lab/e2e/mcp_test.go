package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/lab/scenarios"
)

// inspector is the MCP Inspector's command line (npm's
// @modelcontextprotocol/inspector-cli), installed under MCP_INSPECTOR
// (default ~/.cache/kubectl-chain/mcp-inspector, where .ci/run installs
// it). It returns the directory to run it from: the CLI reads its own
// package.json relative to the working directory, so it runs from its
// node_modules.
func inspector(t testing.TB) (bin, dir string) {
	t.Helper()
	root := os.Getenv("MCP_INSPECTOR")
	if root == "" {
		home, _ := os.UserHomeDir()
		root = filepath.Join(home, ".cache", "kubectl-chain", "mcp-inspector")
	}
	bin = filepath.Join(root, "node_modules", ".bin", "mcp-inspector-cli")
	_, errBin := os.Stat(bin)
	_, errNode := exec.LookPath("node")
	if errBin != nil || errNode != nil {
		msg := "the MCP Inspector's CLI is not installed (npm install --prefix " + root + " @modelcontextprotocol/inspector-cli, with Debian's nodejs and npm; .ci/run does it)"
		if os.Getenv("KUBECTL_CHAIN_CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return bin, filepath.Join(root, "node_modules")
}

// inspect runs one MCP method through the Inspector against `kubectl-chain
// mcp` on the lab and decodes its JSON answer.
func inspect(t testing.TB, ctx context.Context, out any, args ...string) {
	t.Helper()
	inspectAt(t, ctx, kubeconfig, out, args...)
}

// inspectAt is inspect against the cluster of kubeconfig kc; it returns
// the answer's bytes.
func inspectAt(t testing.TB, ctx context.Context, kc string, out any, args ...string) []byte {
	t.Helper()
	bin, dir := inspector(t)
	cmd := exec.CommandContext(ctx, bin, append([]string{"--cli", chainBin, "mcp", "--kubeconfig", kc}, args...)...)
	cmd.Dir = dir
	stdout, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("mcp-inspector-cli %s: %v\n%s\n%s", strings.Join(args, " "), err, stdout, stderr)
	}
	if err := json.Unmarshal(stdout, out); err != nil {
		t.Fatalf("mcp-inspector-cli %s: %v\n%s", strings.Join(args, " "), err, stdout)
	}
	return stdout
}

// TestMCPInspector: a real MCP client nobody here wrote lists the tools of
// `kubectl-chain mcp` and calls them against the lab: diagnose gives the
// command line's verdict on a broken Deployment, list_unhealthy finds it,
// explain decodes a message.
func TestMCPInspector(t *testing.T) {
	alone(t)
	inspector(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	sc, err := scenarios.Get("image-not-found")
	if err != nil {
		t.Fatal(err)
	}
	ns := "mcp-image-not-found"
	if err := scenarios.Apply(ctx, client, sc, ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = scenarios.Delete(context.Background(), client, sc, ns) })
	want := verdict{Health: sc.Health, Link: sc.Link, Cause: sc.Cause}
	for got := (verdict{}); got != want; time.Sleep(time.Second) {
		if got, _, _, err = diagnose(ctx, sc.Target(), "-n", ns); err != nil || ctx.Err() != nil {
			t.Fatalf("the command line's verdict: %+v, %v", got, err)
		}
	}

	var tools struct {
		Tools []struct {
			Name         string         `json:"name"`
			OutputSchema map[string]any `json:"outputSchema"`
		} `json:"tools"`
	}
	inspect(t, ctx, &tools, "--method", "tools/list")
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		if tool.OutputSchema == nil {
			t.Errorf("tool %s has no output schema", tool.Name)
		}
	}
	if got := strings.Join(names, ","); got != "diagnose,explain,list_causes,list_unhealthy" {
		t.Errorf("tools: %s", got)
	}

	type result[T any] struct {
		IsError           bool `json:"isError"`
		StructuredContent T    `json:"structuredContent"`
		Content           []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	var diag result[chain.Report]
	inspect(t, ctx, &diag, "--method", "tools/call", "--tool-name", "diagnose", "--tool-arg", "target="+sc.Target(), "--tool-arg", "namespace="+ns)
	v := diag.StructuredContent.Verdict
	if diag.IsError || (verdict{Health: v.Health, Link: v.Link, Cause: v.Cause}) != want {
		t.Errorf("diagnose through MCP: %+v (error %v), want the command line's %+v", v, diag.IsError, want)
	}
	if len(diag.Content) == 0 || !strings.Contains(diag.Content[0].Text, string(sc.Cause)) {
		t.Errorf("diagnose's text for the model: %+v", diag.Content)
	}

	var list result[chain.ReportList]
	inspect(t, ctx, &list, "--method", "tools/call", "--tool-name", "list_unhealthy", "--tool-arg", "namespace="+ns)
	if list.IsError || len(list.StructuredContent.Items) != 1 || list.StructuredContent.Items[0].Verdict.Cause != sc.Cause {
		t.Errorf("list_unhealthy through MCP: error %v, %d items: %+v", list.IsError, len(list.StructuredContent.Items), list.Content)
	}

	var expl result[struct {
		Explanation struct {
			Causes []struct {
				ID string `json:"id"`
			} `json:"causes"`
		} `json:"explanation"`
	}]
	inspect(t, ctx, &expl, "--method", "tools/call", "--tool-name", "explain", "--tool-arg", `message=Back-off pulling image "registry.lab.internal/web:v9"`)
	if c := expl.StructuredContent.Explanation.Causes; expl.IsError || len(c) == 0 || c[0].ID != "ImagePullFailed" {
		t.Errorf("explain through MCP: %+v", expl)
	}

	var bad result[any]
	inspect(t, ctx, &bad, "--method", "tools/call", "--tool-name", "diagnose", "--tool-arg", "target=deploy/does-not-exist", "--tool-arg", "namespace="+ns)
	if len(bad.Content) == 0 || !strings.Contains(bad.Content[0].Text, "DeploymentNotFound") && !bad.IsError {
		t.Errorf("a Deployment that does not exist: %+v", bad)
	}
}
