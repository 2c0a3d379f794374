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
	"encoding/json"
	"fmt"
	"path"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"
)

// Version is the gateway-api release the CRDs come from.
const Version = "v1.6.3"

//go:embed crds/*.yaml
var crds embed.FS

const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

// Files are the embedded CRD files' names.
func Files() ([]string, error) {
	entries, err := crds.ReadDir("crds")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out, nil
}

// Install creates each CRD the cluster does not have yet and reports
// whether all of them are established.
func Install(ctx context.Context, c kubernetes.Interface) (bool, error) {
	files, err := Files()
	if err != nil {
		return false, err
	}
	all := true
	for _, f := range files {
		data, err := crds.ReadFile(path.Join("crds", f))
		if err != nil {
			return false, err
		}
		ok, err := InstallCRD(ctx, c, data)
		if err != nil {
			return false, fmt.Errorf("%s: %w", f, err)
		}
		all = all && ok
	}
	return all, nil
}

// InstallCRD creates the CRD of a YAML manifest unless it exists, and says
// whether it is established; a create or read that failed is tried again
// at the next poll (false, nil).
func InstallCRD(ctx context.Context, c kubernetes.Interface, manifest []byte) (bool, error) {
	rest := c.Discovery().RESTClient()
	body, err := yaml.YAMLToJSON(manifest)
	if err != nil {
		return false, err
	}
	var crd struct {
		Metadata struct{ Name string } `json:"metadata"`
	}
	if err := json.Unmarshal(body, &crd); err != nil {
		return false, err
	}
	got, err := rest.Get().AbsPath(crdPath, crd.Metadata.Name).DoRaw(ctx)
	if apierrors.IsNotFound(err) {
		// Established at a later poll; a create that failed is tried
		// again then.
		_ = rest.Post().AbsPath(crdPath).Body(body).Do(ctx).Error()
		return false, nil
	}
	if err != nil {
		return false, nil
	}
	return established(got), nil
}

// established says a CRD's JSON has condition Established True.
func established(raw []byte) bool {
	var crd struct {
		Status struct {
			Conditions []struct{ Type, Status string } `json:"conditions"`
		} `json:"status"`
	}
	if json.Unmarshal(raw, &crd) != nil {
		return false
	}
	for _, c := range crd.Status.Conditions {
		if c.Type == "Established" && c.Status == "True" {
			return true
		}
	}
	return false
}
