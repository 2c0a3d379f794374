package kube

import (
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// TestFollowOwners walks a pod up to the workload kubectl chain walks: a
// Deployment's or an Argo Rollout's ReplicaSet, a Job or DaemonSet
// directly, and refuses a controller of another group, naming it.
func TestFollowOwners(t *testing.T) {
	owned := func(name, apiVersion, kind, owner string) metav1.Object {
		m := &metav1.ObjectMeta{Name: name, Namespace: "prod"}
		if owner != "" {
			m.OwnerReferences = []metav1.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: owner, Controller: ptr.To(true)}}
		}
		return m
	}
	for _, tt := range []struct {
		name    string
		objects map[string]metav1.Object
		want    chain.Ref
		owner   string
	}{
		{name: "deployment", objects: map[string]metav1.Object{
			"pod/web-1": owned("web-1", "apps/v1", "ReplicaSet", "web-abc"), "replicaset/web-abc": owned("web-abc", "apps/v1", "Deployment", "web")},
			want: chain.Ref{Kind: chain.KindDeployment, Name: "web"}},
		{name: "rollout", objects: map[string]metav1.Object{
			"pod/web-1": owned("web-1", "apps/v1", "ReplicaSet", "web-abc"), "replicaset/web-abc": owned("web-abc", "argoproj.io/v1alpha1", "Rollout", "web")},
			want: chain.Ref{Kind: chain.KindRollout, Name: "web"}},
		{name: "job", objects: map[string]metav1.Object{"pod/web-1": owned("web-1", "batch/v1", "Job", "smoke")},
			want: chain.Ref{Kind: chain.KindJob, Name: "smoke"}},
		{name: "daemonset", objects: map[string]metav1.Object{"pod/web-1": owned("web-1", "apps/v1", "DaemonSet", "agent")},
			want: chain.Ref{Kind: chain.KindDaemonSet, Name: "agent"}},
		// OpenKruise's Advanced DaemonSet shares the name, not the chain.
		{name: "other daemonset kind", objects: map[string]metav1.Object{"pod/web-1": owned("web-1", "apps.kruise.io/v1alpha1", "DaemonSet", "agent")},
			owner: "DaemonSet"},
		{name: "other rollout kind", objects: map[string]metav1.Object{
			"pod/web-1": owned("web-1", "apps/v1", "ReplicaSet", "web-abc"), "replicaset/web-abc": owned("web-abc", "example.com/v1", "Rollout", "web")},
			owner: "Rollout"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FollowOwners("pod", "web-1", func(kind, name string) (metav1.Object, error) {
				if o, ok := tt.objects[kind+"/"+name]; ok {
					return o, nil
				}
				return nil, errors.New("not found: " + kind + "/" + name)
			})
			var oe *OwnerError
			switch {
			case tt.owner != "" && (!errors.As(err, &oe) || oe.OwnerKind != tt.owner):
				t.Errorf("got %v, %v; want an OwnerError naming a %s", got, err, tt.owner)
			case tt.owner == "" && (err != nil || got != tt.want):
				t.Errorf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}
