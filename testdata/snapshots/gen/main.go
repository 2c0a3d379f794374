// Command gen writes the walk's snapshot fixtures: for each case, the
// Deployment, ReplicaSets, Pods and Events exactly as `kubectl get
// deploy,rs,pods,events -o yaml` prints them from a v1.37 cluster (kind:
// List, keys sorted, defaulted fields, events of both APIs as core/v1 shows
// them). Every message is built from the format string of the component that
// writes it, cited beside it. Random names and UIDs are seeded by the case
// name, so a run reproduces the committed files byte for byte:
//
//	go run ./testdata/snapshots/gen testdata/snapshots
//
// A user's real capture is as valid a fixture: drop it in the directory.
package main

import (
	"fmt"
	"os"
)

func main() {
	dir := "testdata/snapshots"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	for _, f := range []func() *G{
		healthy, imageNotFound, imageUnauthorized, crashloop, oomkilled, runningBetweenCrashes,
		insufficientCPU, autoscalerScaleUp, quotaExceeded, podSecurityRejected, webhookDenied,
		configMapMissing, mountSecretMissing, sandboxCNI, readinessFailing, rollingUpdateBroken,
		progressDeadline, paused, scaledToZero, initContainerFailing, imagePulling, evicted,
		minReady, pvcUnbound, generationNotObserved,
	} {
		g := f()
		if err := g.write(dir); err != nil {
			fmt.Fprintln(os.Stderr, g.name, err)
			os.Exit(1)
		}
	}
}
