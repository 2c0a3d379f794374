package e2e

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/lab/scenarios"
	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

// TestWaitThroughAPIServerRestart kills the API server of a lab of its own
// (the shared lab's tests must not lose theirs) under a --wait, twice:
//   - the supervisor, held 10 s, then restarts it: the wait says on stderr that
//     it lost the connection and that the server answers again, resumes its
//     watches, and ends healthy (exit 0) once the pods turn ready; the audit
//     log shows the requests it made after the restart (no re-list storm:
//     a few watches and at most one snapshot's reads);
//   - the supervisor is held, so the server stays away past the timeout: the
//     wait exits 6 saying since when the server has not answered.
//
// Meanwhile this lab and the package's are a fleet of two (fleet_test.go):
// judged at once while both are up, and with this one down.
func TestWaitThroughAPIServerRestart(t *testing.T) {
	heavyTurn(t, false) // its fleet phase uses the shared lab too
	begin := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	layout := state.Layout{Dir: restartDir}
	t.Cleanup(func() { _, _ = labAt(restartDir, "down") })
	if out, err := labAt(restartDir, "up", "--nodes", "1"); err != nil {
		t.Fatalf("up: %v\n%s", err, out)
	}
	c := labClient(t, layout)
	// This lab and the package's are a fleet of two meanwhile.
	fleet := fleetKubeconfig(t, map[string]string{"main": kubeconfig, "second": layout.Kubeconfig()})
	fleetUp(ctx, t, fleet, c)
	fleetAlerts(ctx, t, layout.Kubeconfig(), c)
	sc, err := scenarios.Get("ready-after-delay")
	if err != nil {
		t.Fatal(err)
	}

	// Healing: killed 10 s into the wait, restarted by the supervisor.
	if err := scenarios.Apply(ctx, c, sc, "restart-heals"); err != nil {
		t.Fatal(err)
	}
	audit := layout.Log(state.Audit)
	wait := startWait(ctx, t, layout.Kubeconfig(), "restart-heals", sc.Target(), 150*time.Second)
	time.Sleep(10 * time.Second)
	// The supervisor restarts a killed API server within a second; held
	// for 10 s, connections are refused for about that long, as when a
	// control plane node restarts.
	sup := labPid(t, layout, state.Supervisor)
	if err := syscall.Kill(sup, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	killComponent(t, layout, state.APIServer)
	killedAt := time.Now()
	time.Sleep(10 * time.Second)
	if err := syscall.Kill(sup, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	waitRestart(ctx, t, layout, state.APIServer, 1)
	back := time.Now()
	r := wait.result(t)
	t.Logf("healing: the API server was back %v after the kill; the wait ended after %v", time.Since(killedAt).Round(time.Second), r.took.Round(time.Second))
	expectWait(t, r, verdict{Health: chain.Healthy}, 0, false)
	for _, want := range []string{"lost the connection to the API server at ", "the API server answers again, after "} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	// No re-list storm: in as long a time after the return as the wait ran
	// before the kill, it asks at most half again what it did before it,
	// plus one snapshot (the re-read after an outage), and reopens each
	// watch at most twice (from where it left off; from the start when the
	// new server's cache cannot resume it). The half is the pods' own
	// changes as they heal, which a busy machine spreads into the window
	// after the return (66 reads against 54 before, twice, on a cold CI
	// beside other builds); a storm re-lists many times over.
	pre := auditWindow(t, audit, "restart-heals", wait.start, killedAt)
	post := auditWindow(t, audit, "restart-heals", back, back.Add(killedAt.Sub(wait.start)))
	t.Logf("kubectl-chain's requests in %v before the kill: %v; as long after the return: %v", killedAt.Sub(wait.start).Round(time.Second), pre, post)
	if reads, before := post["get"]+post["list"], pre["get"]+pre["list"]; reads > before+before/2+6 {
		t.Errorf("%d gets and lists after the return, %d before: more than half again and one snapshot more, a re-list storm", reads, before)
	}
	if post["watch"] > 2*pre["watch"] {
		t.Errorf("%d watches after the return, %d before: each is reopened at most twice", post["watch"], pre["watch"])
	}

	// Terminal: the supervisor is held, the server stays away past the
	// timeout.
	if err := scenarios.Apply(ctx, c, sc, "restart-stays-down"); err != nil {
		t.Fatal(err)
	}
	wait = startWait(ctx, t, layout.Kubeconfig(), "restart-stays-down", sc.Target(), 25*time.Second)
	time.Sleep(5 * time.Second)
	if err := syscall.Kill(sup, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	killComponent(t, layout, state.APIServer)
	r = wait.result(t)
	if err := syscall.Kill(sup, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if r.code != 6 || !strings.Contains(r.stderr, "the API server has not answered since ") || !strings.Contains(r.stderr, "timed out after 25s") {
		t.Errorf("a wait whose API server stays away: exit %d, want 6 naming the outage:\n%s", r.code, r)
	}
	if r.stdout != "" {
		t.Errorf("a wait with no verdict printed a report:\n%s", r.stdout)
	}
	if out, err := labAt(restartDir, "down"); err != nil {
		t.Fatalf("down: %v\n%s", err, out)
	}
	fleetDown(ctx, t, fleet)
	t.Logf("TestWaitThroughAPIServerRestart took %v", time.Since(begin).Round(time.Second))
}

// auditWindow counts kubectl-chain's requests about namespace ns received
// in [from, to), by verb.
func auditWindow(t *testing.T, path, ns string, from, to time.Time) map[string]int {
	t.Helper()
	return countAudit(t, path, 0, func(ev auditEvent) bool {
		return strings.HasPrefix(ev.UserAgent, "kubectl-chain/") && strings.Contains(ev.RequestURI, "/namespaces/"+ns+"/") &&
			!ev.Received.Before(from) && ev.Received.Before(to)
	})
}
