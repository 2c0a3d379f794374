package e2e

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAuditReadOnly runs kubectl-chain's commands on the lab (one target,
// --wait, -A, capture, completion) and reads the API server's audit log
// (`kubectl chain lab logs audit`): every request whose user agent is
// kubectl-chain's is a get, list or watch, never on Secrets, and all three
// verbs are there.
func TestAuditReadOnly(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ns := createNamespace(ctx, t, "audit")
	createDeployment(ctx, t, ns, healthyDeployment("web", 1))
	for _, args := range [][]string{
		{"deploy/web", "-n", ns, "--wait", "--timeout", "60s"},
		{"deploy/web", "-n", ns},
		{"-A", "-o", "json"},
		{"capture", "deploy/web", "-n", ns, "--to", filepath.Join(t.TempDir(), "web.yaml")},
		{"__complete", "deploy/"},
	} {
		out, err := exec.CommandContext(ctx, chainBin, append(args, "--kubeconfig", kubeconfig)...).CombinedOutput()
		if err != nil && args[0] != "-A" { // -A judges the whole lab, healthy or not
			t.Fatalf("kubectl-chain %v: %v\n%s", args, err, out)
		}
	}
	log, err := lab("logs", "audit")
	if err != nil {
		t.Fatalf("lab logs audit: %v\n%s", err, log)
	}
	verbs := map[string]int{}
	for _, line := range strings.Split(log, "\n") {
		var ev struct {
			Verb       string `json:"verb"`
			UserAgent  string `json:"userAgent"`
			RequestURI string `json:"requestURI"`
			ObjectRef  *struct {
				Resource string `json:"resource"`
			} `json:"objectRef"`
		}
		if json.Unmarshal([]byte(line), &ev) != nil || !strings.HasPrefix(ev.UserAgent, "kubectl-chain/") {
			continue
		}
		verbs[ev.Verb]++
		if ev.Verb != "get" && ev.Verb != "list" && ev.Verb != "watch" {
			t.Errorf("kubectl-chain %s %s", ev.Verb, ev.RequestURI)
		}
		if ev.ObjectRef != nil && ev.ObjectRef.Resource == "secrets" {
			t.Errorf("kubectl-chain read a Secret: %s", ev.RequestURI)
		}
	}
	t.Logf("kubectl-chain's requests in the audit log, by verb: %v", verbs)
	for _, v := range []string{"get", "list", "watch"} {
		if verbs[v] == 0 {
			t.Errorf("no %s of kubectl-chain in the audit log (%v): is the log written?", v, verbs)
		}
	}
}
