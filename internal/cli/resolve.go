package cli

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/internal/capture"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

// resolveLive turns the targets into Deployment names, reading the owner
// of each pod or ReplicaSet named (two GETs for a pod, one for a
// ReplicaSet); a Deployment named twice, directly or through its pods, is
// walked once.
func (o *Options) resolveLive(ctx context.Context, reader *kube.Reader) error {
	return o.resolve(func(t target) (string, error) {
		name, _, err := reader.DeploymentOf(ctx, o.namespace, t.kind, t.name)
		return name, err
	})
}

// resolveFiles does the same from captured objects.
func (o *Options) resolveFiles(b *capture.Bundle, ns string) error {
	return o.resolve(func(t target) (string, error) {
		name, kind := t.name, t.kind
		if kind == kindPod {
			p, ok := b.Pod(ns, name)
			if !ok {
				return "", usageErrorf("no pod %s in %v", name, o.Files)
			}
			ref := metav1.GetControllerOf(p)
			if ref == nil || ref.Kind != "ReplicaSet" {
				return "", translate(kube.NewOwnerError(kindPod, p.Namespace, name, ref))
			}
			name, kind = ref.Name, kindReplicaSet
		}
		rs, ok := b.ReplicaSet(ns, name)
		if !ok {
			return "", usageErrorf("no ReplicaSet %s in %v", name, o.Files)
		}
		ref := metav1.GetControllerOf(rs)
		if ref == nil || ref.Kind != "Deployment" {
			return "", translate(kube.NewOwnerError(kindReplicaSet, rs.Namespace, name, ref))
		}
		return ref.Name, nil
	})
}

// resolve fills o.names and o.via through owner.
func (o *Options) resolve(owner func(target) (string, error)) error {
	o.names, o.via = nil, map[string]string{}
	seen := map[string]bool{}
	for _, t := range o.targets {
		name := t.name
		if t.kind != kindDeployment {
			var err error
			if name, err = owner(t); err != nil {
				return translate(err)
			}
			if _, named := o.via[name]; !named && !seen[name] {
				o.via[name] = fmt.Sprintf("%s/%s", t.kind, t.name)
			}
		} else {
			delete(o.via, name) // the Deployment itself was named
		}
		if !seen[name] {
			seen[name] = true
			o.names = append(o.names, name)
		}
	}
	return nil
}
