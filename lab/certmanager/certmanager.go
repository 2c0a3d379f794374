// Package certmanager installs cert-manager's CRDs in the lab
// (Certificates, CertificateRequests, Issuers, ClusterIssuers; crds/ holds
// deploy/crds of github.com/cert-manager/cert-manager at Version, byte for
// byte, which TestCRDsAsReleased checks). cert-manager's controller is not
// run: its command (cmd/controller) is a module of its own that the module
// proxy does not serve, so it cannot be built here. Scenarios that need
// what it writes take the statuses from real captures (see the
// certificate-issuer-missing scenario's manifest), never from a status
// the lab invents.
package certmanager

import (
	"context"
	"embed"

	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-chain/kubectl-chain/lab/crd"
)

// Version is the cert-manager release the CRDs come from.
const Version = "v1.21.2"

// Module is the Go module the CRDs come from.
const Module = "github.com/cert-manager/cert-manager"

//go:embed crds/*.yaml
var crds embed.FS

// Files are the embedded CRD files' names.
func Files() ([]string, error) { return crd.Files(crds, "crds") }

// Install creates each CRD the cluster does not have yet and reports
// whether all of them are established.
func Install(ctx context.Context, c kubernetes.Interface) (bool, error) {
	return crd.InstallAll(ctx, c, crds, "crds")
}
