// Package engine is kubectl chain's one engine under every front: a
// Request (compiled once from the command line's flags, an MCP tool call or
// serve's flags) is resolved into targets, read from the cluster or from
// files, walked, and its reports handed to a Sink (the command line's
// printer, MCP's structured results); with Wait, and for serve, one follow
// loop keeps judging them as the cluster changes. It knows no cobra and no
// output format.
package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/diagnose"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

// Engine runs one Request. Besides the request it holds the run's state:
// the targets as resolved, the release read from the manifests, and what
// a follow keeps between reads.
type Engine struct {
	Request
	notes io.Writer
	sink  Sink

	// targets are what the request names, each resolved in place (a
	// resource's API); refs the workloads they resolve to, in order, each
	// once; via what was named for a workload reached through its pod or
	// ReplicaSet.
	targets []Target
	refs    []chain.Ref
	via     map[chain.Ref]string
	release *release
	// mirror holds a followed selector's, --all's or -A's scope current;
	// changed signals its changes.
	mirror  *kube.Mirror
	changed chan struct{}
	// conn is the followed reader's view of the API server, for a wait.
	conn *kube.Conn
	// producers are the producer kinds the cluster serves, resolved once
	// when a Secret is first found missing.
	producers []chain.APIResource
}

// New is the engine of one request; notes is where it says what the user
// should know beside the reports (standard error on the command line; nil
// discards it).
func New(req Request, notes io.Writer) *Engine {
	if notes == nil {
		notes = io.Discard
	}
	return &Engine{Request: req, notes: notes, targets: slices.Clone(req.Targets)}
}

// Run resolves the request's targets, reads them (from the cluster or the
// files), walks them and hands the reports to sink, following them first
// with Wait. Whatever the sink returns for the reports is returned (the
// command line's *VerdictError for a verdict other than healthy).
func (e *Engine) Run(ctx context.Context, sink Sink) error {
	if ctx == nil {
		ctx = context.Background()
	}
	e.sink = sink
	if len(e.Files) > 0 {
		t, err := e.readFiles()
		if err != nil {
			return err
		}
		return e.judge(ctx, e.compile(), nil, t)
	}
	client, err := e.NewClient()
	if err != nil {
		return Translate(err)
	}
	reader := &kube.Reader{Client: client, Now: e.Now}
	if len(e.Manifests) > 0 {
		err = e.loadRelease()
	} else if err = e.resolveResources(reader); err == nil {
		err = e.resolveLive(ctx, reader)
	}
	if err != nil {
		return err
	}
	p := e.compile()
	ctx, cancel := context.WithTimeout(ctx, e.Timeout)
	defer cancel()
	var t *targets
	switch {
	case p.single:
		t, err = e.readOne(ctx, reader)
	case p.follow && e.release == nil && len(e.refs) == 0:
		// Followed from a mirror of the scope, which is also its first read.
		e.changed = make(chan struct{}, 1)
		e.mirror, err = reader.Mirror(ctx, e.scope(), e.Selector, true, e.changed)
		if err == nil {
			t, err = e.targetsOf(e.mirror.Bundle(), e.mirror.Gaps, e.mirror.Requests)
		}
	default:
		t, err = e.readTargets(ctx, reader)
		if err != nil && ctx.Err() != nil {
			return &ExitError{Code: ExitCluster, Err: fmt.Errorf("timed out after %s reading the workloads", e.Timeout)}
		}
	}
	if err != nil {
		return Translate(err)
	}
	e.noteUnjudged()
	if err := e.judge(ctx, p, reader, t); err != nil {
		return err
	}
	return e.gateUnjudged()
}

// readOne reads the one target live. A machine reading -o json gets a
// report even for a typo: the stored link broken with DeploymentNotFound
// (or WorkloadNotFound), handed to the sink here, and still the not-found
// error.
func (e *Engine) readOne(ctx context.Context, reader *kube.Reader) (*targets, error) {
	ref := e.refs[0]
	snap, err := reader.Read(ctx, e.Namespace, ref)
	var nf *kube.NotFoundError
	if errors.As(err, &nf) {
		report := diagnose.Walk(&chain.Snapshot{Kind: ref.Kind, Namespace: e.Namespace, Name: ref.Name, Now: e.now(), Requests: 1, Via: e.via[ref]}, e.walkOptions())
		if perr := e.sink.NotFound(report); perr != nil {
			return nil, perr
		}
	}
	if err != nil {
		return nil, err
	}
	if err := e.readBeside(ctx, reader, snap, true); err != nil {
		return nil, err
	}
	snap.Via = e.via[ref]
	return &targets{snaps: []*chain.Snapshot{snap}, requests: snap.Requests}, nil
}
