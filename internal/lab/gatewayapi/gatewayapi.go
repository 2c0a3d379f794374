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
	rest := c.Discovery().RESTClient()
	all := true
	for _, f := range files {
		data, err := crds.ReadFile(path.Join("crds", f))
		if err != nil {
			return false, err
		}
		body, err := yaml.YAMLToJSON(data)
		if err != nil {
			return false, fmt.Errorf("%s: %w", f, err)
		}
		var crd struct {
			Metadata struct{ Name string } `json:"metadata"`
		}
		if err := json.Unmarshal(body, &crd); err != nil {
			return false, fmt.Errorf("%s: %w", f, err)
		}
		got, err := rest.Get().AbsPath(crdPath, crd.Metadata.Name).DoRaw(ctx)
		if apierrors.IsNotFound(err) {
			err = rest.Post().AbsPath(crdPath).Body(body).Do(ctx).Error()
			if err != nil && !apierrors.IsAlreadyExists(err) {
				return false, nil // tried again at the next poll
			}
			all = false
			continue
		}
		if err != nil {
			return false, nil
		}
		all = all && established(got)
	}
	return all, nil
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
