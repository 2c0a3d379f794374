package labcmd

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-chain/kubectl-chain/lab/kindlab"
	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

// noDaemon is docker on this workplace: a client without an engine.
func noDaemon(context.Context, string, ...string) ([]byte, error) {
	return []byte("\nCannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n"), errors.New("exit status 1")
}

func execute(t *testing.T, run kindlab.Runner, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	root := newRoot(Streams{Out: &out, ErrOut: &errOut}, &globals{run: run})
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	return out.String() + errOut.String(), err
}

// TestUpEngineValidation checks the engine choice and the flags that do
// not go with it; none of these may write any state.
func TestUpEngineValidation(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--engine", "docker"}, `unknown --engine "docker": choose lab`},
		{[]string{"--engine", "kind", "--node-cpu", "2"}, "--node-cpu shapes the lab's virtual nodes and does not apply to --engine kind"},
		{[]string{"--engine", "kind", "--node-pods", "10"}, "--node-pods shapes the lab's virtual nodes"},
		{[]string{"--node-image", "example/node:v1"}, "--node-image is a kind node image: it needs --engine kind"},
		{[]string{"--engine", "kind", "--nodes", "0"}, "--nodes must be between 1 and"},
		{[]string{"--frozen", "--nodes", "3"}, "--frozen starts a control plane with no nodes"},
		{[]string{"--frozen", "--engine", "kind"}, "--frozen starts a control plane with no nodes"},
	}
	for _, tt := range tests {
		dir := filepath.Join(t.TempDir(), "lab")
		_, err := execute(t, noDaemon, append([]string{"up", "--state-dir", dir}, tt.args...)...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("up %v: error = %v, want it to say %q", tt.args, err, tt.want)
		}
		if _, serr := os.Stat(dir); !os.IsNotExist(serr) {
			t.Errorf("up %v wrote state: %v", tt.args, serr)
		}
	}
}

// TestUpKindWithoutDocker checks that a missing Docker engine is caught up
// front, with what to do, before any state is written.
func TestUpKindWithoutDocker(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lab")
	_, err := execute(t, noDaemon, "up", "--engine", "kind", "--state-dir", dir)
	var de *kindlab.DockerError
	if !errors.As(err, &de) {
		t.Fatalf("error = %v (%T), want a DockerError", err, err)
	}
	for _, s := range []string{"Cannot connect to the Docker daemon", "start the Docker daemon", "leave out --engine kind"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("%q does not say %q", err, s)
		}
	}
	if _, serr := os.Stat(dir); !os.IsNotExist(serr) {
		t.Errorf("state written for a lab that cannot start: %v", serr)
	}
}

// TestScenariosListEngines checks that the listing says where each
// scenario reproduces.
func TestScenariosListEngines(t *testing.T) {
	out, err := execute(t, noDaemon, "scenarios")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ENGINES", "crashloop ", "lab  ", "pvc-bound ", "lab,kind"} {
		if !strings.Contains(out, want) {
			t.Errorf("scenarios output lacks %q:\n%s", want, out)
		}
	}
}

// TestFillNeedsFrozenLab: fill refuses a bad shape before anything, a lab
// that is not up, and a lab whose controllers would rewrite what it
// writes, each with the command that fixes it.
func TestFillNeedsFrozenLab(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lab")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--broken", "2000"}, "broken must be between 0 and half the deployments"},
		{nil, "is not up: start one for fill with `kubectl chain lab up --frozen"},
	} {
		_, err := execute(t, noDaemon, append([]string{"fill", "--state-dir", dir}, tt.args...)...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("fill %v: error = %v, want it to say %q", tt.args, err, tt.want)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := state.WriteSpec(state.Layout{Dir: dir}, state.Spec{Name: "lab"}); err != nil {
		t.Fatal(err)
	}
	_, err := execute(t, noDaemon, "fill", "--state-dir", dir)
	if err == nil || !strings.Contains(err.Error(), "runs the controllers and kubelet, which would rewrite what fill writes") {
		t.Errorf("fill on a lab that is not frozen: error = %v", err)
	}
}
