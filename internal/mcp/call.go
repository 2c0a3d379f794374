package mcp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/diagnose"
	"github.com/kubectl-chain/kubectl-chain/internal/connect"
	"github.com/kubectl-chain/kubectl-chain/internal/engine"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

// Config is what every tool call starts from: the mcp command's flags.
type Config struct {
	// Kubeconfig, Context and Namespace are the mcp command's connection
	// flags, the defaults of every call (a call may name its own context
	// and namespace).
	Kubeconfig, Context, Namespace string
	// HealthChecks are the user's own health checks, read at every call
	// as the command line reads them.
	HealthChecks string
	// Version is kubectl chain's: the server's, and the user agent's.
	Version string
	// Connect makes a call's clientset and discovery mapper from its
	// connection flags; nil reads the cluster they name. Tests give a fake.
	Connect func(*genericclioptions.ConfigFlags) (func() (kube.Client, error), func() (meta.RESTMapper, error))
	// Now is the clock that stamps the snapshots; nil means time.Now.
	Now func() time.Time
}

// caller runs the engine for the tools that read a cluster.
type caller struct{ cfg Config }

// call is what a tool asks: the targets and files, or the scope, and the
// connection of the call.
type call struct {
	context, namespace string
	args, files        []string
	all, allNamespaces bool
	// text is pasted kubectl output, read as -f - reads standard input.
	text string
}

// request compiles a call into the engine's request as the command line
// compiles its flags: the health checks, the targets, the checks of the
// request, and the kubeconfig only for a live call.
func (r caller) request(c call) (*engine.Request, error) {
	req := &engine.Request{Files: c.files, All: c.all, AllNamespaces: c.allNamespaces,
		Timeout: engine.DefaultTimeout, Grace: diagnose.DefaultGrace, Unjudged: engine.UnjudgedNote,
		Stdin: strings.NewReader(c.text), Now: r.cfg.Now}
	if r.cfg.HealthChecks != "" {
		h, err := engine.LoadHealth(r.cfg.HealthChecks)
		if err != nil {
			return nil, err
		}
		req.Health = h
	}
	if len(c.args) > 0 || !(c.all || c.allNamespaces || len(c.files) > 0) {
		targets, err := engine.ParseTargets(c.args)
		if err != nil {
			return nil, err
		}
		req.Targets = targets
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	flags := r.flags(c)
	if len(c.files) > 0 {
		req.Namespace = *flags.Namespace // offline: -n as given
		return req, nil
	}
	ns, err := connect.Kubeconfig(flags, io.Discard)
	if err != nil {
		return nil, err
	}
	req.Namespace, req.NamespaceFromFlag = ns, *flags.Namespace != ""
	if r.cfg.Connect != nil {
		req.NewClient, req.NewMapper = r.cfg.Connect(flags)
	} else {
		req.NewClient, req.NewMapper = connect.Client(flags, "kubectl-chain/"+r.cfg.Version), connect.Mapper(flags)
	}
	return req, nil
}

// flags are the call's connection flags: its own context and namespace
// first, then the mcp command's.
func (r caller) flags(c call) *genericclioptions.ConfigFlags {
	f := genericclioptions.NewConfigFlags(true)
	*f.KubeConfig = r.cfg.Kubeconfig
	*f.Context = cmp.Or(c.context, r.cfg.Context)
	*f.Namespace = cmp.Or(c.namespace, r.cfg.Namespace)
	return f
}

// run runs the call on the engine and returns the reports it gave. A
// verdict other than healthy is no error here: the report says it, and so
// does the report of a target that does not exist. Any other failure is
// the command line's message, as a user would read it.
func (r caller) run(ctx context.Context, c call) (*results, error) {
	req, err := r.request(c)
	if err != nil {
		return nil, err
	}
	res := &results{}
	err = engine.New(*req, &res.notes).Run(ctx, res)
	if res.list == nil && res.notFound == nil {
		if err == nil {
			err = errors.New("the run gave no report")
		}
		return nil, err
	}
	return res, nil
}

// runFleet runs the call in each context at once (engine.RunFleet): one
// list of every context's reports, a context that could not be read a
// report of its own.
func (r caller) runFleet(ctx context.Context, c call, contexts []string) (*results, error) {
	members := make([]engine.Member, len(contexts))
	for i, name := range contexts {
		one := c
		one.context = name
		members[i].Context = name
		req, err := r.request(one)
		var usage *engine.ExitError
		if errors.As(err, &usage) && usage.Code == engine.ExitUsage {
			return nil, err
		}
		if err != nil {
			members[i].Err = err
			continue
		}
		members[i].Request = *req
	}
	res := &results{}
	err := engine.RunFleet(ctx, members, io.Discard, res)
	if res.list == nil {
		if err == nil {
			err = errors.New("the run gave no report")
		}
		return nil, err
	}
	return res, nil
}

// results is MCP's sink of the engine's verdicts: it keeps them as the
// tools' structured results.
type results struct {
	list     *chain.ReportList
	single   bool
	notFound *chain.Report
	// notes are what the run says beside its reports: for pasted text,
	// what it lacks and which text to paste too.
	notes strings.Builder
}

// noted is the text of a result with the run's notes after it.
func (s *results) noted(text string) string {
	if n := strings.TrimSpace(s.notes.String()); n != "" {
		text += "\nnotes:\n" + n
	}
	return text
}

func (s *results) Reports(l *chain.ReportList, single bool) error {
	s.list, s.single = l, single
	return nil
}

func (s *results) NotFound(r *chain.Report) error {
	s.notFound = r
	return nil
}

func (s *results) Progress(*chain.ReportList, bool, time.Duration) error { return nil }
func (s *results) Clear()                                                {}

// one is the report of the one target named.
func (s *results) one() (*chain.Report, bool) {
	switch {
	case s.list != nil && s.single && len(s.list.Items) == 1:
		return &s.list.Items[0], true
	case s.list == nil && s.notFound != nil:
		return s.notFound, true
	}
	return nil, false
}

func (r caller) diagnose(ctx context.Context, _ *mcp.CallToolRequest, in diagnoseIn) (*mcp.CallToolResult, *chain.Report, error) {
	c := call{context: in.Context, namespace: in.Namespace}
	switch {
	case in.File != "" && in.Text != "":
		return nil, nil, errors.New("give a file or pasted text, not both")
	case in.Text != "":
		c.files, c.text = []string{"-"}, in.Text
		if in.Target != "" {
			c.args = []string{in.Target}
		}
	case in.File != "":
		c.files = []string{in.File}
		if in.Target != "" {
			c.args = []string{in.Target}
		}
	case strings.TrimSpace(in.Target) == "":
		return nil, nil, errors.New(`name a target ("deploy/web", "sts/db", "pod/NAME", "svc/web", ...), a capture file, or paste kubectl output as text`)
	default:
		c.args = []string{in.Target}
	}
	var (
		rep   *chain.Report
		fleet []string
		noted = func(s string) string { return s }
	)
	if len(in.Contexts) > 0 {
		if in.Context != "" || in.File != "" || in.Text != "" {
			return nil, nil, errors.New("contexts judges the target in several clusters: leave out context, file and text")
		}
		res, err := r.runFleet(ctx, c, in.Contexts)
		if err != nil {
			return nil, nil, err
		}
		// The worst context's report, and one line for each.
		for i := range res.list.Items {
			it := &res.list.Items[i]
			if rep == nil || worse(it, rep) {
				rep = it
			}
			fleet = append(fleet, fleetLine(it))
		}
		if rep == nil {
			return nil, nil, errors.New("no context gave a report")
		}
	} else {
		res, err := r.run(ctx, c)
		if err != nil {
			return nil, nil, err
		}
		noted = res.noted
		one, ok := res.one()
		if !ok {
			return nil, nil, fmt.Errorf("one report expected for %q, got a list of %d", in.Target, len(res.list.Items))
		}
		rep = one
	}
	switch in.Detail {
	case "", "decided":
		rep = decided(rep)
	case "full":
	default:
		return nil, nil, fmt.Errorf("detail %q: use decided (the default) or full", in.Detail)
	}
	text := reportText(rep)
	if fleet != nil {
		text = "in each context:\n" + strings.Join(fleet, "\n") + "\nthe worst, " + rep.Context + ":\n" + text
	}
	return textResult(noted(text + "\n" + sizeOf(rep).String())), rep, nil
}

// worse says a's verdict fails a gate worse than b's: broken, then a
// context not read, then unknown, progressing, healthy.
func worse(a, b *chain.Report) bool {
	at := func(r *chain.Report) int {
		switch {
		case r.Verdict.Health == chain.Broken:
			return 0
		case r.Error != nil:
			return 1
		}
		return 1 + rank(r.Verdict.Health)
	}
	return at(a) < at(b)
}

// fleetLine is one context's verdict in a line.
func fleetLine(r *chain.Report) string {
	line := fmt.Sprintf("  %s: %s", r.Context, r.Verdict.Health)
	switch {
	case r.Error != nil:
		line += fmt.Sprintf(", not judged (exit %d): %s", r.Error.Exit, r.Error.Message)
	case r.Verdict.Link != "":
		line += fmt.Sprintf(" at %s (%s)", r.Verdict.Link, r.Verdict.Cause)
	}
	return line
}

func (r caller) listUnhealthy(ctx context.Context, _ *mcp.CallToolRequest, in listIn) (*mcp.CallToolResult, *listOut, error) {
	c := call{context: in.Context, namespace: in.Namespace, all: !in.AllNamespaces, allNamespaces: in.AllNamespaces}
	if in.Text != "" {
		if in.Context != "" || len(in.Contexts) > 0 || in.AllNamespaces {
			return nil, nil, errors.New("text is judged as pasted: leave out context, contexts and allNamespaces")
		}
		c.files, c.text = []string{"-"}, in.Text
	}
	run := r.run
	if len(in.Contexts) > 0 {
		if in.Context != "" {
			return nil, nil, errors.New("name one context (context) or several (contexts), not both")
		}
		run = func(ctx context.Context, c call) (*results, error) { return r.runFleet(ctx, c, in.Contexts) }
	}
	res, err := run(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	if res.list == nil {
		return nil, nil, errors.New("a list of reports expected, got one report")
	}
	out, err := page(res.list, in.Cursor, in.Limit, in.IncludeHealthy)
	if err != nil {
		return nil, nil, err
	}
	var text []string
	for i := range out.Items {
		text = append(text, reportText(&out.Items[i]))
	}
	switch {
	case out.Unhealthy == 0:
		text = []string{fmt.Sprintf("all %d workloads are healthy", out.Total)}
	default:
		text = append([]string{fmt.Sprintf("%d of %d workloads are not healthy:", out.Unhealthy, out.Total)}, text...)
	}
	if out.NextCursor != "" {
		text = append(text, fmt.Sprintf("more: call again with cursor %q", out.NextCursor))
	}
	text = append(text, out.Size.String())
	return textResult(res.noted(strings.Join(text, "\n"))), out, nil
}
