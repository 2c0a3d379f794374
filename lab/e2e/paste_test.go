package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/lab/scenarios"
)

// Issue 33's parity: every scenario's objects, as kubectl describe and
// kubectl get print them (the machine's kubectl, against the lab), piped
// to kubectl-chain -f - and walked as text; the link and cause must be
// the capture's for at least goalPasteParity of the scenarios, the
// issue's goal (the differences left are in pasteLacks).
const goalPasteParity = 0.95

// pasteLacks names, for the scenarios whose text cannot give the
// capture's verdict, the fact kubectl's human output does not print. A
// difference not named here fails the test; one named here that agrees
// is reported, to be removed.
var pasteLacks = map[string]string{
	// The Shop's chain is what it owns; describe deployment and describe
	// statefulset print no owner (no Controlled By), so the text does not
	// show what the Shop made: its own conditions judge it.
	"operator-claim-refused": "what the Shop owns: describe deployment and describe statefulset print no owner references, so its owned link is not read",
	// Facts kubectl's human output does not print.
	"sts-rollback-trap":            "the StatefulSet's ControllerRevisions: describe prints no revision history",
	"sts-headless-service-missing": "that no Service of the StatefulSet's serviceName exists: kubectl describe prints nothing for what is absent",
}

// parityRow is one scenario walked from its text.
type parityRow struct {
	test, scenario string
	kind           chain.Kind
	capture, got   verdict
	err            string
}

var (
	parityMu   sync.Mutex
	parityRows []parityRow
)

// describedKinds are what kubectl describe is given for a scenario of
// kind, beside kubectl get pods -o wide: its own objects and those its
// chain reads, as someone asked for "the describe" would paste them.
func describedKinds(kind chain.Kind) string {
	switch kind {
	case chain.KindStatefulSet:
		return "statefulsets,pods,persistentvolumeclaims,services,endpointslices,resourcequotas"
	case chain.KindDaemonSet:
		return "daemonsets,pods,services,nodes"
	case chain.KindJob:
		return "jobs,pods,persistentvolumeclaims,resourcequotas"
	case chain.KindCronJob:
		return "cronjobs,jobs,pods"
	case chain.KindService:
		return "services,endpointslices,deployments,replicasets,pods"
	case chain.KindIngress:
		// IngressClasses are cluster-scoped: describe prints every one.
		return "ingresses,ingressclasses,services,endpointslices,deployments,replicasets,pods"
	case chain.KindDeployment:
		return "deployments,replicasets,pods,persistentvolumeclaims,services,endpointslices,resourcequotas"
	case chain.KindHTTPRoute, chain.KindGRPCRoute, chain.KindTLSRoute:
		// The route's chain is its parent Gateways and their class
		// (kubectl's generic describe of each, as of the route).
		return strings.ToLower(string(kind)) + "s,gateways.gateway.networking.k8s.io,gatewayclasses.gateway.networking.k8s.io,services,replicasets,deployments,pods"
	}
	// Rollouts, an operator's kinds: kubectl's generic describe of the
	// kind, then what they own.
	return strings.ToLower(string(kind)) + "s,services,replicasets,deployments,pods"
}

// describedCustom are the custom kinds described beside a scenario of
// kind, in a kubectl describe of their own (a lab without their CRDs
// answers that it has no such resource type, which is not an error): a
// Deployment's pods may mount the Secret a cert-manager Certificate
// writes, and whoever is asked for the describe of the Deployment pastes
// the Certificate's too.
func describedCustom(kind chain.Kind) []string {
	if kind == chain.KindDeployment {
		return []string{"certificates.cert-manager.io,certificaterequests.cert-manager.io"}
	}
	return nil
}

// gotTables are the kubectl get tables pasted for a scenario of kind:
// its pods, and for a DaemonSet every node (a describe shows the nodes'
// taints, the list that they are all there are).
func gotTables(kind chain.Kind) [][]string {
	if kind == chain.KindDaemonSet {
		return [][]string{{"get", "pods", "-o", "wide"}, {"get", "nodes"}}
	}
	return [][]string{{"get", "pods", "-o", "wide"}}
}

// checkPasted walks the scenario's kubectl describe and kubectl get
// output as a user who has only that text would (kubectl chain -f -) and
// records its verdict beside the capture's. With E2E_PASTES=DIR the text
// of each scenario is kept in DIR/NAME.txt.
func checkPasted(ctx context.Context, t *testing.T, sc scenarios.Scenario, ns string, capture verdict) {
	t.Helper()
	// The text is read again, up to twice, 5 s apart, when it disagrees:
	// on a loaded machine the controllers' and the lab kubelet's events
	// are written tens of seconds late, and the capture, read before,
	// may hold in its conditions' messages what the text shows only in
	// events. A difference of decoding stays a difference.
	var row parityRow
	var stderr string
	agree := false
	for try := 1; ; try++ {
		row, stderr = walkPasted(ctx, t, sc, ns, capture)
		agree = row.got.Link == capture.Link && row.got.Cause == capture.Cause
		if agree && try > 1 {
			t.Logf("walked from kubectl describe and get: agrees at the text's read %d (events written late)", try)
		}
		if agree || try == 3 {
			break
		}
		time.Sleep(5 * time.Second)
	}
	parityMu.Lock()
	parityRows = append(parityRows, row)
	parityMu.Unlock()
	if !agree {
		t.Logf("walked from kubectl describe and get: %s at %s (%s), the capture: %s at %s (%s)%s\nstderr: %s",
			row.got.Health, row.got.Link, row.got.Cause, capture.Health, capture.Link, capture.Cause, errNote(row.err), stderr)
	}
}

// walkPasted reads the scenario's kubectl describe and get text once and
// walks it (kubectl chain -f -): its verdict beside the capture's, and
// what the walk printed on stderr.
func walkPasted(ctx context.Context, t *testing.T, sc scenarios.Scenario, ns string, capture verdict) (parityRow, string) {
	t.Helper()
	var text bytes.Buffer
	commands := append(gotTables(sc.KindOf()), []string{"describe", describedKinds(sc.KindOf())})
	for _, kinds := range describedCustom(sc.KindOf()) {
		commands = append(commands, []string{"describe", kinds})
	}
	for _, args := range commands {
		cmd := exec.CommandContext(ctx, "kubectl", append(args, "-n", ns, "--kubeconfig", kubeconfig)...)
		cmd.Stdout = &text
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil && !strings.Contains(stderr.String(), "the server doesn't have a resource type") && !onlyGone(stderr.String()) {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
	}
	if dir := os.Getenv("E2E_PASTES"); dir != "" {
		// Kept to read a difference again offline: kubectl chain -f FILE.
		if err := os.WriteFile(filepath.Join(dir, sc.Name+".txt"), text.Bytes(), 0o644); err != nil {
			t.Error(err)
		}
	}
	row := parityRow{test: t.Name(), scenario: sc.Name, kind: sc.KindOf(), capture: capture}
	cmd := exec.CommandContext(ctx, chainBin, "-f", "-", sc.Target(), "-o", "json")
	cmd.Stdin = bytes.NewReader(text.Bytes())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	var r struct {
		Verdict verdict `json:"verdict"`
	}
	if jerr := json.Unmarshal(out, &r); jerr != nil {
		row.err = strings.TrimSpace(stderr.String())
	}
	row.got = r.Verdict
	return row, stderr.String()
}

func errNote(s string) string {
	if s == "" {
		return ""
	}
	return "; " + s
}

// checkParity prints how the scenarios walked from text so far agree
// with their captures, kind by kind, with each difference and the fact
// the text lacks, and with goal holds them to it; the differences of
// t's own scenarios must each be named in pasteLacks.
func checkParity(t *testing.T, goal bool) {
	t.Helper()
	parityMu.Lock()
	rows := append([]parityRow(nil), parityRows...)
	parityMu.Unlock()
	if len(rows) == 0 {
		return
	}
	mine := func(r parityRow) bool { return strings.HasPrefix(r.test, t.Name()+"/") }
	sort.Slice(rows, func(i, j int) bool { return rows[i].scenario < rows[j].scenario })
	type tally struct{ n, same int }
	byKind := map[chain.Kind]*tally{}
	var kinds []chain.Kind
	same := 0
	var diffs []string
	for _, r := range rows {
		k := byKind[r.kind]
		if k == nil {
			k = &tally{}
			byKind[r.kind] = k
			kinds = append(kinds, r.kind)
		}
		k.n++
		agree := r.got.Link == r.capture.Link && r.got.Cause == r.capture.Cause
		lacks, listed := pasteLacks[r.scenario]
		switch {
		case agree:
			k.same++
			same++
			if listed && mine(r) {
				t.Logf("%s walks from its text as from its capture in this run: is it still in pasteLacks for a reason?", r.scenario)
			}
		case listed:
			diffs = append(diffs, fmt.Sprintf("  %s: %s at %s (%s), the capture %s (%s): the text lacks %s", r.scenario, r.got.Health, r.got.Link, r.got.Cause, r.capture.Link, r.capture.Cause, lacks))
		case mine(r):
			t.Errorf("%s: from its text %s at %s (%s)%s, from its capture %s at %s (%s); not in pasteLacks",
				r.scenario, r.got.Health, r.got.Link, r.got.Cause, errNote(r.err), r.capture.Health, r.capture.Link, r.capture.Cause)
		}
	}
	sort.Slice(kinds, func(i, j int) bool { return kinds[i] < kinds[j] })
	var b strings.Builder
	fmt.Fprintf(&b, "%-14s %9s %6s\n", "KIND", "SCENARIOS", "SAME")
	for _, k := range kinds {
		fmt.Fprintf(&b, "%-14s %9d %6d\n", k, byKind[k].n, byKind[k].same)
	}
	share := float64(same) / float64(len(rows))
	fmt.Fprintf(&b, "%-14s %9d %6d (%.1f%%)\n", "all", len(rows), same, 100*share)
	t.Logf("scenarios walked from kubectl describe and get, against their captures:\n%s%s", b.String(), strings.Join(diffs, "\n"))
	if goal && share < goalPasteParity {
		t.Errorf("%.1f%% of the scenarios walk from their text as from their capture; the goal is %.0f%%", 100*share, 100*goalPasteParity)
	}
}

// onlyGone says kubectl's errors are all objects that went away between
// its list and its get: GatewayClasses are cluster-scoped, so a describe
// of them lists every scenario's, and another scenario's may be deleted
// meanwhile. What was described is still printed.
func onlyGone(stderr string) bool {
	lines := 0
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if l == "" {
			continue
		}
		if !strings.HasPrefix(l, "Error from server (NotFound): ") {
			return false
		}
		lines++
	}
	return lines > 0
}
