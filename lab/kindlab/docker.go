// Package kindlab is the kind engine of the lab: the same lab on a real
// cluster that sigs.k8s.io/kind creates in Docker containers, with real
// kubelets and container runtimes. Only kubectl-chain-lab imports it (via
// lab): the diagnosis binary never links kind.
package kindlab

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// Runner runs a command and returns its combined output: Exec in the
// binary, a fake in tests.
type Runner func(ctx context.Context, name string, args ...string) ([]byte, error)

// Exec runs the command on this machine.
func Exec(ctx context.Context, name string, args ...string) ([]byte, error) {
	return exec.CommandContext(ctx, name, args...).CombinedOutput()
}

// dockerTimeout bounds `docker info`: a daemon that does not answer in it
// is as good as none.
const dockerTimeout = 20 * time.Second

// DockerError is a Docker engine the kind engine cannot use, with what to
// do about it.
type DockerError struct {
	// NoClient is set when no docker command is on PATH.
	NoClient bool
	// Detail is what docker said.
	Detail string
}

func (e *DockerError) Error() string {
	if e.NoClient {
		return "the kind engine needs Docker, and no `docker` command is on PATH: install Docker (Docker Engine, or Docker Desktop) and start it, " +
			"or leave out --engine kind to run the lab's own control plane, which needs no Docker"
	}
	return fmt.Sprintf("the kind engine needs a running Docker engine, and `docker info` failed: %s\n"+
		"start the Docker daemon (`sudo systemctl start docker`, or open Docker Desktop), make sure this user may use it (`docker info` must work), "+
		"or leave out --engine kind to run the lab's own control plane, which needs no Docker", e.Detail)
}

// CheckDocker fails with a DockerError unless `docker info` answers: kind
// itself only checks that a docker client exists, and would fail later,
// half-way through creating a cluster.
func CheckDocker(ctx context.Context, run Runner) error {
	ctx, cancel := context.WithTimeout(ctx, dockerTimeout)
	defer cancel()
	out, err := run(ctx, "docker", "info", "--format", "{{.ServerVersion}}")
	if errors.Is(err, exec.ErrNotFound) {
		return &DockerError{NoClient: true}
	}
	version := strings.TrimSpace(string(out))
	if err == nil && version != "" {
		return nil
	}
	detail := firstLine(version)
	switch {
	case ctx.Err() != nil:
		detail = fmt.Sprintf("no answer within %v", dockerTimeout)
	case detail == "" && err != nil:
		detail = err.Error()
	case detail == "":
		detail = "it reported no server version"
	}
	return &DockerError{Detail: detail}
}

// firstLine is the first non-empty line of s.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}
