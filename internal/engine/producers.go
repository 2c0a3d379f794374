package engine

import (
	"context"
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/diagnose"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

// readBeside reads what a snapshot's first walk asks for beside it: the
// producers of the Secrets its pods wait for and, with owner, the GitOps
// object that applied a revision that broke. One walk serves both.
func (e *Engine) readBeside(ctx context.Context, reader *kube.Reader, snap *chain.Snapshot, owner bool) error {
	walked := diagnose.Walk(snap, e.walkOptions())
	if err := e.readProducers(ctx, reader, snap, walked); err != nil {
		return err
	}
	if owner {
		e.readApplier(ctx, reader, snap, walked)
	}
	return nil
}

// readProducers looks, when the snapshot's pods wait for Secrets that do
// not exist, for the objects meant to write them (chain.Producers), of the
// kinds the cluster serves as discovery says: no request for a kind whose
// CRD is absent, and none at all when no Secret is missing.
func (e *Engine) readProducers(ctx context.Context, reader *kube.Reader, snap *chain.Snapshot, walked *chain.Report) error {
	secrets := diagnose.MissingSecrets(walked)
	self := selfProducer(snap, walked)
	if self != nil {
		secrets = append(secrets, self.Writes(snap.Object))
	}
	if len(secrets) == 0 {
		return nil
	}
	if e.producers == nil {
		e.producers = e.servedProducers()
	}
	apis := e.producers
	if self != nil {
		// Its own kind and its steps' only: the other producers write
		// nothing a resource waits for.
		apis = slices.DeleteFunc(slices.Clone(apis), func(a chain.APIResource) bool {
			return !(a.Group == self.Group && a.Kind == self.Kind) && !chain.IsStep(a)
		})
	}
	return reader.ReadProduced(ctx, snap, secrets, apis)
}

// selfProducer is the producer kind of a resource walked as itself (a
// Certificate: kubectl chain certificate/NAME) that its first walk did not
// find healthy: read with its attempts and their steps, as the pods
// waiting for its Secret would be, they say at which step it waits; nil
// for anything else.
func selfProducer(snap *chain.Snapshot, walked *chain.Report) *chain.Producer {
	if snap.API == nil || snap.Object == nil || walked.Verdict.Health == chain.Healthy {
		return nil
	}
	p := chain.ProducerOf(*snap.API)
	if p == nil || p.Attempts == nil {
		return nil
	}
	return p
}

// servedProducers are the producer kinds the cluster serves, and the
// kinds of their steps it serves (a CertificateRequest's ACME Order and
// Challenges); none when discovery cannot say.
func (e *Engine) servedProducers() []chain.APIResource {
	out := []chain.APIResource{}
	m, err := e.NewMapper()
	if err != nil {
		return out
	}
	for _, p := range chain.Producers {
		mapping, err := m.RESTMapping(schema.GroupKind{Group: p.Group, Kind: p.Kind})
		if err != nil {
			continue
		}
		out = append(out, apiOf(mapping))
		for _, st := range p.Steps {
			if mapping, err := m.RESTMapping(schema.GroupKind{Group: st.Group, Kind: st.Kind}); err == nil {
				out = append(out, apiOf(mapping))
			}
		}
	}
	return out
}
