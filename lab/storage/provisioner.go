// Package storage is the lab's dynamic volume provisioning: a provisioner
// built on sigs.k8s.io/sig-storage-lib-external-provisioner, the library the
// external provisioners of real clusters are built on, serving the lab's
// default StorageClass with one hostPath directory per PersistentVolume
// under the lab's state directory. The virtual nodes all live on this host,
// so such a volume is reachable from every node, as a network volume is.
//
// The library, not this package, writes the claim's events
// (Provisioning, ProvisioningFailed with the provisioner's error verbatim)
// and the PV controller of kube-controller-manager binds the claim, so a
// claim goes through the same states and events as on a real cluster.
package storage

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v13/controller"
)

// ProvisionerName is the StorageClass provisioner the lab serves.
const ProvisionerName = "lab.kubectl-chain.io/hostpath"

// ParamMaxSize is the StorageClass parameter that caps a claim's size: a
// claim requesting more fails to provision, every time (a scenario's
// deterministic provisioning failure; a real backend's capacity limit).
const ParamMaxSize = "maxSize"

// HostPath provisions a directory under Root for each claim.
type HostPath struct{ Root string }

var _ controller.Provisioner = HostPath{}

// Provision creates the volume's directory and returns its PersistentVolume;
// the library sets the claim reference and stores it.
func (h HostPath) Provision(_ context.Context, o controller.ProvisionOptions) (*corev1.PersistentVolume, controller.ProvisioningState, error) {
	class := o.StorageClass
	maxSize, err := parseParameters(class.Name, class.Parameters)
	if err != nil {
		return nil, controller.ProvisioningFinished, err
	}
	if o.PVC.Spec.Selector != nil {
		return nil, controller.ProvisioningFinished, fmt.Errorf("claim.Spec.Selector is not supported for dynamic provisioning on %s", ProvisionerName)
	}
	size := o.PVC.Spec.Resources.Requests[corev1.ResourceStorage]
	if maxSize != nil && size.Cmp(*maxSize) > 0 {
		return nil, controller.ProvisioningFinished, fmt.Errorf("requested capacity %s exceeds the maximum size %s of StorageClass %q (parameter %s)",
			size.String(), maxSize.String(), class.Name, ParamMaxSize)
	}
	path := filepath.Join(h.Root, o.PVName)
	if err := os.MkdirAll(path, 0o777); err != nil {
		return nil, controller.ProvisioningFinished, fmt.Errorf("creating the volume's directory: %w", err)
	}
	reclaim := corev1.PersistentVolumeReclaimDelete
	if class.ReclaimPolicy != nil {
		reclaim = *class.ReclaimPolicy
	}
	dir := corev1.HostPathDirectory
	fs := corev1.PersistentVolumeFilesystem
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: o.PVName},
		Spec: corev1.PersistentVolumeSpec{
			PersistentVolumeReclaimPolicy: reclaim,
			AccessModes:                   o.PVC.Spec.AccessModes,
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: size},
			MountOptions:                  class.MountOptions,
			VolumeMode:                    &fs,
			PersistentVolumeSource: corev1.PersistentVolumeSource{
				HostPath: &corev1.HostPathVolumeSource{Path: path, Type: &dir},
			},
		},
	}, controller.ProvisioningFinished, nil
}

// Delete removes the volume's directory. A PersistentVolume whose path is
// not one of ours is left alone: another provisioner may own it.
func (h HostPath) Delete(_ context.Context, pv *corev1.PersistentVolume) error {
	if pv.Spec.HostPath == nil {
		return &controller.IgnoredError{Reason: "the PersistentVolume is not a hostPath volume"}
	}
	path := filepath.Clean(pv.Spec.HostPath.Path)
	if filepath.Dir(path) != filepath.Clean(h.Root) {
		return &controller.IgnoredError{Reason: fmt.Sprintf("%s is not under %s", path, h.Root)}
	}
	return os.RemoveAll(path)
}

// parseParameters reads the StorageClass's parameters; an unknown one is an
// error, so that a typo fails provisioning rather than being ignored.
func parseParameters(class string, params map[string]string) (*resource.Quantity, error) {
	var maxSize *resource.Quantity
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := params[k]
		switch k {
		case ParamMaxSize:
			q, err := resource.ParseQuantity(strings.TrimSpace(v))
			if err != nil || q.Sign() <= 0 {
				return nil, fmt.Errorf("invalid parameter %s=%q of StorageClass %q: want a positive quantity such as 1Gi", k, v, class)
			}
			maxSize = &q
		default:
			return nil, fmt.Errorf("unknown parameter %q of StorageClass %q: %s supports only %s", k, class, ProvisionerName, ParamMaxSize)
		}
	}
	return maxSize, nil
}
