package lab

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

func noDocker(context.Context, string, ...string) ([]byte, error) {
	return []byte("\nCannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n"), errors.New("exit status 1")
}

func TestParseEngine(t *testing.T) {
	for in, want := range map[string]string{"": "", "lab": "", "kind": EngineKind} {
		if got, err := ParseEngine(in); err != nil || got != want {
			t.Errorf("ParseEngine(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseEngine("Kind"); err == nil || !strings.Contains(err.Error(), "choose lab") {
		t.Errorf("ParseEngine(Kind) error = %v", err)
	}
}

// A kind lab whose Docker engine is gone keeps its state on down (it still
// names the cluster to delete) and says why in status; nothing is lost.
func TestKindLabWithoutDocker(t *testing.T) {
	l := testLab(t)
	if err := os.MkdirAll(l.Layout.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	spec := state.Spec{Name: "lab", Engine: EngineKind, KindCluster: "chain-lab-lab", Nodes: state.NodeShape{Count: 2}}
	if err := state.WriteSpec(l.Layout, spec); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err := l.Down(&out, noDocker)
	if err == nil || !strings.Contains(err.Error(), `cannot delete kind cluster "chain-lab-lab"`) || !strings.Contains(err.Error(), "state stays") {
		t.Errorf("Down error = %v", err)
	}
	if _, err := os.Stat(l.Layout.Spec()); err != nil {
		t.Errorf("lab.json gone after a failed down: %v", err)
	}
	r := l.Status(time.Now(), noDocker)
	if r.Running() || !strings.Contains(r.Err, "Cannot connect to the Docker daemon") {
		t.Errorf("status = running %v, err %q", r.Running(), r.Err)
	}
	out.Reset()
	if err := r.Print(&out); err != nil || !strings.Contains(out.String(), `on kind cluster "chain-lab-lab"`) {
		t.Errorf("Print = %v:\n%s", err, out.String())
	}
	// A second up of the same lab refuses, rather than removing the state
	// as it would a crashed lab's.
	if err := l.clearStale(&out); err == nil {
		t.Error("clearStale removed a kind lab's state")
	}
}
