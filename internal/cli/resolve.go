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
		return reader.DeploymentOf(ctx, o.namespace, t.kind, t.name)
	})
}

// resolveFiles does the same from captured objects.
func (o *Options) resolveFiles(b *capture.Bundle, ns string) error {
	return o.resolve(func(t target) (string, error) {
		return kube.FollowOwners(t.kind, t.name, func(kind, name string) (metav1.Object, error) {
			if kind == kindPod {
				if p, ok := b.Pod(ns, name); ok {
					return p, nil
				}
			} else if rs, ok := b.ReplicaSet(ns, name); ok {
				return rs, nil
			}
			return nil, usageErrorf("no %s %s in %v", kind, name, o.Files)
		})
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
