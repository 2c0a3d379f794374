package serve

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAlertRules runs Prometheus' own rule tester (promtool test rules,
// from Debian's prometheus package, which .ci/run installs) on the rules
// serve rules prints, over a fleet's series (testdata/alerts): a broken
// workload fires after its grace with its cluster, link and cause, a
// healed one does not; a watcher not scraped and one not judging fire;
// a rollout progressing too long fires. In CI a missing promtool fails.
func TestAlertRules(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("KUBECTL_CHAIN_CI") != "" {
			t.Fatal("promtool is not installed: .ci/run installs Debian's prometheus package")
		}
		t.Skip("promtool is not installed (apt-get install prometheus): the alert rules are not tested here")
	}
	dir := t.TempDir()
	rules, err := Rules(DefaultRuleOptions, "test")
	if err != nil {
		t.Fatal(err)
	}
	tests, err := os.ReadFile(filepath.Join("..", "..", "testdata", "alerts", "rules_test.yml"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"rules.yml": rules, "rules_test.yml": tests} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"check", "rules", "rules.yml"}, {"test", "rules", "rules_test.yml"}} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "SUCCESS") {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// TestPromDuration: the rules' durations are spelled as Prometheus reads
// them.
func TestPromDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{5 * time.Minute: "5m", time.Hour: "1h", 90 * time.Second: "90s", 1500 * time.Millisecond: "1500ms"} {
		if got := promDuration(d); got != want {
			t.Errorf("%v: %q, want %q", d, got, want)
		}
	}
}
