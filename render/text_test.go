package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kubectl-chain/kubectl-chain/chain"
)

func TestTextGolden(t *testing.T) {
	for _, tc := range reports {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Text(&b, tc.report(), Options{}); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tc.name+".txt", b.String())
		})
	}
}

func TestTextColorGolden(t *testing.T) {
	var b bytes.Buffer
	if err := Text(&b, brokenContainersReport(), Options{Color: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\x1b[") {
		t.Error("Color=true output has no escape codes")
	}
	checkGolden(t, "broken-containers.color.txt", b.String())
}

func TestTextNarrowGolden(t *testing.T) {
	var b bytes.Buffer
	if err := Text(&b, quotaReport(), Options{Width: 60}); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "broken-pods-quota.width60.txt", b.String())
}

// TestTextNoColorHasNoEscape holds for every report, and for messages that
// themselves carry escape sequences.
func TestTextNoColorHasNoEscape(t *testing.T) {
	hostile := notFoundReport()
	hostile.Links[0].Findings[0].Evidence[0].Message = "\x1b[2J\x1b]0;pwned\x07 deployments.apps \"web\" not found\r"
	all := []*chain.Report{hostile}
	for _, tc := range reports {
		all = append(all, tc.report())
	}
	for _, r := range all {
		var b bytes.Buffer
		if err := Text(&b, r, Options{Color: false}); err != nil {
			t.Fatal(err)
		}
		if i := strings.IndexByte(b.String(), 0x1b); i >= 0 {
			t.Errorf("%s/%s: ESC at byte %d in Color=false output:\n%s", r.Namespace, r.Name, i, b.String())
		}
	}
}

// TestTextAfterBrokenNotReached: a link the walk did not reach says so, and
// keeps its notes.
func TestTextAfterBrokenNotReached(t *testing.T) {
	r := &chain.Report{
		Namespace: "prod", Name: "web",
		Verdict: chain.Verdict{Health: chain.Broken, Link: chain.LinkPods, Summary: "0/3 pods created"},
		Links: []chain.Link{
			{ID: chain.LinkPods, Status: chain.StatusBroken, Summary: "0/3 pods created"},
			{ID: chain.LinkNodeAssignment, Status: chain.StatusNotReached,
				Notes: []string{"nothing to schedule"}},
		},
	}
	var b bytes.Buffer
	if err := Text(&b, r, Options{}); err != nil {
		t.Fatal(err)
	}
	want := `deployment prod/web
BROKEN at pods: 0/3 pods created

  ✗ pods             0/3 pods created
  · node-assignment  not reached
      note: nothing to schedule
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestTextNilReport(t *testing.T) {
	if err := Text(&bytes.Buffer{}, nil, Options{}); err == nil {
		t.Error("Text(nil) returned no error")
	}
}

func TestObjectsText(t *testing.T) {
	tests := []struct {
		objects []string
		of      int
		want    string
	}{
		{nil, 3, ""},
		{[]string{"pod/a"}, 1, "1/1 pod: a"},
		{[]string{"pod/a"}, 3, "1/3 pods: a"},
		{[]string{"pod/a", "pod/b", "pod/c"}, 3, "3/3 pods: a, b, c"},
		{[]string{"pod/a", "pod/b", "pod/c", "pod/d", "pod/e"}, 5, "5/5 pods: a, b, c +2 more"},
		{[]string{"replicaset/web-1"}, 0, "1 replicaset: web-1"},
		{[]string{"pod/a", "replicaset/b"}, 0, "2 objects: pod/a, replicaset/b"},
		{[]string{"ingress/a", "ingress/b"}, 0, "2 ingresses: a, b"},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, objectsText(tc.objects, tc.of)); diff != "" {
			t.Errorf("objectsText(%q, %d) (-want +got):\n%s", tc.objects, tc.of, diff)
		}
	}
}

// TestFleetRows: reports of several contexts are told apart by their
// context everywhere a workload is named: a CONTEXT column leads the
// table, the header and a CI name say "in context X", and a context not
// judged at all is named by its context with its exit code.
func TestFleetRows(t *testing.T) {
	l := chain.NewReportList([]chain.Report{
		{Context: "staging", Kind: chain.KindDeployment, Namespace: "shop", Name: "web", Verdict: chain.Verdict{Health: chain.Healthy, Summary: "3/3 pods ready"}},
		{Context: "prod", Verdict: chain.Verdict{Health: chain.Unknown, Summary: "the connection to the server was refused"},
			Error: &chain.RunError{Exit: 6, Message: "the connection to the server was refused"}},
	}, 0)
	var b strings.Builder
	if err := Summary(&b, l, Options{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "CONTEXT  NAMESPACE") || !strings.HasPrefix(lines[1], "staging  shop") ||
		!strings.Contains(lines[2], "prod") || !strings.Contains(lines[2], "exit 6") {
		t.Errorf("table:\n%s", b.String())
	}
	if got := titled(&l.Items[0]); got != "deployment shop/web in context staging" {
		t.Errorf("titled %q", got)
	}
	if got := titled(&l.Items[1]); got != "context prod" {
		t.Errorf("titled %q", got)
	}
}
