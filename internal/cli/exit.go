package cli

import (
	"errors"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Exit codes. They are part of the CI contract: never renumber one.
const (
	ExitHealthy     = 0 // the rollout is complete and every pod is ready
	ExitBroken      = 1 // a link is broken
	ExitProgressing = 2 // nothing is broken, but the rollout is not done
	ExitUnknown     = 3 // a link could not be judged (evidence forbidden) and nothing is broken
	ExitUsage       = 4 // the command line is wrong: flag, argument, resource type
	ExitNotFound    = 5 // the Deployment does not exist in that namespace
	ExitCluster     = 6 // the cluster could not be read: kubeconfig, connection, timeout, credentials, RBAC on the Deployment
	ExitUnexplained = 7 // explain: no cause is known for the message (or for any of the events)
)

// ExitError carries the exit code chosen for an error up to main.
type ExitError struct {
	Code int
	Err  error
	// silent errors were already reported (by a child process).
	silent bool
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// VerdictError reports a walk that ended in anything but healthy; its message
// was already printed with the report.
type VerdictError struct{ Health chain.Health }

func (e *VerdictError) Error() string { return "deployment is " + string(e.Health) }

// ExitCode maps what a command returned to the process exit code.
func ExitCode(err error) int {
	if err == nil {
		return ExitHealthy
	}
	var v *VerdictError
	if errors.As(err, &v) {
		return healthCode(v.Health)
	}
	var e *ExitError
	if errors.As(err, &e) {
		return e.Code
	}
	return ExitUsage
}

func healthCode(h chain.Health) int {
	switch h {
	case chain.Healthy:
		return ExitHealthy
	case chain.Broken:
		return ExitBroken
	case chain.Progressing:
		return ExitProgressing
	}
	return ExitUnknown
}
