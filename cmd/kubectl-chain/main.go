// Command kubectl-chain is the kubectl plugin `kubectl chain`: it walks a
// Deployment's causal chain and names the first broken link.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/metrics"
	"syscall"
	"time"

	// Cloud providers' auth plugins (exec, OIDC) for kubeconfigs that use them.
	_ "k8s.io/client-go/plugin/pkg/client/auth"

	"github.com/kubectl-chain/kubectl-chain/internal/cli"
)

// memoryFloor is the memory the garbage collector aims to stay under
// (soft; GOMEMLIMIT overrides it) while the live heap is under two
// thirds of it: -A on 20,000 pods keeps about 100 MB live, and without a
// limit the heap grows to twice that between collections.
const memoryFloor = 180 << 20

func main() {
	if os.Getenv("GOMEMLIMIT") == "" {
		go holdMemory(memoryFloor, time.Tick(250*time.Millisecond))
	}
	// SIGTERM too: kubectl chain serve runs as a pod, which is stopped with it.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := cli.Execute(ctx, os.Args[1:])
	stop()
	os.Exit(cli.ExitCode(err))
}

// holdMemory keeps the soft memory limit at floor, or at 1.5 times the
// live heap when that is more, looked at on every tick. A fixed limit
// under the live heap of a bigger cluster would have the collector run
// without pause; this way the heap may outgrow it by half, as GOGC=50
// would let it.
func holdMemory(floor int64, tick <-chan time.Time) {
	debug.SetMemoryLimit(floor)
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	for range tick {
		metrics.Read(live)
		debug.SetMemoryLimit(max(floor, int64(live[0].Value.Uint64())*3/2))
	}
}
