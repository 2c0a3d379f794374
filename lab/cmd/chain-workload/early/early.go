// Package early installs chain-workload's SIGTERM and SIGINT handler in its
// init, before the heavier packages the program serves with (gRPC,
// protobuf, net/http) initialize. As a container's PID 1 the program
// ignores a SIGTERM it has no handler for, and Go's runtime then exits 2
// ("exit with the wrong status"): a kubelet that stops the container at
// once (a postStart hook that fails fast) met that window on a loaded
// machine, where the program must say Completed.
package early

import (
	"os"
	"os/signal"
	"syscall"
)

// Signals receives SIGTERM and SIGINT from the program's first moments.
var Signals = make(chan os.Signal, 1)

func init() { signal.Notify(Signals, syscall.SIGTERM, syscall.SIGINT) }
