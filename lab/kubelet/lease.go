package kubelet

import (
	"context"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// leaseNamespace holds one Lease per node, renewed as the node's heartbeat.
const leaseNamespace = corev1.NamespaceNodeLease

// newLease is a node's Lease, owned by its Node so it goes with it, as the
// kubelet's lease controller writes it.
func newLease(node *corev1.Node, now time.Time) *coordinationv1.Lease {
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{
			Name:      node.Name,
			Namespace: leaseNamespace,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "v1", Kind: "Node", Name: node.Name, UID: node.UID,
			}},
		},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       ptr.To(node.Name),
			LeaseDurationSeconds: ptr.To[int32](leaseDurationSeconds),
			RenewTime:            &metav1.MicroTime{Time: now},
		},
	}
}

// renewLease creates the node's Lease or moves its renewTime to now.
func (a *nodeAgent) renewLease(ctx context.Context) error {
	leases := a.client.CoordinationV1().Leases(leaseNamespace)
	now := a.clock.Now()
	if a.lease == nil {
		l, err := leases.Get(ctx, a.node.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			l, err = leases.Create(ctx, newLease(a.node, now), metav1.CreateOptions{})
			if err != nil {
				return err
			}
			a.lease = l
			return nil
		case err != nil:
			return err
		}
		a.lease = l
	}
	l := a.lease.DeepCopy()
	l.Spec.RenewTime = &metav1.MicroTime{Time: now}
	l.Spec.HolderIdentity = ptr.To(a.node.Name)
	updated, err := leases.Update(ctx, l, metav1.UpdateOptions{})
	if err != nil {
		a.lease = nil // re-read it next time
		return err
	}
	a.lease = updated
	return nil
}
