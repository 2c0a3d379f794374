package engine

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/diagnose"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

// readApplier reads, when the snapshot's walk names a revision that broke
// applied by an Argo CD Application or a Flux Kustomization or HelmRelease
// (chain.AppliedOf), that object, for the revision and source its status
// names: one request, only for a kind the cluster serves (discovery), and
// none when no revision broke. What stops it is a note on the change, not
// a failure of the run.
func (e *Engine) readApplier(ctx context.Context, reader *kube.Reader, snap *chain.Snapshot) {
	r := diagnose.Walk(snap, e.walkOptions())
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
