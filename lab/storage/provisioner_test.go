package storage

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v13/controller"
)

func options(class *storagev1.StorageClass, size string) controller.ProvisionOptions {
	return controller.ProvisionOptions{
		StorageClass: class,
		PVName:       "pvc-1234",
		PVC: &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: "web-data", Namespace: "ns1"},
			Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}},
			},
		},
	}
}

func TestProvisionAndDelete(t *testing.T) {
	root := t.TempDir()
	h := HostPath{Root: root}
	pv, state, err := h.Provision(context.Background(), options(DefaultStorageClass(), "1Gi"))
	if err != nil || state != controller.ProvisioningFinished {
		t.Fatalf("Provision: %v, %v", state, err)
	}
	path := filepath.Join(root, "pvc-1234")
	if fi, err := os.Stat(path); err != nil || !fi.IsDir() {
		t.Fatalf("volume directory: %v", err)
	}
	got := []string{pv.Name, pv.Spec.HostPath.Path, string(*pv.Spec.HostPath.Type), string(pv.Spec.PersistentVolumeReclaimPolicy),
		pv.Spec.Capacity.Storage().String(), string(pv.Spec.AccessModes[0])}
	want := []string{"pvc-1234", path, "Directory", "Delete", "1Gi", "ReadWriteOnce"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("PersistentVolume (-want +got):\n%s", diff)
	}
	if err := h.Delete(context.Background(), pv); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("volume directory still there: %v", err)
	}
	foreign := pv.DeepCopy()
	foreign.Spec.HostPath.Path = "/etc"
	var ignored *controller.IgnoredError
	if err := h.Delete(context.Background(), foreign); !errors.As(err, &ignored) {
		t.Errorf("Delete of a path outside the root = %v, want IgnoredError", err)
	}
}

// TestProvisionFailures checks the errors the library puts verbatim into
// the claim's ProvisioningFailed event.
func TestProvisionFailures(t *testing.T) {
	capped := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "ns1-capped"}, Provisioner: ProvisionerName,
		Parameters: map[string]string{ParamMaxSize: "1Gi"}}
	typo := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "fast"}, Provisioner: ProvisionerName,
		Parameters: map[string]string{"maxsize": "1Gi"}}
	bad := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "fast"}, Provisioner: ProvisionerName,
		Parameters: map[string]string{ParamMaxSize: "lots"}}
	tests := []struct {
		class *storagev1.StorageClass
		size  string
		want  string
	}{
		{capped, "5Gi", `requested capacity 5Gi exceeds the maximum size 1Gi of StorageClass "ns1-capped" (parameter maxSize)`},
		{typo, "1Gi", `unknown parameter "maxsize" of StorageClass "fast": lab.kubectl-chain.io/hostpath supports only maxSize`},
		{bad, "1Gi", `invalid parameter maxSize="lots" of StorageClass "fast": want a positive quantity such as 1Gi`},
	}
	root := t.TempDir()
	for _, tt := range tests {
		_, state, err := HostPath{Root: root}.Provision(context.Background(), options(tt.class, tt.size))
		if err == nil || err.Error() != tt.want || state != controller.ProvisioningFinished {
			t.Errorf("Provision(%s, %s) = %v, %v; want %q, Finished", tt.class.Name, tt.size, state, err, tt.want)
		}
	}
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Errorf("a failed provisioning left %d directories", len(entries))
	}
	if _, _, err := (HostPath{Root: root}).Provision(context.Background(), options(capped, "1Gi")); err != nil {
		t.Errorf("a claim of exactly maxSize: %v", err)
	}
}
