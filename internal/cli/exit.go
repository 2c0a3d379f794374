package cli

import (
	"github.com/kubectl-chain/kubectl-chain/internal/engine"
)

// Exit codes, as the engine's errors carry them. They are part of the CI
// contract: never renumber one.
const (
	ExitHealthy     = engine.ExitHealthy
	ExitBroken      = engine.ExitBroken
	ExitProgressing = engine.ExitProgressing
	ExitUnknown     = engine.ExitUnknown
	ExitUsage       = engine.ExitUsage
	ExitNotFound    = engine.ExitNotFound
	ExitCluster     = engine.ExitCluster
	ExitUnexplained = engine.ExitUnexplained
)

// ExitError carries the exit code chosen for an error up to main.
type ExitError = engine.ExitError

// VerdictError reports a walk that ended in anything but healthy; its
// message was already printed with the report.
type VerdictError = engine.VerdictError

// ExitCode maps what a command returned to the process exit code.
func ExitCode(err error) int { return engine.ExitCode(err) }

func usageErrorf(format string, a ...any) error { return engine.UsageErrorf(format, a...) }
