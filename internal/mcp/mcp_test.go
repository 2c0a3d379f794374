package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
	"github.com/kubectl-chain/kubectl-chain/internal/golden"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

// session connects an in-memory MCP client (the SDK's own) to the server.
func session(t *testing.T, cfg Config) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := NewServer(cfg).Connect(ctx, st, nil)
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

// TestTools: the four tools, each with its input and output schema.
func TestTools(t *testing.T) {
	cs := session(t, Config{Version: "test"})
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

// callTool calls a tool and decodes its structured content into out.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) *mcp.CallToolResult {
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

// TestExplain: a real message (a wazuh-agent DaemonSet pod, in a public
// deployment report: github.com/Ka0s-Klaus/ka0s audit/deploy/
// deployment-report-soc-21868482362.md; testdata/real/messages/
// daemonsets.yaml) decodes as the command line decodes it.
func TestExplain(t *testing.T) {
	cs := session(t, Config{Version: "test"})
	msg := "0/4 nodes are available: 1 Insufficient cpu, 3 node(s) didn't satisfy plugin(s) [NodeAffinity]. preemption: 0/4 nodes are available: 1 No preemption victims found for incoming pod, 3 Preemption is not helpful for scheduling."
	var out explainOut
	res := callTool(t, cs, "explain", map[string]any{"message": msg, "reason": "FailedScheduling"}, &out)
	if res.IsError || len(out.Explanation.Causes) == 0 || out.Explanation.Causes[0].ID != "InsufficientCPU" {
		t.Fatalf("explain: %+v\n%s", out, text(res))
	}
	if !strings.Contains(text(res), "InsufficientCPU (node-assignment)") {
		t.Errorf("text for the model: %q", text(res))
	}
	res = callTool(t, cs, "explain", map[string]any{"message": "  "}, nil)
	if !res.IsError || !strings.Contains(text(res), "give the message") {
		t.Errorf("an empty message: error %v, %q", res.IsError, text(res))
	}
}

// TestDiagnose: the report of a capture, its few lines for the model, and a
// target the command line refuses comes back as a tool error in its words.
// (internal/cli's test checks the report is the command line's -o json.)
func TestDiagnose(t *testing.T) {
	cs := session(t, Config{Version: "test"})
	file := filepath.Join("..", "..", "testdata", "captures", "update-image-not-found.yaml")
	var got chain.Report
	res := callTool(t, cs, "diagnose", map[string]any{"file": file}, &got)
	if res.IsError {
		t.Fatalf("diagnose: %s", text(res))
	}
	if got.Name != "web" || got.Verdict.Health != chain.Broken || got.Verdict.Cause != "ImageNotFound" || got.Change == nil || got.Change.Rollback == "" {
		t.Errorf("diagnose: %+v", got.Verdict)
	}
	for _, s := range []string{"deployment sc-update-image-not-found/web: broken at containers (ImageNotFound)", "rollback: kubectl rollout undo deploy/web"} {
		if !strings.Contains(text(res), s) {
			t.Errorf("text for the model lacks %q:\n%s", s, text(res))
		}
	}
	res = callTool(t, cs, "diagnose", map[string]any{"target": "frobnicators/web", "file": file}, nil)
	if !res.IsError || !strings.Contains(text(res), "frobnicators") {
		t.Errorf("an unknown kind: error %v, %q", res.IsError, text(res))
	}
	res = callTool(t, cs, "diagnose", map[string]any{}, nil)
	if !res.IsError || !strings.Contains(text(res), "name a target") {
		t.Errorf("no target: error %v, %q", res.IsError, text(res))
	}
}

// TestDiagnoseText: kubectl describe pod pasted as text is walked as -f -
// walks it, from the pod, and the notes say what to paste too.
func TestDiagnoseText(t *testing.T) {
	cs := session(t, Config{Version: "test"})
	paste, err := os.ReadFile(filepath.Join("..", "..", "testdata", "real", "pastes", "kubernetes-98157-describe-pod.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var got chain.Report
	res := callTool(t, cs, "diagnose", map[string]any{"text": string(paste)}, &got)
	if res.IsError {
		t.Fatalf("diagnose: %s", text(res))
	}
	if got.Kind != chain.KindPod || got.Verdict.Health != chain.Broken || got.Verdict.Cause != "OOMKilled" {
		t.Errorf("diagnose of a pasted describe: %s %+v", got.Kind, got.Verdict)
	}
	for _, s := range []string{"broken at containers (OOMKilled)", "notes:", "paste kubectl describe rs jumpserver-reader-589945c95c too"} {
		if !strings.Contains(text(res), s) {
			t.Errorf("text for the model lacks %q:\n%s", s, text(res))
		}
	}
	for _, bad := range []struct {
		in   map[string]any
		want string
	}{
		{map[string]any{"text": "hello, the pod is stuck"}, "nothing kubectl chain can read"},
		{map[string]any{"text": string(paste), "file": "x.yaml"}, "not both"},
		{map[string]any{"text": string(paste), "contexts": []string{"a", "b"}}, "leave out context, file and text"},
	} {
		res := callTool(t, cs, "diagnose", bad.in, nil)
		if !res.IsError || !strings.Contains(text(res), bad.want) {
			t.Errorf("diagnose %v: error %v, %q; want %q", bad.in["text"], res.IsError, text(res), bad.want)
		}
	}
}

// TestCauses: the catalogue, whole.
func TestCauses(t *testing.T) {
	var out causesOut
	res := callTool(t, session(t, Config{Version: "test"}), "list_causes", nil, &out)
	if res.IsError || len(out.Causes) != len(decode.Catalogue()) || len(out.Causes) < 100 {
		t.Errorf("list_causes: %d causes, want %d", len(out.Causes), len(decode.Catalogue()))
	}
}

// TestHealthChecks: every call takes the mcp command's --health-checks
// over Argo CD's catalogue, as the command line does.
func TestHealthChecks(t *testing.T) {
	dir := t.TempDir()
	cert := filepath.Join(dir, "cert.yaml")
	cm := filepath.Join(dir, "argocd-cm.yaml")
	for file, data := range map[string]string{cert: `apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: web-tls, namespace: shop, creationTimestamp: "2026-11-30T09:00:00Z"}
spec: {secretName: web-tls, issuerRef: {name: letsencrypt}}
status:
  conditions:
  - {type: Ready, status: "True", reason: Ready, message: Certificate is up to date and has not expired}
`, cm: `apiVersion: v1
kind: ConfigMap
metadata: {name: argocd-cm, namespace: argocd}
data:
  resource.customizations.health.cert-manager.io_Certificate: |
    return {status = "Degraded", message = "our rule: every certificate is renewed by hand"}
`} {
		if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in := map[string]any{"target": "certificate.cert-manager.io/web-tls", "file": cert}
	var got chain.Report
	if res := callTool(t, session(t, Config{Version: "test"}), "diagnose", in, &got); res.IsError || got.Verdict.Health != chain.Healthy {
		t.Errorf("Argo CD's check: %s %s", got.Verdict.Health, text(res))
	}
	res := callTool(t, session(t, Config{Version: "test", HealthChecks: cm}), "diagnose", in, &got)
	if res.IsError || got.Verdict.Health != chain.Broken || !strings.Contains(text(res), "our rule: every certificate is renewed by hand") {
		t.Errorf("with the user's check: %s %s", got.Verdict.Health, text(res))
	}
	res = callTool(t, session(t, Config{Version: "test", HealthChecks: filepath.Join(dir, "missing.yaml")}), "diagnose", in, nil)
	if !res.IsError || !strings.Contains(text(res), "--health-checks") || !strings.Contains(text(res), "missing.yaml") {
		t.Errorf("a missing file: error %v, %q", res.IsError, text(res))
	}
}

// TestListUnhealthy: the workloads of every namespace of a cluster judged
// by the engine, as -A judges them, and only those not healthy returned;
// one namespace's, with the call's namespace; a missing one, as a report
// of the command line's not-found verdict.
func TestListUnhealthy(t *testing.T) {
	kubeconfig(t, "default")
	objs := append(fixture(t, "healthy.yaml"), inNamespace(fixture(t, "image-not-found.yaml"), "staging")...)
	client := fake.NewClientset(objs...)
	cfg := Config{Version: "test", Now: func() time.Time { return time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC) },
		Connect: func(*genericclioptions.ConfigFlags) (func() (kube.Client, error), func() (meta.RESTMapper, error)) {
			return func() (kube.Client, error) { return client, nil },
				func() (meta.RESTMapper, error) { return meta.NewDefaultRESTMapper(nil), nil }
		}}
	cs := session(t, cfg)
	var got chain.ReportList
	res := callTool(t, cs, "list_unhealthy", map[string]any{"allNamespaces": true}, &got)
	if res.IsError || len(got.Items) != 1 || got.Items[0].Namespace != "staging" || got.Items[0].Verdict.Cause != "ImageNotFound" {
		t.Fatalf("list_unhealthy -A: %+v\n%s", got, text(res))
	}
	if !strings.HasPrefix(text(res), "1 of 2 workloads are not healthy:\ndeployment staging/web: broken at containers (ImageNotFound)") {
		t.Errorf("text for the model:\n%s", text(res))
	}
	res = callTool(t, cs, "list_unhealthy", map[string]any{"namespace": "shop"}, &got)
	if res.IsError || len(got.Items) != 0 || !strings.HasPrefix(text(res), "all 1 workloads are healthy\nsize: ") {
		t.Errorf("list_unhealthy in shop: %+v\n%s", got, text(res))
	}
	var rep chain.Report
	res = callTool(t, cs, "diagnose", map[string]any{"target": "deploy/gone", "namespace": "shop"}, &rep)
	if res.IsError || rep.Verdict.Cause != "DeploymentNotFound" {
		t.Errorf("a missing Deployment: %+v\n%s", rep.Verdict, text(res))
	}
	res = callTool(t, cs, "list_unhealthy", map[string]any{"namespace": "empty"}, nil)
	if !res.IsError || !strings.Contains(text(res), "no Deployments, StatefulSets, DaemonSets, Jobs, CronJobs, Argo Rollouts, Ingresses, Gateways or routes in namespace empty") {
		t.Errorf("an empty namespace: error %v, %q", res.IsError, text(res))
	}
}

// kubeconfig points KUBECONFIG at one whose context is in namespace ns, so
// no test reads the user's.
func kubeconfig(t *testing.T, ns string) {
	t.Helper()
	cfg := `apiVersion: v1
kind: Config
clusters:
- {name: test, cluster: {server: "https://127.0.0.1:1"}}
contexts:
- {name: test, context: {cluster: test, user: test, namespace: ` + ns + `}}
current-context: test
users:
- {name: test, user: {token: test-token}}
`
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", path)
}

// fixture reads a testdata snapshot into typed objects for a fake
// clientset.
func fixture(t *testing.T, name string) []runtime.Object {
	t.Helper()
	return golden.ListObjects(t, filepath.Join("..", "..", "testdata", "snapshots", name))
}

// TestListUnhealthyContexts: list_unhealthy over several contexts judges
// each at once; each report names its context, and a context that cannot
// be read is a report whose error says why, beside the others'.
func TestListUnhealthyContexts(t *testing.T) {
	cfg := `apiVersion: v1
kind: Config
clusters:
- {name: test, cluster: {server: "https://127.0.0.1:1"}}
contexts:
- {name: a, context: {cluster: test, user: test, namespace: default}}
- {name: b, context: {cluster: test, user: test, namespace: default}}
current-context: a
users:
- {name: test, user: {token: test-token}}
`
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", path)
	broken := fixture(t, "image-not-found.yaml")
	clients := map[string]*fake.Clientset{"a": fake.NewClientset(broken...), "b": fake.NewClientset(fixture(t, "healthy.yaml")...)}
	c := Config{Version: "test", Now: func() time.Time { return time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC) },
		Connect: func(f *genericclioptions.ConfigFlags) (func() (kube.Client, error), func() (meta.RESTMapper, error)) {
			client := clients[*f.Context]
			return func() (kube.Client, error) { return client, nil },
				func() (meta.RESTMapper, error) { return meta.NewDefaultRESTMapper(nil), nil }
		}}
	cs := session(t, c)
	var got chain.ReportList
	res := callTool(t, cs, "list_unhealthy", map[string]any{"allNamespaces": true, "contexts": []string{"a", "b", "nope"}}, &got)
	if res.IsError || len(got.Items) != 2 {
		t.Fatalf("list_unhealthy over a, b and nope: %+v\n%s", got, text(res))
	}
	if r := got.Items[0]; r.Context != "a" || r.Verdict.Cause != "ImageNotFound" {
		t.Errorf("first %+v, want context a's broken Deployment", r)
	}
	if r := got.Items[1]; r.Context != "nope" || r.Error == nil || r.Error.Exit != 6 || !strings.Contains(r.Error.Message, `context "nope" is not in the kubeconfig`) {
		t.Errorf("second %+v, want context nope's error", r)
	}
	// diagnose over contexts: the worst context's report, each context's
	// verdict in the text.
	clients["a"] = fake.NewClientset(inNamespace(fixture(t, "healthy.yaml"), "shop")...)
	clients["b"] = fake.NewClientset(inNamespace(fixture(t, "image-not-found.yaml"), "shop")...)
	var rep chain.Report
	res = callTool(t, cs, "diagnose", map[string]any{"target": "deploy/web", "namespace": "shop", "contexts": []string{"a", "b"}}, &rep)
	if res.IsError || rep.Context != "b" || rep.Verdict.Cause != "ImageNotFound" ||
		!strings.Contains(text(res), "  a: healthy\n  b: broken at containers (ImageNotFound)\nthe worst, b:") {
		t.Errorf("diagnose over a and b: %s %+v\n%s", rep.Context, rep.Verdict, text(res))
	}
	res = callTool(t, cs, "list_unhealthy", map[string]any{"context": "a", "contexts": []string{"b"}}, nil)
	if !res.IsError || !strings.Contains(text(res), "not both") {
		t.Errorf("context and contexts: error %v, %q", res.IsError, text(res))
	}
}

// TestBoundedAnswers: answers an assistant pays for by the token are
// bounded: a listing is paged (limit, cursor) with the broken first and
// the healthy counted unless asked for, one diagnosis carries the
// evidence that decided (detail: full for all of it), and each result
// states its size.
func TestBoundedAnswers(t *testing.T) {
	kubeconfig(t, "default")
	var objs []runtime.Object
	for _, c := range []struct{ fixture, ns string }{{"image-not-found.yaml", "a"}, {"healthy.yaml", "b"}, {"crashloop.yaml", "c"}, {"healthy.yaml", "d"}} {
		objs = append(objs, inNamespace(fixture(t, c.fixture), c.ns)...)
	}
	client := fake.NewClientset(objs...)
	cfg := Config{Version: "test", Now: func() time.Time { return time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC) },
		Connect: func(*genericclioptions.ConfigFlags) (func() (kube.Client, error), func() (meta.RESTMapper, error)) {
			return func() (kube.Client, error) { return client, nil },
				func() (meta.RESTMapper, error) { return meta.NewDefaultRESTMapper(nil), nil }
		}}
	cs := session(t, cfg)
	var p listOut
	res := callTool(t, cs, "list_unhealthy", map[string]any{"allNamespaces": true, "limit": 1}, &p)
	if res.IsError || len(p.Items) != 1 || p.Items[0].Verdict.Health != chain.Broken || p.Total != 4 || p.Unhealthy != 2 || p.Healthy != 2 ||
		p.NextCursor != "1" || p.Size.Bytes == 0 || p.Size.Tokens != (p.Size.Bytes+3)/4 || !strings.Contains(text(res), `cursor "1"`) {
		t.Fatalf("first page: %+v\n%s", p, text(res))
	}
	if l := p.Items[0].Links; len(l) != 1 || l[0].ID != p.Items[0].Verdict.Link {
		t.Errorf("a listing's report holds links %+v; want only the one that decided", l)
	} else if f := l[0].Findings; len(f) == 0 || len(f[0].Evidence) == 0 || f[0].Details != nil {
		t.Errorf("a listing's deciding finding %+v; want its evidence without the details that restate it", f)
	}
	for _, l := range p.Items[0].Links {
		for _, f := range l.Findings {
			if len(f.Objects) > maxEvidence {
				t.Errorf("a listing's finding names %d objects, want at most %d and the others counted", len(f.Objects), maxEvidence)
			}
		}
	}
	if c := p.Items[0].Change; c != nil && c.Kind == chain.ChangeFirstRevision {
		t.Errorf("a listing's report holds %+v: a first revision has nothing to compare", c)
	}
	first := p.Items[0].Namespace
	next := p.NextCursor
	p = listOut{}
	res = callTool(t, cs, "list_unhealthy", map[string]any{"allNamespaces": true, "limit": 1, "cursor": next}, &p)
	if res.IsError || len(p.Items) != 1 || p.Items[0].Namespace == first || p.NextCursor != "" {
		t.Errorf("second page: %+v\n%s", p, text(res))
	}
	p = listOut{}
	res = callTool(t, cs, "list_unhealthy", map[string]any{"allNamespaces": true, "includeHealthy": true}, &p)
	if res.IsError || len(p.Items) != 4 || p.Items[3].Verdict.Health != chain.Healthy || p.Items[0].Verdict.Health == chain.Healthy {
		t.Errorf("with the healthy: %+v", p.Items)
	}
	res = callTool(t, cs, "list_unhealthy", map[string]any{"allNamespaces": true, "cursor": "x"}, nil)
	if !res.IsError || !strings.Contains(text(res), "start without it") {
		t.Errorf("a bad cursor: %v %q", res.IsError, text(res))
	}

	var dec, full chain.Report
	res = callTool(t, cs, "diagnose", map[string]any{"target": "deploy/web", "namespace": "c"}, &dec)
	callTool(t, cs, "diagnose", map[string]any{"target": "deploy/web", "namespace": "c", "detail": "full"}, &full)
	if res.IsError || dec.Verdict != full.Verdict || !strings.Contains(text(res), "size: ") {
		t.Fatalf("decided %+v, full %+v\n%s", dec.Verdict, full.Verdict, text(res))
	}
	evidence := func(r chain.Report) (n int, deciding int) {
		for _, l := range r.Links {
			for j, f := range l.Findings {
				n += len(f.Evidence)
				if l.ID == r.Verdict.Link && j == 0 {
					deciding = len(f.Evidence)
				}
			}
		}
		return n, deciding
	}
	dn, dd := evidence(dec)
	fn, _ := evidence(full)
	if dd == 0 || dd > maxEvidence || dn != dd || fn < dn {
		t.Errorf("decided keeps %d evidence (%d of the deciding finding), full %d; want only the deciding finding's, at most %d", dn, dd, fn, maxEvidence)
	}
	t.Logf("diagnose: decided %s; full %s", sizeOf(dec), sizeOf(full))
	res = callTool(t, cs, "diagnose", map[string]any{"target": "deploy/web", "namespace": "c", "detail": "all"}, nil)
	if !res.IsError || !strings.Contains(text(res), "use decided") {
		t.Errorf("a bad detail: %v %q", res.IsError, text(res))
	}
}

// inNamespace moves a fixture's objects, and what its events are about,
// to namespace ns.
func inNamespace(objs []runtime.Object, ns string) []runtime.Object {
	for _, o := range objs {
		o.(metav1.Object).SetNamespace(ns)
		if e, ok := o.(*corev1.Event); ok {
			e.InvolvedObject.Namespace = ns
		}
	}
	return objs
}

// TestDecidedNamesFewObjects: a bounded answer names at most maxEvidence
// of the objects a finding was seen on and counts the rest, and leaves the
// report it was made from as it was.
func TestDecidedNamesFewObjects(t *testing.T) {
	var pods []string
	for i := range 8 {
		pods = append(pods, fmt.Sprintf("pod/web-6d4b9-%d", i))
	}
	r := &chain.Report{Verdict: chain.Verdict{Link: chain.LinkContainers}, Links: []chain.Link{{ID: chain.LinkContainers,
		Findings: []chain.Finding{{Cause: "CrashLoopBackOff", Objects: pods, Of: 8}}}}}
	f := decided(r).Links[0].Findings[0]
	if len(f.Objects) != maxEvidence || f.MoreObjects != 8-maxEvidence || f.Objects[0] != pods[0] {
		t.Errorf("decided names %v and %d more; want the first %d and %d more", f.Objects, f.MoreObjects, maxEvidence, 8-maxEvidence)
	}
	if got := r.Links[0].Findings[0]; len(got.Objects) != 8 || got.MoreObjects != 0 {
		t.Errorf("the report itself changed: %v, %d more", got.Objects, got.MoreObjects)
	}
}
