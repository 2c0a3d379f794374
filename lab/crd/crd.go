// Package crd installs the lab's CustomResourceDefinitions (the Gateway
// API's, cert-manager's, Argo Rollouts', the lab operator's) from their
// YAML manifests, through the API
// server's REST client: no apiextensions client in the lab binary.
package crd

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"
)

const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

// Install creates the CRD of a YAML manifest unless it exists, and says
// whether it is established; a create or read that failed is tried again
// at the next poll (false, nil).
func Install(ctx context.Context, c kubernetes.Interface, manifest []byte) (bool, error) {
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

// Files are the names of the CRD files in dir of fsys, in name order.
func Files(fsys fs.ReadDirFS, dir string) ([]string, error) {
	entries, err := fsys.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out, nil
}

// InstallAll installs every CRD file in dir of fsys (Install) and reports
// whether all of them are established.
func InstallAll(ctx context.Context, c kubernetes.Interface, fsys fs.ReadDirFS, dir string) (bool, error) {
	files, err := Files(fsys, dir)
	if err != nil {
		return false, err
	}
	all := true
	for _, f := range files {
		data, err := fs.ReadFile(fsys, path.Join(dir, f))
		if err != nil {
			return false, err
		}
		ok, err := Install(ctx, c, data)
		if err != nil {
			return false, fmt.Errorf("%s: %w", f, err)
		}
		all = all && ok
	}
	return all, nil
}
