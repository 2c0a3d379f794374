package engine

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
func (e *Engine) resolveLive(ctx context.Context, reader *kube.Reader) error {
	return e.resolve(func(t Target) (chain.Ref, error) {
		return reader.OwnerOf(ctx, e.Namespace, t.Kind, t.Name)
	})
}

// resolveFiles does the same from captured objects.
// A pod whose workload the files do not hold (one pod's YAML, as kubectl
// get pod X -o yaml prints it) is walked alone, and standard error says
// what to add to walk its workload.
func (e *Engine) resolveFiles(b *capture.Bundle, ns string) error {
	return e.resolve(func(t Target) (chain.Ref, error) {
		missing := ""
		ref, err := kube.FollowOwners(t.Kind, t.Name, func(kind, name string) (metav1.Object, error) {
			if kind == kindPod {
				if p, ok := b.Pod(ns, name); ok {
					return p, nil
				}
			} else if rs, ok := b.ReplicaSet(ns, name); ok {
				return rs, nil
			}
			missing = kind + "/" + name
			return nil, UsageErrorf("no %s %s in %v", kind, name, e.Files)
		})
		if t.Kind != kindPod || ref.Kind == chain.KindPod {
			return ref, err
		}
		if _, ok := b.Pod(ns, t.Name); !ok {
			return ref, err
		}
		if err == nil {
			if slices.ContainsFunc(b.Workloads(""), func(w capture.Workload) bool { return w.Ref == ref }) {
				return ref, nil
			}
			missing = ref.String()
		}
		fmt.Fprintf(e.notes, "pod/%s: its owner %s is not in the input, so the pod is walked alone; add kubectl get %s -o yaml (and what owns it) to walk its workload\n",
			t.Name, missing, strings.Replace(missing, "/", " ", 1))
		return chain.Ref{Kind: chain.KindPod, Name: t.Name}, nil
	})
}

// resolve fills e.refs and e.via through owner.
func (e *Engine) resolve(owner func(Target) (chain.Ref, error)) error {
	e.refs, e.via = nil, map[chain.Ref]string{}
	seen := map[chain.Ref]bool{}
	for _, t := range e.targets {
		ref, walked := chain.Ref{Kind: workloadKinds[t.Kind], Name: t.Name}, true
		if t.API != nil {
			ref = chain.ResourceRef(*t.API, t.Name)
		} else if ref.Kind == "" {
			var err error
			if ref, err = owner(t); err != nil {
				return Translate(err)
			}
			walked = ref.Kind == chain.KindPod
		}
		switch _, named := e.via[ref]; {
		case walked:
			delete(e.via, ref) // the workload itself was named
		case !named && !seen[ref]:
			e.via[ref] = fmt.Sprintf("%s/%s", t.Kind, t.Name)
		}
		if !seen[ref] {
			seen[ref] = true
			e.refs = append(e.refs, ref)
		}
	}
	return nil
}
