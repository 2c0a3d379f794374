package engine

import (
	"context"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/internal/capture"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

// Capture reads the one target named as a run reads it (with the
// producers of the Secrets its pods wait for, as the walk reads them), and
// the objects its evidence names beyond it, for a capture file
// (capture.Encode).
func (e *Engine) Capture(ctx context.Context) (*chain.Snapshot, *capture.Related, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	client, err := e.NewClient()
	if err != nil {
		return nil, nil, Translate(err)
	}
	reader := &kube.Reader{Client: client, Now: e.Now}
	if err := e.resolveResources(reader); err != nil {
		return nil, nil, err
	}
	if err := e.resolveLive(ctx, reader); err != nil {
		return nil, nil, err
	}
	snap, err := reader.Read(ctx, e.Namespace, e.refs[0])
	if err != nil {
		return nil, nil, Translate(err)
	}
	if err := e.readBeside(ctx, reader, snap, false); err != nil {
		return nil, nil, Translate(err)
	}
	return snap, reader.Related(ctx, snap), nil
}

// ReleaseAPIs are where the release's (Manifests') objects of other kinds
// are served, as discovery resolves them, in the order the release names
// them: what a run judges them by.
func (e *Engine) ReleaseAPIs() ([]chain.APIResource, error) {
	b, err := e.loadAll(e.Manifests)
	if err != nil {
		return nil, err
	}
	objs, _, err := e.resolveOthers(b)
	if err != nil {
		return nil, err
	}
	apis := make([]chain.APIResource, 0, len(objs))
	for _, obj := range objs {
		apis = append(apis, obj.api)
	}
	return apis, nil
}
