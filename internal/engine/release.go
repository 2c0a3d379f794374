package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/internal/capture"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

// release is what --manifests names: the workloads of a rendered release
// (helm template, helm get manifest, kustomize build, plain YAML), judged
// live, by namespace.
type release struct {
	namespaces []string
	refs       map[string][]chain.Ref
	// optional are hooks their tool deletes once they succeed: gone is
	// fine.
	optional map[string]bool
	// meant are, by namespace, the release's Services taken as meant for
	// each of its workloads by membership (chain.ReleaseMeant).
	meant map[string]map[chain.Ref][]string
	// apis are where the release's objects of other kinds are served;
	// cluster are those that are cluster-scoped; unjudged says, for each
	// object that cannot be judged, why.
	apis     map[string]chain.APIResource
	cluster  []chain.Ref
	unjudged []string
}

// Annotations of the tools that render releases, on hooks.
const (
	helmHook               = "helm.sh/hook"
	helmHookDeletePolicy   = "helm.sh/hook-delete-policy"
	argoHookDeletePolicy   = "argocd.argoproj.io/hook-delete-policy"
	helmHookTest           = "test"
	helmHookSucceeded      = "hook-succeeded"
	argoHookSucceededValue = "HookSucceeded"
)

// loadRelease reads the --manifests files: every workload they hold, in
// its own namespace or, when it names none (helm template and kustomize
// build leave it to the apply), in -n's. Helm test hooks are left out:
// they do not run at install.
func (e *Engine) loadRelease() error {
	b, err := e.loadAll(e.Manifests)
	if err != nil {
		return err
	}
	r := &release{refs: map[string][]chain.Ref{}, optional: map[string]bool{}, meant: map[string]map[chain.Ref][]string{}}
	e.noteUnnamespaced(b)
	r.meantByMembership(b, e.Namespace)
	for _, w := range b.Workloads("") {
		if row, _ := chain.RowOf(w.Ref.Kind); row.CRD {
			continue // with the other kinds: only where discovery says its CRD is served
		}
		a := w.Object.GetAnnotations()
		if slices.Contains(strings.Split(a[helmHook], ","), helmHookTest) {
			continue
		}
		ns := w.Namespace
		if ns == "" {
			ns = e.Namespace
		}
		if _, ok := r.refs[ns]; !ok {
			r.namespaces = append(r.namespaces, ns)
		}
		if slices.Contains(r.refs[ns], w.Ref) {
			continue
		}
		r.refs[ns] = append(r.refs[ns], w.Ref)
		if strings.Contains(a[helmHookDeletePolicy], helmHookSucceeded) || strings.Contains(a[argoHookDeletePolicy], argoHookSucceededValue) {
			r.optional[ns+"/"+w.Ref.String()] = true
		}
	}
	// The traffic objects: each Service, Ingress, Gateway and route of
	// the release.
	for _, w := range b.TrafficObjects("") {
		ns := w.Namespace
		if ns == "" {
			ns = e.Namespace
		}
		if _, ok := r.refs[ns]; !ok {
			r.namespaces = append(r.namespaces, ns)
		}
		if !slices.Contains(r.refs[ns], w.Ref) {
			r.refs[ns] = append(r.refs[ns], w.Ref)
		}
	}
	if err := e.releaseOthers(b, r); err != nil {
		return err
	}
	if len(r.namespaces) == 0 && len(r.cluster) == 0 {
		return &ExitError{Code: ExitNotFound, Err: fmt.Errorf("no object kubectl chain can judge in %v: nothing to judge", e.Manifests)}
	}
	slices.Sort(r.namespaces)
	e.release = r
	return nil
}

// noteUnnamespaced says, on standard error, how many of the release's
// workloads and traffic objects (namespaced kinds all) name no namespace
// (helm template and kustomize build leave it to the apply) and which
// namespace they are judged in, so a wall of not-found reports is never
// a mystery.
func (e *Engine) noteUnnamespaced(b *capture.Bundle) {
	n := 0
	for _, w := range append(b.Workloads(""), b.TrafficObjects("")...) {
		if w.Namespace == "" {
			n++
		}
	}
	if n == 0 {
		return
	}
	from := "the kubeconfig context's namespace, or default (pass -n to choose)"
	if e.NamespaceFromFlag {
		from = "-n"
	}
	fmt.Fprintf(e.notes, "%d workload(s) and traffic object(s) of the manifests name no namespace: judged in %q, from %s\n", n, e.Namespace, from)
}

// readRelease reads each namespace of the release once (one paged list
// per kind) and cuts a snapshot per workload of the manifests; a workload
// the cluster lacks is judged as not found, unless it is a hook deleted
// once it succeeded.
func (e *Engine) readRelease(ctx context.Context, reader *kube.Reader) (*targets, error) {
	t := &targets{}
	// The objects of other kinds: their status, then what they own that
	// the release does not hold (an operator's Deployments): the release's
	// own workloads are judged on their own.
	reader.APIs = e.release.apis
	reader.Apart = func(ns string, ref chain.Ref) bool { return slices.Contains(e.release.refs[ns], ref) }
	for _, ns := range e.release.namespaces {
		bundle, gaps, requests, err := reader.Many(ctx, ns, "")
		t.requests += requests
		if err != nil {
			return nil, err
		}
		for _, ref := range e.release.refs[ns] {
			if row, ok := chain.RowOf(ref.Kind); !ok || ref.IsResource() || row.Class == chain.ClassTraffic || row.CRD {
				// Read as svc/NAME, ing/NAME, httproute/NAME or a CRD's
				// kind are, on their own: a namespace with no workload
				// has no Services in its read, nor the CRD's objects.
				snap, err := reader.Read(ctx, ns, ref)
				var nf *kube.NotFoundError
				switch {
				case errors.As(err, &nf):
					snap = e.release.notFound(ns, ref, nf)
				case err != nil:
					return nil, err
				}
				t.requests += snap.Requests
				if ref.Kind == chain.KindService {
					snap.MeantFor = e.release.meantFor(ns, ref.Name)
				}
				t.snaps = append(t.snaps, snap)
				continue
			}
			snap, err := bundle.Read(ns, ref)
			if err != nil {
				if e.release.optional[ns+"/"+ref.String()] {
					continue // a hook deleted once it succeeded
				}
				snap = &chain.Snapshot{Kind: ref.Kind, Namespace: ns, Name: ref.Name}
			}
			if names := e.release.meant[ns][ref]; len(names) > 0 {
				bundle.AddMeant(snap, names)
			}
			snap.Gaps = append(snap.Gaps, gaps...)
			t.snaps = append(t.snaps, snap)
		}
	}
	for _, ref := range e.release.cluster {
		snap, err := reader.Read(ctx, "", ref)
		var nf *kube.NotFoundError
		switch {
		case errors.As(err, &nf):
			snap = e.release.notFound("", ref, nf)
		case err != nil:
			return nil, err
		}
		t.requests += snap.Requests
		t.snaps = append(t.snaps, snap)
	}
	return t, nil
}

// notFound is the snapshot of a release's object the cluster lacks.
func (r *release) notFound(ns string, ref chain.Ref, nf *kube.NotFoundError) *chain.Snapshot {
	snap := &chain.Snapshot{Kind: ref.Kind, Namespace: ns, Name: ref.Name, Requests: max(nf.Requests, 1)}
	if api, ok := r.apis[kube.APIKey(ref)]; ok {
		snap.API = &api
	}
	return snap
}

// meantByMembership fills meant from the release's Services and the pod
// templates of its workloads, namespace by namespace (ns for objects that
// name none).
func (r *release) meantByMembership(b *capture.Bundle, ns string) {
	svcs, tmpls := map[string][]*corev1.Service{}, map[string][]chain.Template{}
	for i := range b.Services {
		n := cmp.Or(b.Services[i].Namespace, ns)
		svcs[n] = append(svcs[n], &b.Services[i])
	}
	for _, w := range b.Workloads("") {
		if t, ok := chain.TemplateOf(w.Kind, w.Object); ok {
			n := cmp.Or(w.Namespace, ns)
			tmpls[n] = append(tmpls[n], t)
		}
	}
	for n, ss := range svcs {
		if m := chain.ReleaseMeant(ss, tmpls[n]); len(m) > 0 {
			r.meant[n] = m
		}
	}
}

// meantFor are the release's workloads the Service is meant for by
// membership.
func (r *release) meantFor(ns, svc string) []chain.Ref {
	var out []chain.Ref
	for ref, names := range r.meant[ns] {
		if slices.Contains(names, svc) {
			out = append(out, ref)
		}
	}
	return out
}
