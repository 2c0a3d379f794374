// Command kubectl-chain-lab is the reference control plane, `kubectl chain
// lab`: a local cluster of real upstream components and virtual nodes.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"

	"github.com/kubectl-chain/kubectl-chain/lab/labcmd"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := labcmd.Execute(ctx, os.Args[1:], labcmd.Streams{Out: os.Stdout, ErrOut: os.Stderr})
	stop()
	if err != nil {
		if !errors.Is(err, labcmd.ErrSilent) {
			fmt.Fprintln(os.Stderr, "error:", err)
		}
		os.Exit(1)
	}
}
