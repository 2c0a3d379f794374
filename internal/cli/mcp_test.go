package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// mcpSession connects an in-memory MCP client (the SDK's own) to the
// server.
func mcpSession(t *testing.T) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := newMCPServer(chainRunner{options: NewOptions}).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestMCPTools: the four tools, each with its input and output schema.
func TestMCPTools(t *testing.T) {
	cs := mcpSession(t)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.InputSchema == nil || tool.OutputSchema == nil || tool.Description == "" {
			t.Errorf("tool %s: input schema %v, output schema %v, description %q", tool.Name, tool.InputSchema != nil, tool.OutputSchema != nil, tool.Description)
		}
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("tool %s is not marked read-only", tool.Name)
		}
	}
	if got := strings.Join(names, ","); got != "diagnose,explain,list_causes,list_unhealthy" {
		t.Errorf("tools %s", got)
	}
}

// call calls a tool and decodes its structured content into out.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if out != nil && !res.IsError {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: structured content: %v", name, err)
		}
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestMCPExplain: a real message (a wazuh-agent DaemonSet pod, in a public
// deployment report: github.com/Ka0s-Klaus/ka0s audit/deploy/
// deployment-report-soc-21868482362.md; testdata/real/messages/
// daemonsets.yaml) decodes as the command line decodes it.
func TestMCPExplain(t *testing.T) {
	cs := mcpSession(t)
	msg := "0/4 nodes are available: 1 Insufficient cpu, 3 node(s) didn't satisfy plugin(s) [NodeAffinity]. preemption: 0/4 nodes are available: 1 No preemption victims found for incoming pod, 3 Preemption is not helpful for scheduling."
	var out explainOut
	res := call(t, cs, "explain", map[string]any{"message": msg, "reason": "FailedScheduling"}, &out)
	if res.IsError || len(out.Explanation.Causes) == 0 || out.Explanation.Causes[0].ID != "InsufficientCPU" {
		t.Fatalf("explain: %+v\n%s", out, text(res))
	}
	if !strings.Contains(text(res), "InsufficientCPU (node-assignment)") {
		t.Errorf("text for the model: %q", text(res))
	}
	res = call(t, cs, "explain", map[string]any{"message": "  "}, nil)
	if !res.IsError || !strings.Contains(text(res), "give the message") {
		t.Errorf("an empty message: error %v, %q", res.IsError, text(res))
	}
}

// TestMCPDiagnose: the report of a capture is the command line's -o json,
// and a target the command line refuses comes back as a tool error in its
// words.
func TestMCPDiagnose(t *testing.T) {
	cs := mcpSession(t)
	file := filepath.Join("..", "..", "testdata", "captures", "update-image-not-found.yaml")
	var got chain.Report
	res := call(t, cs, "diagnose", map[string]any{"file": file}, &got)
	if res.IsError {
		t.Fatalf("diagnose: %s", text(res))
	}
	var stdout bytes.Buffer
	o := NewOptions(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &bytes.Buffer{}})
	_ = ExecuteWith(context.Background(), o, []string{"-f", file, "-o", "json"})
	var want chain.Report
	if err := json.Unmarshal(stdout.Bytes(), &want); err != nil {
		t.Fatal(err)
	}
	if got.Verdict != want.Verdict || got.Name != want.Name || len(got.Links) != len(want.Links) || got.Change == nil || got.Change.Rollback != want.Change.Rollback {
		t.Errorf("diagnose: %+v, want the command line's %+v", got.Verdict, want.Verdict)
	}
	for _, s := range []string{"deployment sc-update-image-not-found/web: broken at containers (ImageNotFound)", "rollback: kubectl rollout undo deploy/web"} {
		if !strings.Contains(text(res), s) {
			t.Errorf("text for the model lacks %q:\n%s", s, text(res))
		}
	}
	res = call(t, cs, "diagnose", map[string]any{"target": "frobnicators/web", "file": file}, nil)
	if !res.IsError || !strings.Contains(text(res), "frobnicators") {
		t.Errorf("an unknown kind: error %v, %q", res.IsError, text(res))
	}
	res = call(t, cs, "diagnose", map[string]any{}, nil)
	if !res.IsError || !strings.Contains(text(res), "name a target") {
		t.Errorf("no target: error %v, %q", res.IsError, text(res))
	}
}

// TestMCPCauses: the catalogue, whole.
func TestMCPCauses(t *testing.T) {
	var out causesOut
	res := call(t, mcpSession(t), "list_causes", nil, &out)
	if res.IsError || len(out.Causes) != len(decode.Catalogue()) || len(out.Causes) < 100 {
		t.Errorf("list_causes: %d causes, want %d", len(out.Causes), len(decode.Catalogue()))
	}
}
