package render

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

func liveReport() *chain.Report {
	r := &chain.Report{Namespace: "shop", Name: "web",
		Verdict: chain.Verdict{Health: chain.Progressing, Link: chain.LinkContainers, Cause: "ImagePulling",
			Summary: "3/3 pods: pulling image \"registry.lab.internal/web:v2\"\x1b[2J"}}
	for _, id := range chain.Links {
		r.Links = append(r.Links, chain.Link{ID: id, Status: chain.StatusOK, Summary: "fine"})
	}
	r.Links[4].Status, r.Links[5].Status, r.Links[5].Summary = chain.StatusProgressing, chain.StatusNotReached, ""
	r.Links[6].Status, r.Links[6].Summary = chain.StatusNotReached, ""
	return r
}

func TestProgress(t *testing.T) {
	got := Progress(liveReport(), 75*time.Second)
	want := `[1m15s] shop/web progressing at containers: 3/3 pods: pulling image "registry.lab.internal/web:v2"^[[2J (ImagePulling)`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestLiveRedraws: each frame erases the previous one (cursor up by its line
// count, clear to end), rows never exceed the width, and Clear leaves nothing.
func TestLiveRedraws(t *testing.T) {
	var b bytes.Buffer
	l := NewLive(&b, Options{Width: 40})
	if err := l.Draw(liveReport(), time.Second); err != nil {
		t.Fatal(err)
	}
	first := b.String()
	if strings.Contains(first, "\x1b[") {
		t.Errorf("first frame moves the cursor or has color without Color: %q", first)
	}
	lines := strings.Split(strings.TrimSuffix(first, "\n"), "\n")
	if len(lines) != 8 {
		t.Errorf("frame has %d lines, want 8:\n%s", len(lines), first)
	}
	for _, line := range lines {
		if n := len([]rune(line)); n > 40 {
			t.Errorf("line of %d cells wider than 40: %q", n, line)
		}
	}
	b.Reset()
	if err := l.Draw(liveReport(), 2*time.Second); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "\x1b[8A\x1b[J") {
		t.Errorf("second frame does not erase the first: %q", b.String())
	}
	b.Reset()
	l.Clear()
	if b.String() != "\x1b[8A\x1b[J" {
		t.Errorf("Clear wrote %q", b.String())
	}
}
