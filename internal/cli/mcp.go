package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
	"github.com/kubectl-chain/kubectl-chain/internal/health"
)

func newMCPCommand(o *Options) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve the chain as MCP tools over stdio, for AI assistants",
		Long: `kubectl chain mcp is a Model Context Protocol server on standard input and
output. An assistant (an MCP client) starts it and calls its tools:

  diagnose        walk a workload's chain: the same report as kubectl chain TARGET -o json
  explain         decode one raw scheduler, kubelet or controller message
  list_unhealthy  the workloads of a namespace (or all) that are not healthy
  list_causes     every cause kubectl chain can name

It reads the cluster exactly as the command line does: the same kubeconfig
and context rules (--kubeconfig, --context and -n given here are the
defaults of every call; a call may name its own context and namespace), the
same read-only requests. Standard output carries only the protocol.`,
		Example: `  kubectl chain mcp
  kubectl chain mcp --context prod
  {"mcpServers": {"kubectl-chain": {"command": "kubectl", "args": ["chain", "mcp"]}}}`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.HealthChecks != "" {
				// Every call takes them; a bad file is told now, once.
				if _, err := health.Load(o.HealthChecks); err != nil {
					return usageErrorf("--health-checks: %v", err)
				}
			}
			return newMCPServer(o.mcpRunner()).Run(cmd.Context(), &mcp.StdioTransport{})
		},
	}
}

// chainRunner runs kubectl chain in process for a tool call, with the mcp
// command's kubeconfig flags as defaults, and returns what it printed.
type chainRunner struct {
	// defaults are the mcp command's own connection flags, and its
	// --health-checks.
	kubeconfig, context, namespace, healthChecks string
	// options makes the Options of one run; tests give a fake cluster.
	options func(genericiooptions.IOStreams) *Options
}

func (o *Options) mcpRunner() chainRunner {
	r := chainRunner{options: NewOptions, healthChecks: o.HealthChecks}
	if f := o.ConfigFlags; f != nil {
		r.kubeconfig, r.context, r.namespace = deref(f.KubeConfig), deref(f.Context), deref(f.Namespace)
	}
	return r
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// run runs kubectl chain with args and the connection flags (a call's own
// context and namespace first), and returns its standard output. A verdict
// other than healthy is no error here: the report says it. Any other
// failure is the command line's message, as a user would read it.
func (r chainRunner) run(ctx context.Context, context, namespace string, args ...string) ([]byte, error) {
	var out, errOut bytes.Buffer
	o := r.options(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	if context == "" {
		context = r.context
	}
	if namespace == "" {
		namespace = r.namespace
	}
	for _, f := range []struct{ flag, value string }{{"--kubeconfig", r.kubeconfig}, {"--context", context}, {"--namespace", namespace}, {"--health-checks", r.healthChecks}} {
		if f.value != "" {
			args = append(args, f.flag, f.value)
		}
	}
	err := ExecuteWith(ctx, o, args)
	var v *VerdictError
	if err == nil || errors.As(err, &v) || (json.Valid(out.Bytes()) && out.Len() > 0) {
		return out.Bytes(), nil
	}
	msg := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(errOut.String()), "error: "))
	if msg == "" {
		msg = err.Error()
	}
	return nil, errors.New(msg)
}

// Tool inputs. The descriptions are what a model reads.
type diagnoseIn struct {
	Target    string `json:"target,omitempty" jsonschema:"what to diagnose, as kubectl names it: deploy/web, sts/db, ds/agent, job/migrate, cj/nightly, pod/web-7d4b9c6f5-x2x7q (its workload), svc/web, ing/web, httproute/web, any KIND/NAME; a bare name is a Deployment"`
	Namespace string `json:"namespace,omitempty" jsonschema:"the namespace; default the kubeconfig's"`
	Context   string `json:"context,omitempty" jsonschema:"the kubeconfig context; default the current one"`
	File      string `json:"file,omitempty" jsonschema:"a capture file (kubectl chain capture, or kubectl get -o yaml output) to walk instead of the cluster"`
}

type explainIn struct {
	Message string `json:"message" jsonschema:"the raw message, pasted whole: an event's message, a condition's or a container state's"`
	Reason  string `json:"reason,omitempty" jsonschema:"the reason that came with it (FailedScheduling, BackOff, CreateContainerConfigError, ...), if known"`
}

type listIn struct {
	Namespace     string `json:"namespace,omitempty" jsonschema:"the namespace; default the kubeconfig's"`
	AllNamespaces bool   `json:"allNamespaces,omitempty" jsonschema:"every namespace of the cluster"`
	Context       string `json:"context,omitempty" jsonschema:"the kubeconfig context; default the current one"`
}

// explainOut and causesOut wrap lists: a tool's structured content is an
// object.
type explainOut struct {
	Explanation Explanation `json:"explanation"`
}

type causesOut struct {
	Causes []decode.Cause `json:"causes"`
}

// newMCPServer is the MCP server with the four tools.
func newMCPServer(r chainRunner) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "kubectl-chain", Title: "kubectl chain", Version: Version()}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "diagnose", Title: "Diagnose a workload",
		Description: "Walk the causal chain of a Kubernetes workload (or a Service, Ingress or Gateway route, or a custom resource) on the cluster and name the first broken link, its cause, the verbatim evidence and the next step. " +
			"Returns kubectl chain's JSON report: verdict.health is healthy, broken, progressing or unknown; verdict.link and verdict.cause name what broke. Read-only.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptrTo(true)},
	}, r.diagnose)
	mcp.AddTool(s, &mcp.Tool{Name: "explain", Title: "Explain a message",
		Description: "Decode one raw Kubernetes message (a FailedScheduling event, a kubelet's Failed or BackOff event, a container's waiting message, a controller's condition) into causes, each with the chain link it breaks and the next step. No cluster is read.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptrTo(false)},
	}, explainTool)
	mcp.AddTool(s, &mcp.Tool{Name: "list_unhealthy", Title: "List what is not healthy",
		Description: "Judge every workload of a namespace (or of every namespace) and return the reports of those that are not healthy, each with its broken link and cause. Read-only.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptrTo(true)},
	}, r.listUnhealthy)
	mcp.AddTool(s, &mcp.Tool{Name: "list_causes", Title: "List the causes",
		Description: "Every cause kubectl chain can name: its stable ID, the link it breaks, when it is terminal, its summary and next step.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptrTo(false)},
	}, listCauses)
	return s
}

func ptrTo[T any](v T) *T { return &v }

func (r chainRunner) diagnose(ctx context.Context, _ *mcp.CallToolRequest, in diagnoseIn) (*mcp.CallToolResult, *chain.Report, error) {
	args := []string{"-o", "json"}
	switch {
	case in.File != "":
		args = append(args, "-f", in.File)
		if in.Target != "" {
			args = append(args, in.Target)
		}
	case strings.TrimSpace(in.Target) == "":
		return nil, nil, errors.New(`name a target ("deploy/web", "sts/db", "pod/NAME", "svc/web", ...) or a capture file`)
	default:
		args = append(args, in.Target)
	}
	out, err := r.run(ctx, in.Context, in.Namespace, args...)
	if err != nil {
		return nil, nil, err
	}
	var rep chain.Report
	if err := json.Unmarshal(out, &rep); err != nil {
		return nil, nil, fmt.Errorf("one report expected for %q, got: %s", in.Target, firstLine(out))
	}
	return textResult(reportText(&rep)), &rep, nil
}

func (r chainRunner) listUnhealthy(ctx context.Context, _ *mcp.CallToolRequest, in listIn) (*mcp.CallToolResult, *chain.ReportList, error) {
	args := []string{"-o", "json", "--all"}
	if in.AllNamespaces {
		args = []string{"-o", "json", "-A"}
	}
	out, err := r.run(ctx, in.Context, in.Namespace, args...)
	if err != nil {
		return nil, nil, err
	}
	var all chain.ReportList
	if err := json.Unmarshal(out, &all); err != nil {
		return nil, nil, fmt.Errorf("a list of reports expected, got: %s", firstLine(out))
	}
	list := all
	list.Items = nil
	var text []string
	for i := range all.Items {
		if all.Items[i].Verdict.Health != chain.Healthy {
			list.Items = append(list.Items, all.Items[i])
			text = append(text, reportText(&all.Items[i]))
		}
	}
	if len(text) == 0 {
		text = []string{fmt.Sprintf("all %d workloads are healthy", len(all.Items))}
	} else {
		text = append([]string{fmt.Sprintf("%d of %d workloads are not healthy:", len(list.Items), len(all.Items))}, text...)
	}
	return textResult(strings.Join(text, "\n")), &list, nil
}

func explainTool(_ context.Context, _ *mcp.CallToolRequest, in explainIn) (*mcp.CallToolResult, *explainOut, error) {
	if strings.TrimSpace(in.Message) == "" {
		return nil, nil, errors.New("give the message to explain, pasted whole")
	}
	e := explain(in.Reason, in.Message, "")
	var text []string
	for _, c := range e.Causes {
		text = append(text, fmt.Sprintf("%s (%s): %s\nnext: %s", c.ID, linkName(c.Link), c.Summary, c.NextStep))
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

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return s
}
