package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/diagnose"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

// source is where a plan's objects come from.
type source int

const (
	sourceLive      source = iota // the cluster, named or chosen by -l, --all, -A
	sourceFiles                   // captured objects (-f), judged at their own time
	sourceManifests               // a rendered release's workloads (--manifests), judged live
)

// plan is what the flags ask, compiled once: where the objects come from,
// one target (whose report prints alone) or many (a list with a summary),
// and whether to follow them (--wait). Every source yields the same
// targets, and judge is the one way they are walked and emitted.
type plan struct {
	source source
	single bool
	follow bool
}

// compile reads the flags into a plan; the targets must be resolved.
func (o *Options) compile() plan {
	p := plan{source: sourceLive, single: !o.many(), follow: o.Wait}
	switch {
	case len(o.Files) > 0:
		p.source = sourceFiles
		p.single = !(o.All || o.AllNamespaces || o.Selector != "") && len(o.refs) <= 1
	case len(o.Manifests) > 0:
		p.source = sourceManifests
	}
	return p
}

// Run reads the plan's targets, walks them and prints the reports. A
// verdict other than healthy is returned as a *VerdictError so main picks
// its exit code.
func (o *Options) Run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if len(o.Files) > 0 {
		t, err := o.readFiles()
		if err != nil {
			return err
		}
		return o.judge(ctx, o.compile(), nil, t)
	}
	client, err := o.NewClient()
	if err != nil {
		return translate(err)
	}
	reader := &kube.Reader{Client: client, Now: o.Now}
	if len(o.Manifests) > 0 {
		err = o.loadRelease()
	} else if err = o.resolveResources(reader); err == nil {
		err = o.resolveLive(ctx, reader)
	}
	if err != nil {
		return err
	}
	p := o.compile()
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	var t *targets
	switch {
	case p.single:
		t, err = o.readOne(ctx, reader)
	case p.follow && o.release == nil && len(o.refs) == 0:
		// Followed from a mirror of the scope, which is also its first read.
		o.changed = make(chan struct{}, 1)
		o.mirror, err = reader.Mirror(ctx, o.scope(), o.Selector, true, o.changed)
		if err == nil {
			t, err = o.targetsOf(o.mirror.Bundle(), o.mirror.Gaps, o.mirror.Requests)
		}
	default:
		t, err = o.readTargets(ctx, reader)
		if err != nil && ctx.Err() != nil {
			return &ExitError{Code: ExitCluster, Err: fmt.Errorf("timed out after %s reading the workloads", o.Timeout)}
		}
	}
	if err != nil {
		return translate(err)
	}
	o.noteUnjudged()
	if err := o.judge(ctx, p, reader, t); err != nil {
		return err
	}
	return o.gateUnjudged()
}

// readOne reads the one target live. A machine reading -o json gets a
// report even for a typo: the stored link broken with DeploymentNotFound
// (or WorkloadNotFound), printed here, and still the not-found code.
func (o *Options) readOne(ctx context.Context, reader *kube.Reader) (*targets, error) {
	ref := o.refs[0]
	snap, err := reader.Read(ctx, o.namespace, ref)
	var nf *kube.NotFoundError
	if errors.As(err, &nf) && o.Output.Format != "text" {
		report := diagnose.Walk(&chain.Snapshot{Kind: ref.Kind, Namespace: o.namespace, Name: ref.Name, Now: o.now(), Requests: 1, Via: o.via[ref]}, o.walkOptions())
		if perr := o.write(one(report), true); perr != nil {
			return nil, perr
		}
	}
	if err != nil {
		return nil, err
	}
	if err := o.readProducers(ctx, reader, snap); err != nil {
		return nil, err
	}
	snap.Via = o.via[ref]
	return &targets{snaps: []*chain.Snapshot{snap}, requests: snap.Requests}, nil
}

// judge walks what was read and emits it, or with --wait follows it until
// each target is healthy or terminally broken, or the timeout.
func (o *Options) judge(ctx context.Context, p plan, reader *kube.Reader, t *targets) error {
	switch {
	case !p.follow:
		now := o.now()
		if p.source == sourceFiles {
			now = time.Time{} // a capture is judged at its own time
		}
		return o.emit(t.walk(now, o.walkOptions()), p.single)
	case p.single:
		return o.runWait(ctx, reader, t.snaps[0])
	}
	return o.followMany(ctx, reader, t)
}
