package storage

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// DefaultClass is the lab's default StorageClass, named as kind names its
// own, so that a manifest written for one works on the other.
const DefaultClass = "standard"

// DefaultClassAnnotation marks the default StorageClass, which the
// DefaultStorageClass admission plugin gives claims without a class.
const DefaultClassAnnotation = "storageclass.kubernetes.io/is-default-class"

// roleName names the provisioner's ClusterRole and ClusterRoleBinding.
const roleName = "kubectl-chain-lab:storage-provisioner"

// ClusterRole is what the provisioner may do: the rules of the external
// provisioners' own ClusterRole (external-provisioner-runner), less what
// only CSI drivers use.
func ClusterRole() *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: roleName},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"persistentvolumes"}, Verbs: []string{"get", "list", "watch", "create", "delete", "patch", "update"}},
			{APIGroups: []string{""}, Resources: []string{"persistentvolumeclaims"}, Verbs: []string{"get", "list", "watch", "update"}},
			{APIGroups: []string{"storage.k8s.io"}, Resources: []string{"storageclasses"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"list", "watch", "create", "update", "patch"}},
		},
	}
}

// ClusterRoleBinding grants ClusterRole to the provisioner's user.
func ClusterRoleBinding(user string) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: roleName},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: roleName},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
}

// DefaultStorageClass is the class a claim without storageClassName gets:
// WaitForFirstConsumer, as kind's, so the scheduler picks the node before
// the volume is made, and Delete, so a scenario's volumes go with it.
func DefaultStorageClass() *storagev1.StorageClass {
	wait := storagev1.VolumeBindingWaitForFirstConsumer
	reclaim := corev1.PersistentVolumeReclaimDelete
	return &storagev1.StorageClass{
		ObjectMeta: metav1.ObjectMeta{
			Name:        DefaultClass,
			Annotations: map[string]string{DefaultClassAnnotation: "true"},
		},
		Provisioner:       ProvisionerName,
		ReclaimPolicy:     &reclaim,
		VolumeBindingMode: &wait,
	}
}

// Install creates the provisioner's RBAC and the default StorageClass with
// an administrator's client, keeping any that exist (as kubeadm's addon
// phase does). The provisioner process retries until its RBAC is there.
func Install(ctx context.Context, c kubernetes.Interface, user string) error {
	if _, err := c.RbacV1().ClusterRoles().Create(ctx, ClusterRole(), metav1.CreateOptions{}); ignoreExists(err) != nil {
		return fmt.Errorf("creating ClusterRole %s: %w", roleName, err)
	}
	if _, err := c.RbacV1().ClusterRoleBindings().Create(ctx, ClusterRoleBinding(user), metav1.CreateOptions{}); ignoreExists(err) != nil {
		return fmt.Errorf("creating ClusterRoleBinding %s: %w", roleName, err)
	}
	if _, err := c.StorageV1().StorageClasses().Create(ctx, DefaultStorageClass(), metav1.CreateOptions{}); ignoreExists(err) != nil {
		return fmt.Errorf("creating StorageClass %s: %w", DefaultClass, err)
	}
	return nil
}

func ignoreExists(err error) error {
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}
