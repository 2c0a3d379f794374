package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/internal/capture"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

// resolveLive turns the targets into workloads, reading the owner of each
// pod or ReplicaSet named (one GET, two for a Deployment's pod); a
// workload named twice, directly or through its pods, is walked once.
func (o *Options) resolveLive(ctx context.Context, reader *kube.Reader) error {
	return o.resolve(func(t target) (chain.Ref, error) {
		return reader.OwnerOf(ctx, o.namespace, t.kind, t.name)
	})
}

// resolveFiles does the same from captured objects.
// A pod whose workload the files do not hold (one pod's YAML, as kubectl
// get pod X -o yaml prints it) is walked alone, and standard error says
// what to add to walk its workload.
func (o *Options) resolveFiles(b *capture.Bundle, ns string) error {
	return o.resolve(func(t target) (chain.Ref, error) {
		missing := ""
		ref, err := kube.FollowOwners(t.kind, t.name, func(kind, name string) (metav1.Object, error) {
			if kind == kindPod {
				if p, ok := b.Pod(ns, name); ok {
					return p, nil
				}
			} else if rs, ok := b.ReplicaSet(ns, name); ok {
				return rs, nil
			}
			missing = kind + "/" + name
			return nil, usageErrorf("no %s %s in %v", kind, name, o.Files)
		})
		if t.kind != kindPod || ref.Kind == chain.KindPod {
			return ref, err
		}
		if _, ok := b.Pod(ns, t.name); !ok {
			return ref, err
		}
		if err == nil {
			if slices.ContainsFunc(b.Workloads(""), func(w capture.Workload) bool { return w.Ref == ref }) {
				return ref, nil
			}
			missing = ref.String()
		}
		fmt.Fprintf(o.ErrOut, "pod/%s: its owner %s is not in the input, so the pod is walked alone; add kubectl get %s -o yaml (and what owns it) to walk its workload\n",
			t.name, missing, strings.Replace(missing, "/", " ", 1))
		return chain.Ref{Kind: chain.KindPod, Name: t.name}, nil
	})
}

// resolve fills o.refs and o.via through owner.
func (o *Options) resolve(owner func(target) (chain.Ref, error)) error {
	o.refs, o.via = nil, map[chain.Ref]string{}
	seen := map[chain.Ref]bool{}
	for _, t := range o.targets {
		ref, walked := chain.Ref{Kind: workloadKinds[t.kind], Name: t.name}, true
		if t.api != nil {
			ref = chain.ResourceRef(*t.api, t.name)
		} else if ref.Kind == "" {
			var err error
			if ref, err = owner(t); err != nil {
				return translate(err)
			}
			walked = ref.Kind == chain.KindPod
		}
		switch _, named := o.via[ref]; {
		case walked:
			delete(o.via, ref) // the workload itself was named
		case !named && !seen[ref]:
			o.via[ref] = fmt.Sprintf("%s/%s", t.kind, t.name)
		}
		if !seen[ref] {
			seen[ref] = true
			o.refs = append(o.refs, ref)
		}
	}
	return nil
}
