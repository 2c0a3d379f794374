// Package kind runs the lab on its kind engine, end to end, where Docker
// runs and kind's node image is present (kind would otherwise pull it, and
// tests here reach no registry); elsewhere it skips and says why.
package kind

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/lab/kindlab"
	"github.com/kubectl-chain/kubectl-chain/lab/scenarios"
)

func TestKindEngine(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	if err := kindlab.CheckDocker(ctx, kindlab.Exec); err != nil {
		t.Skipf("no usable Docker engine, so no kind cluster: %v", err)
	}
	if out, err := exec.CommandContext(ctx, "docker", "image", "inspect", kindlab.DefaultNodeImage).CombinedOutput(); err != nil {
		t.Skipf("kind's node image %s is not present (docker image inspect: %s); pull it to run this test", kindlab.DefaultNodeImage, strings.TrimSpace(string(out)))
	}
	tmp := t.TempDir()
	labBin, chainBin := filepath.Join(tmp, "kubectl-chain-lab"), filepath.Join(tmp, "kubectl-chain")
	// The lab builds in its module, the plugin in its own (the checkout's root).
	for out, pkg := range map[string][2]string{labBin: {"../..", "./cmd/kubectl-chain-lab"}, chainBin: {"../../..", "./cmd/kubectl-chain"}} {
		if b, err := exec.CommandContext(ctx, "go", "build", "-C", pkg[0], "-o", out, pkg[1]).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, b)
		}
	}
	stateDir := filepath.Join(tmp, "lab")
	lab := func(args ...string) (string, error) {
		var b bytes.Buffer
		cmd := exec.CommandContext(ctx, labBin, append(args, "--name", "e2e", "--state-dir", stateDir)...)
		cmd.Stdout, cmd.Stderr = &b, &b
		err := cmd.Run()
		return b.String(), err
	}
	t.Cleanup(func() {
		if out, err := lab("down"); err != nil {
			t.Errorf("down: %v\n%s", err, out)
		}
	})
	if out, err := lab("up", "--engine", "kind", "--nodes", "3", "--timeout", "5m"); err != nil {
		t.Fatalf("up --engine kind: %v\n%s", err, out)
	}
	if out, err := lab("status"); err != nil || !strings.Contains(out, "running") {
		t.Errorf("status: %v\n%s", err, out)
	}
	kc, err := lab("kubeconfig")
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := strings.TrimSpace(kc)
	// Every scenario the kind engine takes: those in their own namespace
	// side by side, then those that change the whole cluster one at a
	// time; each is removed with `lab delete` once checked.
	var shared, exclusive []scenarios.Scenario
	for _, sc := range scenarios.All() {
		switch {
		case sc.LabOnly != "":
		case sc.Exclusive:
			exclusive = append(exclusive, sc)
		default:
			shared = append(shared, sc)
		}
	}
	check := func(batch []scenarios.Scenario) {
		var applied []scenarios.Scenario
		for _, sc := range batch {
			if out, err := lab("apply", sc.Name); err != nil {
				t.Errorf("apply %s: %v\n%s", sc.Name, err, out)
				continue
			}
			applied = append(applied, sc)
		}
		for _, sc := range applied {
			want := chain.Verdict{Health: sc.Health, Link: sc.Link, Cause: sc.Cause}
			// A real node pulls and starts for real: more time than the
			// scenario's deadline on the simulated kubelet.
			got := waitVerdict(ctx, t, chainBin, kubeconfig, sc.Name, want, max(sc.Deadline, 3*time.Minute))
			if got != want {
				t.Errorf("%s on kind: verdict %+v, want %+v", sc.Name, got, want)
			}
			if out, err := lab("delete", sc.Name); err != nil {
				t.Errorf("delete %s: %v\n%s", sc.Name, err, out)
			}
		}
	}
	check(shared)
	for _, sc := range exclusive {
		check([]scenarios.Scenario{sc})
	}
	out, err := lab("apply", "crashloop")
	if err == nil || !strings.Contains(out, "reproduces only on the simulated kubelet") {
		t.Errorf("apply crashloop on kind: err %v, want a refusal with the reason\n%s", err, out)
	}
}

// waitVerdict polls kubectl-chain on the scenario's Deployment until the
// verdict is want or d has passed.
func waitVerdict(ctx context.Context, t *testing.T, chainBin, kubeconfig, ns string, want chain.Verdict, d time.Duration) chain.Verdict {
	t.Helper()
	deadline := time.Now().Add(d)
	var got chain.Verdict
	for {
		out, err := exec.CommandContext(ctx, chainBin, "deploy/"+scenarios.Deployment, "-n", ns, "-o", "json", "--kubeconfig", kubeconfig).Output()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("kubectl-chain: %v", err)
		}
		var r struct {
			Verdict chain.Verdict `json:"verdict"`
		}
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("decoding kubectl-chain's report: %v\n%s", err, out)
		}
		got = chain.Verdict{Health: r.Verdict.Health, Link: r.Verdict.Link, Cause: r.Verdict.Cause}
		if got == want || time.Now().After(deadline) {
			return got
		}
		time.Sleep(2 * time.Second)
	}
}
