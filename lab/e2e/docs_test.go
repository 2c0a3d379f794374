package e2e

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// example is one `$ ` command of a code block of README.md or docs/, with
// the lines the page shows after it.
type example struct {
	page, command string
	shows         []string
}

// docExamples are the `$ ` examples of README.md and docs/*.md, in page
// order, each page's blocks one after the other.
func docExamples(t *testing.T) [][]example {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob(filepath.Join(root, "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append([]string{filepath.Join(root, "..", "README.md")}, pages...)
	var blocks [][]example
	for _, page := range pages {
		f, err := os.Open(page)
		if err != nil {
			t.Fatal(err)
		}
		var block []example
		in := false
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "```"):
				if in && len(block) > 0 {
					blocks = append(blocks, block)
				}
				in, block = !in, nil
			case in && strings.HasPrefix(line, "$ "):
				block = append(block, example{page: filepath.Base(page), command: strings.TrimPrefix(line, "$ ")})
			case in && len(block) > 0:
				block[len(block)-1].shows = append(block[len(block)-1].shows, line)
			}
		}
		f.Close()
	}
	return blocks
}

// What an example shows that the test checks; the rest (times, pod names,
// the other rows of a table) differs from run to run.
var (
	verdictLine  = regexp.MustCompile(`^(BROKEN|PROGRESSING|HEALTHY|UNKNOWN) at ([a-z-]+): .*\(([A-Za-z]+)`)
	progressLine = regexp.MustCompile(`^\[\d+s\] (\S+) (\w+) at `)
	tableHeader  = regexp.MustCompile(`^(NAMESPACE|COMPONENT) +[A-Z]`)
)

// TestDocsExamples runs every `$ ` example of README.md and docs/*.md on
// the lab, as a user types them (bash, with kubectl-chain and
// kubectl-chain-lab on the PATH and the lab's kubeconfig), and checks what
// each shows: a verdict line's health, link and cause, a progress line's
// object and health, a table's columns, `echo $?`'s exit code. A check of
// a kubectl chain command (or of a pipe into one) is retried for up to a
// minute: the examples
// show the state a moment after the commands before them.
func TestDocsExamples(t *testing.T) {
	alone(t)
	blocks := docExamples(t)
	if len(blocks) == 0 {
		t.Fatal("no $ example found in README.md and docs/")
	}
	bin := filepath.Dir(chainBin)
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "KUBECONFIG="+kubeconfig,
		"KUBECTL_CHAIN_LAB_HOME="+filepath.Dir(stateDir))
	if filepath.Base(stateDir) != "lab" {
		t.Fatalf("the lab's state directory %s is not named lab: kubectl chain lab would not find it", stateDir)
	}
	for _, block := range blocks {
		name := block[0].page + ": " + block[0].command
		t.Run(name, func(t *testing.T) {
			if why := notHere(block); why != "" {
				t.Skip(why)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			t.Cleanup(func() { cleanupExamples(block, env) })
			last, checked := -1, 0
			for _, ex := range block {
				checked += checks(ex)
				if ex.command == "echo $?" {
					want, err := strconv.Atoi(strings.TrimSpace(strings.Join(ex.shows, "")))
					if err != nil || last != want {
						t.Errorf("%s: echo $? shows %q; the command before exited %d", ex.page, strings.Join(ex.shows, "\n"), last)
					}
					continue
				}
				deadline := time.Now().Add(time.Minute)
				for {
					out, code := runExample(ctx, ex.command, env)
					last = code
					bad := check(ex, out)
					if bad == "" {
						break
					}
					chained := strings.HasPrefix(ex.command, "kubectl chain ") || strings.Contains(ex.command, "| kubectl chain ")
					if !chained || time.Now().After(deadline) {
						t.Errorf("%s: $ %s (exit %d): %s\n%s", ex.page, ex.command, code, bad, out)
						break
					}
					time.Sleep(2 * time.Second)
				}
			}
			if checked == 0 {
				t.Errorf("%s: the block shows nothing this test checks (a verdict line, a progress line, a table's columns, an exit code)", name)
			}
		})
	}
}

// notHere says why a block is not played on the shared lab, "" when it is.
func notHere(block []example) string {
	for _, ex := range block {
		if strings.Contains(ex.command, "kill -9") {
			return "it kills the lab's scheduler, which every other test uses: TestLabFaults plays the same on a lab of its own and checks lab status's report"
		}
	}
	return ""
}

// runExample runs one command line in bash, returning what it printed
// and its exit code.
func runExample(ctx context.Context, command string, env []string) (string, int) {
	cmd := exec.CommandContext(ctx, "bash", "-o", "pipefail", "-c", command)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		code = -1
	}
	return string(out), code
}

// verdictStart is a verdict line's start, which the renderer may wrap
// onto indented lines before its cause.
var verdictStart = regexp.MustCompile(`^(BROKEN|PROGRESSING|HEALTHY|UNKNOWN) at [a-z-]+: `)

// unwrapped joins a wrapped verdict line with its indented continuation,
// as a page shows the output of a narrow terminal.
func unwrapped(shows []string) []string {
	var out []string
	for i := 0; i < len(shows); i++ {
		line := shows[i]
		for verdictStart.MatchString(line) && !verdictLine.MatchString(line) && i+1 < len(shows) && strings.HasPrefix(shows[i+1], "  ") {
			i++
			line += " " + strings.TrimSpace(shows[i])
		}
		out = append(out, line)
	}
	return out
}

// check says what the output lacks of what the example shows, "" when
// it has it all.
func check(ex example, out string) string {
	for _, line := range unwrapped(ex.shows) {
		if m := verdictLine.FindStringSubmatch(line); m != nil {
			want := fmt.Sprintf("%s at %s: ", m[1], m[2])
			if !strings.Contains(out, want) || !strings.Contains(out, "("+m[3]) {
				return fmt.Sprintf("the page shows %q ... (%s", want, m[3])
			}
		}
		if m := progressLine.FindStringSubmatch(line); m != nil {
			first, _, _ := strings.Cut(out, "\n")
			got := progressLine.FindStringSubmatch(first)
			if got == nil || got[1] != m[1] || got[2] != m[2] {
				return fmt.Sprintf("the page shows a first line %q", line)
			}
		}
		if tableHeader.MatchString(line) {
			if !strings.Contains(squeeze(out), squeeze(line)) {
				return fmt.Sprintf("the page shows the columns %q", line)
			}
		}
	}
	return ""
}

// checks counts the lines of what an example shows that check reads.
func checks(ex example) int {
	if ex.command == "echo $?" {
		return 1
	}
	n := 0
	for _, line := range unwrapped(ex.shows) {
		if verdictLine.MatchString(line) || progressLine.MatchString(line) || tableHeader.MatchString(line) {
			n++
		}
	}
	return n
}

// squeeze makes runs of spaces one, as column widths vary.
func squeeze(s string) string { return regexp.MustCompile(` +`).ReplaceAllString(s, " ") }

// cleanupExamples removes what a block's kubectl create commands made.
func cleanupExamples(block []example, env []string) {
	for _, ex := range block {
		f := strings.Fields(ex.command)
		switch {
		case len(f) >= 4 && f[0] == "kubectl" && f[1] == "create" && f[2] == "namespace":
			runExample(context.Background(), "kubectl delete namespace "+f[3]+" --wait=false", env)
		case len(f) >= 4 && f[0] == "kubectl" && f[1] == "create" && f[2] == "deployment":
			ns := ""
			for i := range f {
				if f[i] == "-n" && i+1 < len(f) {
					ns = " -n " + f[i+1]
				}
			}
			runExample(context.Background(), "kubectl delete deployment "+f[3]+ns+" --wait=false", env)
		case len(f) >= 5 && f[0] == "kubectl" && f[1] == "chain" && f[2] == "lab" && f[3] == "apply":
			runExample(context.Background(), "kubectl chain lab delete "+strings.Join(f[4:], " "), env)
		}
	}
}

// TestReadmeInstallAndRun runs the README's build-install-and-run line as
// a newcomer pastes it, from the checkout: both binaries installed with go
// install into a GOPATH of its own (the module and build caches are the
// machine's, so nothing is downloaded or compiled twice), a lab of its own
// started with kubectl chain lab up in a labs' home of its own, a
// Deployment created there and its rollout followed with --wait. It checks
// the line ends healthy with exit 0, then takes that lab down.
func TestReadmeInstallAndRun(t *testing.T) {
	shared(t)
	line := readmeBlock(t, "## From a checkout: build, install and run")
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	cache := func(name string) string {
		out, err := exec.Command("go", "env", name).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", name, err)
		}
		return strings.TrimSpace(string(out))
	}
	gopath := t.TempDir()
	env := append(os.Environ(), "GOPATH="+gopath, "GOCACHE="+cache("GOCACHE"), "GOMODCACHE="+cache("GOMODCACHE"),
		"KUBECTL_CHAIN_LAB_HOME="+filepath.Dir(readmeDir), "KUBECONFIG=")
	down := func() {
		cmd := exec.Command(filepath.Join(gopath, "bin", "kubectl-chain-lab"), "down")
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("kubectl chain lab down: %v\n%s", err, out)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-o", "pipefail", "-c", line)
	cmd.Dir, cmd.Env = filepath.Dir(root), env
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("the README's line ran in %.0fs", time.Since(start).Seconds())
	if _, statErr := os.Stat(readmeDir); statErr == nil {
		defer down()
	}
	if err != nil {
		t.Fatalf("the README's line: %v\n%s", err, out)
	}
	for _, bin := range []string{"kubectl-chain", "kubectl-chain-lab"} {
		if _, err := os.Stat(filepath.Join(gopath, "bin", bin)); err != nil {
			t.Errorf("go install put no %s in GOPATH/bin: %v", bin, err)
		}
	}
	if !regexp.MustCompile(`(?m)^deployment default/web at .*\n(?:.*\n)?HEALTHY: 3/3 pods ready`).Match(out) {
		t.Errorf("the README's line did not end with deployment/web healthy:\n%s", out)
	}
}

// readmeBlock is the one line of the first sh block after heading in
// README.md.
func readmeBlock(t *testing.T, heading string) string {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no heading %q", heading)
	}
	_, block, ok := strings.Cut(after, "```sh\n")
	if !ok {
		t.Fatalf("README.md has no sh block after %q", heading)
	}
	block, _, _ = strings.Cut(block, "```")
	lines := strings.Split(strings.TrimSpace(block), "\n")
	if len(lines) != 1 {
		t.Fatalf("the block after %q is %d lines; the README promises one line", heading, len(lines))
	}
	return lines[0]
}
