// Command kubectl-chain is the kubectl plugin `kubectl chain`: it walks a
// Deployment's causal chain and names the first broken link.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	// Cloud providers' auth plugins (exec, OIDC) for kubeconfigs that use them.
	_ "k8s.io/client-go/plugin/pkg/client/auth"

	"github.com/kubectl-chain/kubectl-chain/internal/cli"
)

// memoryLimit is the heap the garbage collector aims to stay under (soft;
// GOMEMLIMIT overrides it): -A on 20,000 pods keeps about 180 MB live, and
// without a limit the heap grows to twice that between collections.
const memoryLimit = 400 << 20

func main() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	// SIGTERM too: kubectl chain serve runs as a pod, which is stopped with it.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := cli.Execute(ctx, os.Args[1:])
	stop()
	os.Exit(cli.ExitCode(err))
}
