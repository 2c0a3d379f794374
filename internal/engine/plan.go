package engine

import (
	"context"
	"time"

	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

// source is where a plan's objects come from.
type source int

const (
	sourceLive      source = iota // the cluster, named or chosen by -l, --all, -A
	sourceFiles                   // captured objects (-f), judged at their own time
	sourceManifests               // a rendered release's workloads (--manifests), judged live
)

// plan is what the request asks, compiled once: where the objects come
// from, one target (whose report stands alone) or many (a list with a
// summary), and whether to follow them (--wait). Every source yields the
// same targets, and judge is the one way they are walked and handed to the
// sink.
type plan struct {
	source source
	single bool
	follow bool
}

// compile reads the request into a plan; the targets must be resolved.
func (e *Engine) compile() plan {
	p := plan{source: sourceLive, single: !e.many(), follow: e.Wait}
	switch {
	case len(e.Files) > 0:
		p.source = sourceFiles
		p.single = !(e.All || e.AllNamespaces || e.Selector != "") && len(e.refs) <= 1
	case len(e.Manifests) > 0:
		p.source = sourceManifests
	}
	return p
}

// judge walks what was read and hands it to the sink, or with --wait
// follows it until each target is healthy or terminally broken, or the
// timeout.
func (e *Engine) judge(ctx context.Context, p plan, reader *kube.Reader, t *targets) error {
	switch {
	case !p.follow:
		now := e.now()
		if p.source == sourceFiles {
			now = time.Time{} // a capture is judged at its own time
		}
		l, err := t.walk(now, e.walkOptions())
		if err != nil {
			return err
		}
		if !p.single && p.source != sourceFiles {
			e.readOwners(ctx, reader, l)
		}
		return e.sink.Reports(l, p.single)
	case p.single:
		return e.runWait(ctx, reader, t.snaps[0])
	}
	return e.followMany(ctx, reader, t)
}
