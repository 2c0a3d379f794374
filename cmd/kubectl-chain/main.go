// Command kubectl-chain is the kubectl plugin `kubectl chain`: it walks a
// Deployment's causal chain and names the first broken link.
package main

import (
	"context"
	"os"
	"os/signal"

	// Cloud providers' auth plugins (exec, OIDC) for kubeconfigs that use them.
	_ "k8s.io/client-go/plugin/pkg/client/auth"

	"github.com/kubectl-chain/kubectl-chain/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := cli.Execute(ctx, os.Args[1:])
	stop()
	os.Exit(cli.ExitCode(err))
}
