package kindlab

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

func fakeRunner(out string, err error) Runner {
	return func(context.Context, string, ...string) ([]byte, error) { return []byte(out), err }
}

// TestCheckDocker covers a machine with no docker client, a client without
// a daemon (this workplace: the daemon's error is what users see), and a
// daemon that answers.
func TestCheckDocker(t *testing.T) {
	daemonDown := "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n"
	tests := []struct {
		name     string
		run      Runner
		wantErr  bool
		contains []string
	}{
		{"no client", fakeRunner("", fmt.Errorf("exec: %q: %w", "docker", exec.ErrNotFound)), true,
			[]string{"no `docker` command is on PATH", "install Docker", "leave out --engine kind"}},
		{"no daemon", fakeRunner("\n"+daemonDown, errors.New("exit status 1")), true,
			[]string{"`docker info` failed: Cannot connect to the Docker daemon", "start the Docker daemon", "leave out --engine kind"}},
		{"empty answer", fakeRunner("", errors.New("exit status 1")), true, []string{"`docker info` failed: exit status 1"}},
		{"running", fakeRunner("28.2.2\n", nil), false, nil},
	}
	for _, tt := range tests {
		err := CheckDocker(context.Background(), tt.run)
		if (err != nil) != tt.wantErr {
			t.Errorf("%s: err = %v, wantErr %v", tt.name, err, tt.wantErr)
			continue
		}
		if err == nil {
			continue
		}
		var de *DockerError
		if !errors.As(err, &de) {
			t.Errorf("%s: %T, want *DockerError", tt.name, err)
		}
		for _, s := range tt.contains {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: %q does not say %q", tt.name, err, s)
			}
		}
	}
}
