package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/internal/mcp"
)

// mcpDiagnose calls the MCP server's diagnose tool, through the SDK's own
// client, and returns its structured report.
func mcpDiagnose(t *testing.T, cfg mcp.Config, args map[string]any) (*chain.Report, string) {
	t.Helper()
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := mcp.NewServer(cfg).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "diagnose", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if res.IsError {
		t.Fatalf("diagnose %v: %s", args, text.String())
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var rep chain.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	return &rep, text.String()
}

// TestMCPDiagnoseIsTheCommandLines: the MCP server's report of a capture
// is the command line's -o json, whole: both fronts run the one engine.
func TestMCPDiagnoseIsTheCommandLines(t *testing.T) {
	file := filepath.Join("..", "..", "testdata", "captures", "update-image-not-found.yaml")
	got, _ := mcpDiagnose(t, mcp.Config{Version: Version()}, map[string]any{"file": file})
	var stdout bytes.Buffer
	o := NewOptions(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &bytes.Buffer{}})
	_ = ExecuteWith(context.Background(), o, []string{"-f", file, "-o", "json"})
	var want chain.Report
	if err := json.Unmarshal(stdout.Bytes(), &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, *got); diff != "" || want.Change == nil {
		t.Errorf("MCP's report differs from the command line's (-command line +MCP):\n%s", diff)
	}
}
