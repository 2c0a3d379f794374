package e2e

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-chain/kubectl-chain/lab/scenarios"
)

// TestAuditReadOnly runs kubectl-chain's commands on the lab (one target,
// --wait, -A, capture, completion, a Service and an HTTPRoute) and reads the API server's audit log
// (`kubectl chain lab logs audit`): every request whose user agent is
// kubectl-chain's, received since the test began, is a get, list or watch,
// never on Secrets, and all three verbs are there. (Other tests' commands
// are not its: TestServe's serve writes Events on purpose.)
func TestAuditReadOnly(t *testing.T) {
	alone(t)
	began := time.Now().Add(-time.Second) // the audit log's clock is the same machine's
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ns := createNamespace(ctx, t, "audit")
	createDeployment(ctx, t, ns, healthyDeployment("web", 1))
	for _, args := range [][]string{
		{"deploy/web", "-n", ns, "--wait", "--timeout", "60s"},
		{"deploy/web", "-n", ns},
		{"-A", "-o", "json"},
		{"capture", "deploy/web", "-n", ns, "--to", filepath.Join(t.TempDir(), "web.yaml")},
		{"__complete", "-n", ns, "deploy/"},
		{"svc/web", "-n", ns},
		{"httproute/web", "-n", ns},
	} {
		// Completion completes the last word: the kubeconfig goes before it.
		full := append([]string{args[0], "--kubeconfig", kubeconfig}, args[1:]...)
		out, err := exec.CommandContext(ctx, chainBin, full...).CombinedOutput()
		// -A judges the whole lab, healthy or not; no Service or route
		// web exists (exit 5), but their reads are made.
		if err != nil && args[0] != "-A" && exitCode(err) != 5 {
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
			Verb       string    `json:"verb"`
			UserAgent  string    `json:"userAgent"`
			RequestURI string    `json:"requestURI"`
			Received   time.Time `json:"requestReceivedTimestamp"`
			ObjectRef  *struct {
				Resource string `json:"resource"`
			} `json:"objectRef"`
		}
		if json.Unmarshal([]byte(line), &ev) != nil || !strings.HasPrefix(ev.UserAgent, "kubectl-chain/") || ev.Received.Before(began) {
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

// TestRBACReadOnly binds what `kubectl chain rbac` prints to a fresh
// ServiceAccount, runs kubectl-chain's commands as it (one target,
// --wait, -l, --all, capture, completion), and checks that each gave its
// full verdict (no link unknown for want of a permission) and, from the
// audit log, that all its requests were get, list or watch.
func TestRBACReadOnly(t *testing.T) {
	alone(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ns := createNamespace(ctx, t, "rbac")
	d := healthyDeployment("web", 1)
	d.Labels = map[string]string{"app": "web"}
	createDeployment(ctx, t, ns, d)
	sa := "chain-ci"
	kc := bindRBAC(ctx, t, ns, sa, 4, "-n", ns)
	for _, args := range [][]string{
		{"deploy/web", "-n", ns, "--wait", "--timeout", "60s", "-o", "json"},
		{"deploy/web", "-n", ns, "-o", "json"},
		{"-l", "app=web", "-n", ns, "-o", "json"},
		{"--all", "-n", ns, "-o", "json"},
		{"capture", "deploy/web", "-n", ns, "--to", filepath.Join(t.TempDir(), "web.yaml")},
	} {
		out, err := exec.CommandContext(ctx, chainBin, append(args, "--kubeconfig", kc)...).CombinedOutput()
		if err != nil {
			t.Errorf("kubectl-chain %v as %s: %v\n%s", args, sa, err, out)
			continue
		}
		if strings.Contains(string(out), `"unknown"`) || strings.Contains(string(out), "forbidden") {
			t.Errorf("kubectl-chain %v as %s lacked a permission:\n%s", args, sa, out)
		}
	}
	// The word to complete comes last.
	if out, err := exec.CommandContext(ctx, chainBin, "__complete", "-n", ns, "--kubeconfig", kc, "deploy/").Output(); err != nil || !strings.Contains(string(out), "deploy/web") {
		t.Errorf("completion as %s: %v\n%s", sa, err, out)
	}
	auditReadsOnly(t, "system:serviceaccount:"+ns+":"+sa)
}

// TestRBACAllNamespaces: what `kubectl chain rbac -A` prints (a ClusterRole
// and its binding) lets a fresh ServiceAccount judge the whole lab with -A
// --all, and follow it with --wait, without one request refused, and all
// of them reads.
func TestRBACAllNamespaces(t *testing.T) {
	alone(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ns := createNamespace(ctx, t, "rbac-all")
	sa := "chain-ci"
	kc := bindRBAC(ctx, t, ns, sa, 2, "-A")
	for _, args := range [][]string{
		{"-A", "--all", "-o", "json"},
		{"-A", "--all", "--wait", "--timeout", "10s", "-o", "json"},
	} {
		out, err := exec.CommandContext(ctx, chainBin, append(args, "--kubeconfig", kc)...).Output()
		var list struct {
			Items []struct{} `json:"items"`
		}
		if code := exitCode(err); code < 0 || code > 3 || json.Unmarshal(out, &list) != nil || len(list.Items) == 0 {
			t.Errorf("kubectl-chain %v as %s: exit %d (%v), %d reports", args, sa, code, err, len(list.Items))
		}
	}
	auditReadsOnly(t, "system:serviceaccount:"+ns+":"+sa)
}

func exitCode(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// bindRBAC creates ServiceAccount ns/sa, applies what `kubectl chain rbac
// --serviceaccount ns:sa SCOPE...` prints (want objects), and returns a
// kubeconfig with the account's token.
func bindRBAC(ctx context.Context, t *testing.T, ns, sa string, want int, scope ...string) string {
	t.Helper()
	if _, err := client.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rbac, err := exec.CommandContext(ctx, chainBin, append([]string{"rbac", "--serviceaccount", ns + ":" + sa}, scope...)...).Output()
	if err != nil {
		t.Fatalf("kubectl chain rbac: %v", err)
	}
	// As kubectl apply -f - would, without needing kubectl.
	docs, err := scenarios.Decode(rbac)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		switch o := d.(type) {
		case *rbacv1.Role:
			_, err = client.RbacV1().Roles(ns).Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.RoleBinding:
			_, err = client.RbacV1().RoleBindings(ns).Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.ClusterRole:
			_, err = client.RbacV1().ClusterRoles().Create(ctx, o, metav1.CreateOptions{})
			t.Cleanup(func() {
				_ = client.RbacV1().ClusterRoles().Delete(context.Background(), o.Name, metav1.DeleteOptions{})
			})
		case *rbacv1.ClusterRoleBinding:
			_, err = client.RbacV1().ClusterRoleBindings().Create(ctx, o, metav1.CreateOptions{})
			t.Cleanup(func() {
				_ = client.RbacV1().ClusterRoleBindings().Delete(context.Background(), o.Name, metav1.DeleteOptions{})
			})
		default:
			t.Fatalf("kubectl chain rbac printed a %T", d)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(docs) != want {
		t.Fatalf("kubectl chain rbac %v printed %d objects, want %d:\n%s", scope, len(docs), want, rbac)
	}
	tok, err := client.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.LoadFromFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, ai := range cfg.AuthInfos {
		*ai = clientcmdapi.AuthInfo{Token: tok.Status.Token}
	}
	kc := filepath.Join(t.TempDir(), "sa.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, kc); err != nil {
		t.Fatal(err)
	}
	return kc
}

// auditReadsOnly checks from the audit log that user made requests, all of
// them reads and none refused.
func auditReadsOnly(t *testing.T, user string) {
	t.Helper()
	log, err := lab("logs", "audit")
	if err != nil {
		t.Fatalf("lab logs audit: %v", err)
	}
	seen := 0
	for _, line := range strings.Split(log, "\n") {
		var ev struct {
			Verb       string `json:"verb"`
			RequestURI string `json:"requestURI"`
			User       struct {
				Username string `json:"username"`
			} `json:"user"`
			ResponseStatus struct {
				Code int `json:"code"`
			} `json:"responseStatus"`
		}
		if json.Unmarshal([]byte(line), &ev) != nil || ev.User.Username != user {
			continue
		}
		seen++
		if ev.Verb != "get" && ev.Verb != "list" && ev.Verb != "watch" {
			t.Errorf("%s %s %s", user, ev.Verb, ev.RequestURI)
		}
		if ev.ResponseStatus.Code == 403 {
			t.Errorf("%s was refused %s %s", user, ev.Verb, ev.RequestURI)
		}
	}
	if seen == 0 {
		t.Errorf("no request of %s in the audit log", user)
	}
	t.Logf("%d requests of %s in the audit log, all reads", seen, user)
}
