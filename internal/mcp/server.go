// Package mcp serves kubectl chain as Model Context Protocol tools (over
// stdio, for AI assistants): diagnose and list_unhealthy run the engine
// directly, as the command line does, and return its reports as the tools'
// structured results; explain and list_causes decode without a cluster.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
	"github.com/kubectl-chain/kubectl-chain/internal/engine"
)

// Run serves the tools on standard input and output until ctx ends or the
// client goes.
func Run(ctx context.Context, cfg Config) error {
	return NewServer(cfg).Run(ctx, &mcp.StdioTransport{})
}

// Tool inputs. The descriptions are what a model reads.
type diagnoseIn struct {
	Target    string   `json:"target,omitempty" jsonschema:"what to diagnose, as kubectl names it: deploy/web, sts/db, ds/agent, job/migrate, cj/nightly, pod/web-7d4b9c6f5-x2x7q (its workload), svc/web, ing/web, httproute/web, any KIND/NAME; a bare name is a Deployment"`
	Namespace string   `json:"namespace,omitempty" jsonschema:"the namespace; default the kubeconfig's"`
	Context   string   `json:"context,omitempty" jsonschema:"the kubeconfig context; default the current one"`
	File      string   `json:"file,omitempty" jsonschema:"a capture file (kubectl chain capture, or kubectl get -o yaml output) to walk instead of the cluster"`
	Text      string   `json:"text,omitempty" jsonschema:"kubectl output pasted whole, to walk instead of the cluster: kubectl describe (pods, workloads, nodes, ...), kubectl get tables (pods, -o wide), kubectl get events, or YAML; several may follow one another. Without target its only workload (or pod) is walked"`
	Detail    string   `json:"detail,omitempty" jsonschema:"decided (the default): the report with the evidence that decided the verdict, every other finding without its evidence; full: the whole report"`
	Contexts  []string `json:"contexts,omitempty" jsonschema:"several kubeconfig contexts to judge the target in at once, instead of context: the report is the worst context's (named in it), and the text gives each context's verdict"`
}

type explainIn struct {
	Message string `json:"message" jsonschema:"the raw message, pasted whole: an event's message, a condition's or a container state's"`
	Reason  string `json:"reason,omitempty" jsonschema:"the reason that came with it (FailedScheduling, BackOff, CreateContainerConfigError, ...), if known"`
}

type listIn struct {
	Namespace      string   `json:"namespace,omitempty" jsonschema:"the namespace; default the kubeconfig's"`
	AllNamespaces  bool     `json:"allNamespaces,omitempty" jsonschema:"every namespace of the cluster"`
	Context        string   `json:"context,omitempty" jsonschema:"the kubeconfig context; default the current one"`
	Contexts       []string `json:"contexts,omitempty" jsonschema:"several kubeconfig contexts judged at once, instead of context: each report names its context, and a context that cannot be read is a report whose error says why"`
	Limit          int      `json:"limit,omitempty" jsonschema:"at most this many reports in the page (default 20)"`
	Cursor         string   `json:"cursor,omitempty" jsonschema:"the nextCursor of the previous page, to read the next one"`
	IncludeHealthy bool     `json:"includeHealthy,omitempty" jsonschema:"list the healthy workloads too, after the others (by default they are only counted)"`
	Text           string   `json:"text,omitempty" jsonschema:"kubectl output pasted whole (kubectl describe, kubectl get tables and events, or YAML) to judge every workload it shows instead of the cluster's"`
}

// explainOut and causesOut wrap lists: a tool's structured content is an
// object.
type explainOut struct {
	Explanation engine.Explanation `json:"explanation"`
}

type causesOut struct {
	Causes []decode.Cause `json:"causes"`
}

// NewServer is the MCP server with the four tools; every call that reads a
// cluster starts from cfg.
func NewServer(cfg Config) *mcp.Server {
	r := caller{cfg: cfg}
	s := mcp.NewServer(&mcp.Implementation{Name: "kubectl-chain", Title: "kubectl chain", Version: cfg.Version}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "diagnose", Title: "Diagnose a workload",
		Description: "Walk the causal chain of a Kubernetes workload (or a Service, Ingress or Gateway route, or a custom resource) on the cluster, or in kubectl output pasted as text, and name the first broken link, its cause, the verbatim evidence and the next step. " +
			"Returns kubectl chain's JSON report: verdict.health is healthy, broken, progressing or unknown; verdict.link and verdict.cause name what broke. By default it carries the evidence that decided the verdict (detail: full for all of it); the result states its size. Read-only.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptrTo(true)},
	}, r.diagnose)
	mcp.AddTool(s, &mcp.Tool{Name: "explain", Title: "Explain a message",
		Description: "Decode one raw Kubernetes message (a FailedScheduling event, a kubelet's Failed or BackOff event, a container's waiting message, a controller's condition) into causes, each with the chain link it breaks and the next step. No cluster is read.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptrTo(false)},
	}, explainTool)
	mcp.AddTool(s, &mcp.Tool{Name: "list_unhealthy", Title: "List what is not healthy",
		Description: "Judge every workload of a namespace (or of every namespace), in one cluster or in several at once (contexts), or every workload kubectl output pasted as text shows, and return the reports of those that are not healthy, broken first, each with its broken link and cause (and its context), one page at a time (limit, cursor); the healthy are counted. The result states its size. Read-only.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptrTo(true)},
	}, r.listUnhealthy)
	mcp.AddTool(s, &mcp.Tool{Name: "list_causes", Title: "List the causes",
		Description: "Every cause kubectl chain can name: its stable ID, the link it breaks, when it is terminal, its summary and next step.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptrTo(false)},
	}, listCauses)
	return s
}

func ptrTo[T any](v T) *T { return &v }

func explainTool(_ context.Context, _ *mcp.CallToolRequest, in explainIn) (*mcp.CallToolResult, *explainOut, error) {
	if strings.TrimSpace(in.Message) == "" {
		return nil, nil, errors.New("give the message to explain, pasted whole")
	}
	e := engine.Explain(in.Reason, in.Message, "")
	var text []string
	for _, c := range e.Causes {
		text = append(text, fmt.Sprintf("%s (%s): %s\nnext: %s", c.ID, engine.LinkName(c.Link), c.Summary, c.NextStep))
	}
	if len(text) == 0 {
		text = []string{"no known cause for this message: kubectl chain does not decode it"}
	}
	return textResult(strings.Join(text, "\n")), &explainOut{Explanation: e}, nil
}

func listCauses(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, *causesOut, error) {
	out := &causesOut{Causes: decode.Catalogue()}
	return textResult(fmt.Sprintf("%d causes; each has a stable ID, the link it breaks, when it is terminal, a summary and a next step", len(out.Causes))), out, nil
}

// reportText is a report in a few lines for the model: the verdict, what
// broke and the next step.
func reportText(r *chain.Report) string {
	v := r.Verdict
	head := fmt.Sprintf("%s %s/%s: %s", strings.ToLower(string(r.Kind)), r.Namespace, r.Name, v.Health)
	if r.Context != "" {
		head = fmt.Sprintf("%s %s/%s in context %s: %s", strings.ToLower(string(r.Kind)), r.Namespace, r.Name, r.Context, v.Health)
		if r.Name == "" && r.Error != nil {
			head = fmt.Sprintf("context %s: not judged (exit %d)", r.Context, r.Error.Exit)
		}
	}
	if v.Link != "" {
		head += fmt.Sprintf(" at %s", v.Link)
	}
	if v.Cause != "" {
		head += fmt.Sprintf(" (%s)", v.Cause)
	}
	lines := []string{head}
	if v.Summary != "" {
		lines = append(lines, "  "+v.Summary)
	}
	if v.NextStep != "" {
		lines = append(lines, "  next: "+v.NextStep)
	}
	if c := r.Change; c != nil && c.Rollback != "" {
		lines = append(lines, "  changed since revision "+c.From+"; rollback: "+c.Rollback)
	}
	return strings.Join(lines, "\n")
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}
