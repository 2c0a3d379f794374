// Package gatewayapi installs the Gateway API's CRDs in the lab: the
// standard channel of sigs.k8s.io/gateway-api at the version go.mod names
// (crds/ holds upstream's files as released; TestCRDsAsReleased keeps
// them so). The lab runs no Gateway controller: Gateways and routes keep
// the status the API gives them, and a route's chain says no controller
// accepted its class.
package gatewayapi

import (
	"context"
	"embed"

	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-chain/kubectl-chain/lab/crd"
)

// Version is the gateway-api release the CRDs come from.
const Version = "v1.6.3"

//go:embed crds/*.yaml
var crds embed.FS

// Files are the embedded CRD files' names.
func Files() ([]string, error) { return crd.Files(crds, "crds") }

// Install creates each CRD the cluster does not have yet and reports
// whether all of them are established.
func Install(ctx context.Context, c kubernetes.Interface) (bool, error) {
	return crd.InstallAll(ctx, c, crds, "crds")
}
