package engine

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

// readApplier reads, when the snapshot's walk (r) names a revision that broke
// applied by an Argo CD Application or a Flux Kustomization or HelmRelease
// (chain.AppliedOf), that object, for the revision and source its status
// names: one request, only for a kind the cluster serves (discovery), and
// none when no revision broke. What stops it is a note on the change, not
// a failure of the run.
func (e *Engine) readApplier(ctx context.Context, reader *kube.Reader, snap *chain.Snapshot, r *chain.Report) {
	if r.Change == nil || r.Change.Applied == nil || r.Change.Applied.Owner == nil {
		return
	}
	owner := r.Change.Applied.Owner
	var api *chain.APIResource
	for i := range chain.Appliers {
		if chain.Appliers[i].Kind == owner.Kind {
			api = &chain.Appliers[i]
		}
	}
	if api == nil {
		return // a Helm release: its labels say all there is
	}
	if m, err := e.NewMapper(); err == nil {
		if _, err := m.RESTMapping(schema.GroupKind{Group: api.Group, Kind: api.Kind}, api.Version); err != nil {
			snap.ApplierNote = fmt.Sprintf("this cluster does not serve %s: its revision is not read", api.Type())
			return
		}
	}
	obj, err := reader.ReadApplier(ctx, *api, owner.Namespace, owner.Name)
	snap.Requests++
	switch {
	case apierrors.IsForbidden(err):
		snap.ApplierNote = fmt.Sprintf("reading %s %s is forbidden: its revision is not read", api.Type(), owner.Name)
	case err != nil:
		snap.ApplierNote = fmt.Sprintf("reading %s %s: %v", api.Type(), owner.Name, err)
	case obj == nil:
		snap.ApplierNote = fmt.Sprintf("%s %s is not found: its revision is not read", api.Type(), owner.Name)
	default:
		snap.Applier = obj
	}
}

// readOwners completes, for many reports at once (-l, --all, -A, a
// release), the "applied by" of each revision that broke with its GitOps
// owner's status: one list per owner kind the cluster serves and some
// report names (in the owners' one namespace, else across namespaces),
// and none when no revision broke. What stops a list is a note on each
// change it leaves, not a failure of the run.
func (e *Engine) readOwners(ctx context.Context, reader *kube.Reader, l *chain.ReportList) {
	if reader == nil || l == nil {
		return
	}
	byKind := map[string][]*chain.Applied{}
	for i := range l.Items {
		if c := l.Items[i].Change; c != nil && c.Applied != nil && c.Applied.Owner != nil && c.Applied.Revision == "" {
			byKind[c.Applied.Owner.Kind] = append(byKind[c.Applied.Owner.Kind], c.Applied)
		}
	}
	if len(byKind) == 0 {
		return
	}
	m, _ := e.NewMapper()
	for _, api := range chain.Appliers {
		applied := byKind[api.Kind]
		if len(applied) == 0 {
			continue
		}
		note := func(s string) {
			for _, a := range applied {
				a.Note = s
			}
		}
		if m != nil {
			if _, err := m.RESTMapping(schema.GroupKind{Group: api.Group, Kind: api.Kind}, api.Version); err != nil {
				note(fmt.Sprintf("this cluster does not serve %s: its revision is not read", api.Type()))
				continue
			}
		}
		ns := applied[0].Owner.Namespace
		for _, a := range applied {
			if a.Owner.Namespace != ns {
				ns = ""
			}
		}
		objs, err := reader.ListAppliers(ctx, api, ns)
		l.Requests++
		if err != nil {
			note(fmt.Sprintf("listing %s: %v", api.Type(), err))
			continue
		}
		for _, a := range applied {
			found := false
			for _, o := range objs {
				if o.GetName() == a.Owner.Name && (a.Owner.Namespace == "" || o.GetNamespace() == a.Owner.Namespace) {
					a.FromOwner(o)
					found = true
					break
				}
			}
			if !found {
				a.Note = fmt.Sprintf("%s %s is not found: its revision is not read", api.Type(), a.Owner.Name)
			}
		}
	}
}
