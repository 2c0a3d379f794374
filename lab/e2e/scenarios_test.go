package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/lab/scenarios"
)

// verdict is the part of kubectl-chain's JSON report the scenarios check.
type verdict struct {
	Health chain.Health  `json:"health"`
	Link   chain.LinkID  `json:"link"`
	Cause  chain.CauseID `json:"cause"`
}

// TestScenarios applies every scenario that leaves the rest of the lab alone,
// each in its own namespace and in parallel, and checks that kubectl-chain
// settles on the scenario's expected health, link and cause.
func TestScenarios(t *testing.T) {
	heavyTurn(t, false)
	// After every scenario: how their text walks (issue 33's parity).
	t.Cleanup(func() { checkParity(t, true) })
	for _, sc := range scenarios.All() {
		if sc.Exclusive {
			continue
		}
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			runScenario(t, sc)
		})
	}
}

// TestExclusiveScenarios runs, one at a time and after TestScenarios, the
// scenarios that change the whole lab (node taints), undoing each after.
func TestExclusiveScenarios(t *testing.T) {
	alone(t)
	// Its scenarios' text is judged one by one; the goal is
	// TestScenarios', over every scenario walked by then.
	t.Cleanup(func() { checkParity(t, false) })
	for _, sc := range scenarios.All() {
		if !sc.Exclusive {
			continue
		}
		t.Run(sc.Name, func(t *testing.T) {
			if sc.TaintNodes != nil {
				// Runs after runScenario's cleanup (lab delete), which
				// must have removed the taint; if not, remove it so the
				// tests after this one run on clean nodes.
				taint := *sc.TaintNodes
				t.Cleanup(func() {
					ctx := context.Background()
					nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
					if err != nil {
						t.Fatal(err)
					}
					for _, n := range nodes.Items {
						for _, have := range n.Spec.Taints {
							if have.Key == taint.Key {
								t.Errorf("lab delete left the taint %s on %s", taint.Key, n.Name)
							}
						}
					}
					if t.Failed() {
						_ = scenarios.UntaintNodes(ctx, client, taint)
					}
				})
			}
			runScenario(t, sc)
		})
	}
}

// runScenario applies sc in namespace sc-NAME, polls kubectl-chain until the
// verdict matches or the scenario's deadline passes, and checks it.
func runScenario(t *testing.T, sc scenarios.Scenario) {
	// The verdict's deadline, then the settle, the capture and the pod
	// target's walks: on a busy machine those take tens of seconds too.
	ctx, cancel := context.WithTimeout(context.Background(), sc.Deadline+settle+90*time.Second)
	defer cancel()
	ns := "sc-" + sc.Name
	t.Cleanup(func() {
		// As a user would: the lab binary's delete, which also removes the
		// scenario's cluster-scoped objects and node taints.
		if out, err := lab("delete", sc.Name, "-n", ns); err != nil {
			t.Errorf("lab delete %s: %v\n%s", sc.Name, err, out)
		}
		if left := clusterScopedLeft(context.Background(), t, ns); len(left) > 0 {
			t.Errorf("Delete left cluster-scoped objects of the scenario: %v", left)
		}
	})
	start := time.Now()
	if err := scenarios.Apply(ctx, client, sc, ns); err != nil {
		t.Fatal(err)
	}
	if sc.Later > 0 {
		faultBeforeItHeals(ctx, t, sc, ns, start)
	}
	want := verdict{Health: sc.Health, Link: sc.Link, Cause: sc.Cause}
	deadline := start.Add(sc.Deadline)
	var got verdict
	var out []byte
	var code int
	for {
		time.Sleep(time.Second)
		var err error
		got, out, code, err = diagnose(ctx, sc.Target(), "-n", ns)
		if err != nil {
			t.Fatal(err)
		}
		if got == want || time.Now().After(deadline) {
			break
		}
	}
	t.Logf("verdict after %v: %s %s %s (exit %d)", time.Since(start).Round(100*time.Millisecond), got.Health, got.Link, got.Cause, code)
	if got != want {
		t.Errorf("verdict = %+v, want %+v\n%s\n%s", got, want, out, captured(ctx, ns))
	}
	if sc.Health == chain.Healthy && code != 0 {
		t.Errorf("exit code %d for a healthy rollout, want 0", code)
	}
	if t.Failed() {
		return
	}
	// Stay a while: back-offs repeat (ImagePullBackOff, CrashLoopBackOff),
	// the verdict must hold through them, and their events must read like
	// a real kubelet's too.
	time.Sleep(time.Until(start.Add(settle)))
	again, out, _, err := diagnose(ctx, sc.Target(), "-n", ns)
	if err != nil {
		t.Fatal(err)
	}
	if again != want {
		t.Errorf("verdict changed after %v: %+v, want %+v\n%s\n%s", settle, again, want, out, captured(ctx, ns))
	}
	checkChange(t, sc, out)
	checkKubeletEvents(ctx, t, ns)
	checkPasted(ctx, t, sc, ns, checkCapture(ctx, t, sc, ns, want))
	if sc.KindOf() == chain.KindCronJob || chain.IsTraffic(sc.KindOf()) || chain.IsResource(sc.KindOf()) {
		// A CronJob's pods are its Jobs': pod/NAME walks their Job. A
		// pod names its workload, not what sends it traffic, nor the
		// custom resource that owns the workload.
		return
	}
	checkPodTarget(ctx, t, ns, want)
}

// checkPodTarget names one of the scenario's pods, as a user who has only
// `kubectl get pods` in hand would, and expects its workload's verdict,
// the report saying which pod was named. Scenarios whose pods are never
// created have none to name.
func checkPodTarget(ctx context.Context, t *testing.T, ns string, want verdict) {
	t.Helper()
	pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The workload's pods are named after it; others (an analysis Job's)
	// belong to other chains.
	name := ""
	for _, p := range pods.Items {
		if p.Name == scenarios.Deployment || strings.HasPrefix(p.Name, scenarios.Deployment+"-") {
			name = p.Name
			break
		}
	}
	if name == "" {
		return
	}
	got, out, _, err := diagnose(ctx, "pod/"+name, "-n", ns)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Via string `json:"via"`
	}
	_ = json.Unmarshal(out, &r)
	if got != want || r.Via != "pod/"+name {
		t.Errorf("kubectl chain pod/%s: verdict %+v via %q, want %+v via pod/%s\n%s", name, got, r.Via, want, name, out)
	}
}

// settle is how long each scenario is watched after apply: long enough for
// a second image pull, the first image back-off and two crash-loop
// back-offs, and inside the 20 s back-off after the third exit (a container
// that exits after 1 s restarts at about 1, 12 and 33 s). While a
// crash-looping init container runs again between back-offs the walk says
// "progressing ContainersCreating: init container is running" for that
// second, which a check at 33-35 s would catch (reported to the lead).
const settle = 30 * time.Second

// diagnose runs kubectl-chain -o json with args and returns its verdict.
func diagnose(ctx context.Context, args ...string) (verdict, []byte, int, error) {
	return diagnoseAt(ctx, kubeconfig, args...)
}

// diagnoseAt runs kubectl-chain -o json with args on the lab of kc.
func diagnoseAt(ctx context.Context, kc string, args ...string) (verdict, []byte, int, error) {
	cmd := exec.CommandContext(ctx, chainBin, append(args, "-o", "json", "--kubeconfig", kc)...)
	out, err := cmd.Output()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		return verdict{}, out, 0, err
	}
	var r struct {
		Verdict verdict `json:"verdict"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		stderr := ""
		if ee != nil {
			stderr = fmt.Sprintf(" (%v; stderr: %s)", ee, ee.Stderr)
		}
		return verdict{}, out, code, errors.New("decoding kubectl-chain's report: " + err.Error() + stderr + "\n" + string(out))
	}
	return r.Verdict, out, code, nil
}

// captured is the namespace's pods and events, for a failed scenario.
func captured(ctx context.Context, ns string) string {
	out, _ := exec.CommandContext(ctx, "kubectl", "--kubeconfig", kubeconfig, "-n", ns, "get", "deploy,rs,pods,events", "-o", "yaml").CombinedOutput()
	return string(out)
}

// clusterScopedLeft lists the admission objects named for namespace ns
// (scenarios.ClusterScopedName) that still exist.
func clusterScopedLeft(ctx context.Context, t *testing.T, ns string) []string {
	t.Helper()
	var left []string
	keep := func(kind, name string) {
		if strings.HasPrefix(name, scenarios.ClusterScopedName(ns, "")) {
			left = append(left, kind+"/"+name)
		}
	}
	ar := client.AdmissionregistrationV1()
	webhooks, err := ar.ValidatingWebhookConfigurations().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range webhooks.Items {
		keep("validatingwebhookconfiguration", o.Name)
	}
	policies, err := ar.ValidatingAdmissionPolicies().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range policies.Items {
		keep("validatingadmissionpolicy", o.Name)
	}
	bindings, err := ar.ValidatingAdmissionPolicyBindings().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range bindings.Items {
		keep("validatingadmissionpolicybinding", o.Name)
	}
	classes, err := client.NetworkingV1().IngressClasses().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range classes.Items {
		keep("ingressclass", o.Name)
	}
	raw, err := client.Discovery().RESTClient().Get().AbsPath("/apis/gateway.networking.k8s.io/v1/gatewayclasses").DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Items []struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
		} `json:"items"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	for _, o := range list.Items {
		keep("gatewayclass", o.Metadata.Name)
	}
	return left
}

// faultBeforeItHeals plays a healing scenario's first part: once the
// verdict is its terminal twin's (the fault as it is), and not terminal, so
// that a --wait would still be waiting, the later step is started, Later
// on; the fault is never healed before it was seen.
func faultBeforeItHeals(ctx context.Context, t *testing.T, sc scenarios.Scenario, ns string, start time.Time) {
	t.Helper()
	twin, err := scenarios.Get(sc.Heals)
	if err != nil {
		t.Fatal(err)
	}
	want := verdict{Health: twin.Health, Link: twin.Link, Cause: twin.Cause}
	var got verdict
	var out []byte
	for time.Since(start) < sc.Deadline {
		if got, out, _, err = diagnose(ctx, sc.Target(), "-n", ns); err != nil {
			t.Fatal(err)
		}
		if got == want {
			break
		}
		time.Sleep(time.Second)
	}
	var r struct {
		Verdict struct {
			Terminal bool `json:"terminal"`
		} `json:"verdict"`
	}
	_ = json.Unmarshal(out, &r)
	t.Logf("the fault, %v after apply: %s %s %s (terminal %v)", time.Since(start).Round(time.Second), got.Health, got.Link, got.Cause, r.Verdict.Terminal)
	if got != want || r.Verdict.Terminal {
		t.Errorf("before the fault heals: %+v (terminal %v), want %s's %+v, not terminal\n%s", got, r.Verdict.Terminal, twin.Name, want, out)
	}
	later := make(chan error, 1)
	go func() { later <- scenarios.ApplyLater(ctx, client, sc, ns, scenarios.Options{}) }()
	t.Cleanup(func() {
		if err := <-later; err != nil {
			t.Errorf("later step: %v", err)
		}
	})
}
