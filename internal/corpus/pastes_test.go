package corpus

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/diagnose"
	"github.com/kubectl-chain/kubectl-chain/internal/capture"
)

// The pastes' goals: how many real pastes, from how many threads, and
// what share must get the thread's link and cause. A paste whose text
// lacks what the thread's answer rests on says so (miss:), naming the
// fact; it counts against the thread's figure, which is printed, and is
// left out of the text's, which is held to goalPasteShown: every paste
// whose text shows the cause must give it. A miss that starts with
// "PARSER:" is one the text shows and the reader misses: it counts
// against both.
const (
	minPastes       = 106
	minPasteThreads = 80
	goalPasteLink   = 0.95
	goalPasteShown  = 0.95
)

// TestPastes walks every real paste as `cat FILES | kubectl chain -f -`
// does and prints, per family, how often the link and the cause are the
// thread's (go test -v -run TestPastes ./internal/corpus).
func TestPastes(t *testing.T) {
	pastes, err := LoadPastes(Root)
	if err != nil {
		t.Fatal(err)
	}
	files, threads := 0, map[string]bool{}
	listed := map[string]bool{}
	r, shown := report{}, report{}
	for _, p := range pastes {
		files += len(p.Files)
		threads[p.Source] = true
		for _, f := range p.Files {
			listed[f] = true
		}
		text, err := p.Text(Root)
		if err != nil {
			t.Errorf("%s: %v", p.Name, err)
			continue
		}
		v, err := walkPaste(text)
		if err != nil {
			t.Errorf("%s: %v", p.Name, err)
			continue
		}
		cause := v.Link == p.Want.Link && v.Cause == p.Want.Cause
		link := v.Link == p.Want.Link
		if p.Want.Health == chain.Healthy {
			cause, link = v.Health == chain.Healthy, v.Health == chain.Healthy
		}
		switch {
		case !cause && p.Miss == "":
			t.Errorf("%s (%s): %s at %s, cause %s; the thread says %s, %s%s\n    %s", p.Name, p.Source, v.Health, v.Link, v.Cause, p.Want.Link, p.Want.Cause, p.Want.Health, v.Summary)
		case !cause:
			t.Logf("miss %s (%s): %s at %s, cause %s; the thread says %s, %s%s: %s", p.Name, p.Family, v.Health, v.Link, v.Cause, p.Want.Link, p.Want.Cause, p.Want.Health, p.Miss)
		case p.Miss != "":
			t.Errorf("%s is right now (%s, %s): remove its miss:", p.Name, v.Link, v.Cause)
		}
		r.add(p.Family, cause, link)
		if p.Miss == "" || strings.HasPrefix(p.Miss, "PARSER:") {
			shown.add(p.Family, cause, link)
		}
	}
	t.Logf("real pastes, walked (%d pastes of %d posts from %d threads), against the threads' verdicts:\n%s", files, len(pastes), len(threads), r.table("FAMILY", "CAUSE RIGHT", "LINK RIGHT"))
	t.Logf("those whose text shows the cause (%d; the others' misses name the fact the text lacks):\n%s", shown.total().n, shown.table("FAMILY", "CAUSE RIGHT", "LINK RIGHT"))
	if files < minPastes || len(threads) < minPasteThreads {
		t.Errorf("the pastes are %d from %d threads; at least %d from %d are needed", files, len(threads), minPastes, minPasteThreads)
	}
	all := r.total()
	if got := float64(all.alone) / float64(all.n); got < goalPasteLink {
		t.Errorf("link right for %.1f%% of pastes; the goal is %.0f%%", 100*got, 100*goalPasteLink)
	}
	if s := shown.total(); float64(s.cause) < goalPasteShown*float64(s.n) {
		t.Errorf("cause right for %.1f%% of the pastes whose text shows it; the goal is %.0f%%", pct(s.cause, s.n), 100*goalPasteShown)
	}
	onDisk, _ := filepath.Glob(filepath.Join(Root, "pastes", "*.txt"))
	for _, f := range onDisk {
		if !listed[filepath.Base(f)] {
			t.Errorf("%s is in no entry of pastes/index.yaml", f)
		}
	}
}

// walkPaste reads pasted text as kubectl chain -f - does and walks what
// it holds: its only workload, or the pod it is read from.
func walkPaste(text string) (chain.Verdict, error) {
	b, err := capture.Load(strings.NewReader(text))
	if err != nil {
		return chain.Verdict{}, err
	}
	s, err := b.Read("", chain.Ref{})
	if err != nil {
		return chain.Verdict{}, err
	}
	return diagnose.Walk(s, diagnose.Options{}).Verdict, nil
}

// imageHost finds an image reference's registry host in a line: a first
// path element with a dot (or a port) before the repository, as the image
// reference grammar tells a host from a Docker Hub user.
var imageHost = regexp.MustCompile(`(?:^|[\s"'=(])((?:[a-z0-9-]+\.)+[a-z0-9-]+(?::[0-9]+)?)/[a-z0-9._-]+`)

// TestPastesVerbatim keeps the pastes as their threads show them: no
// registry host but the placeholder.
func TestPastesVerbatim(t *testing.T) {
	onDisk, _ := filepath.Glob(filepath.Join(Root, "pastes", "*.txt"))
	for _, f := range onDisk {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if !strings.Contains(strings.ToLower(line), "image") {
				continue // registry hosts are named where images are
			}
			for _, m := range imageHost.FindAllStringSubmatch(line, -1) {
				if m[1] != "registry.example.com" {
					t.Errorf("%s names registry %s: replace it by registry.example.com\n    %s", f, m[1], line)
				}
			}
		}
	}
}
