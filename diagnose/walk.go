// Package diagnose walks the chain over a snapshot: link by link, from the
// stored object through its controllers and pods to what serves them, it
// gathers the evidence, asks package decode what each condition, state and
// event means, merges the findings and judges the verdict.
package diagnose

import (
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
	"github.com/kubectl-chain/kubectl-chain/internal/health"
)

// DefaultGrace is how long an after-grace cause must last before it is
// terminal: long enough for informer caches and a just-created Secret to
// catch up, short enough for a CI gate to fail well before a progress deadline.
const DefaultGrace = 30 * time.Second

// Options tune the walk.
type Options struct {
	// Grace is how long after-grace causes must persist to be terminal.
	Grace time.Duration
	// Health judges the kinds the chain does not walk itself: the user's
	// own checks over Argo CD's catalogue; nil is the catalogue alone.
	Health *health.Catalogue
	// Unfilled, when set, is told of each next step rendered with fields
	// the walk could not fill (printed as their bare names: "kubectl logs
	// POD"): the fixture tests fail on it.
	Unfilled func(cause chain.CauseID, fields []decode.Field)
}

// walker holds what one walk has learnt so far; each link reads what the
// links before it established, as the components themselves do.
type walker struct {
	s    *chain.Snapshot
	o    Options
	d    *appsv1.Deployment
	ro   *chain.Rollout     // an Argo Rollout, walked as a Deployment
	rs   *appsv1.ReplicaSet // the current ReplicaSet, nil when none
	pods []*corev1.Pod      // the pods judged: the current ReplicaSet's live pods
	// gone are the current ReplicaSet's pods the kubelet evicted or
	// refused: the reason its replacements exist.
	gone []deadPod
	// silent are those of its pods that ended Succeeded with no reason and
	// no Evicted event (yet): see evictedAgain. Both come from one
	// keepLive, of one owner's pods.
	silent []deadPod
	// kills are the judged pods' recent probe kills, once read
	// (recentProbeKills).
	kills *[]probeKill
	// want, when set, is how many pods the workload should run (other
	// kinds than Deployments).
	want *int32
}

// Walk judges every link of the snapshot's chain, in order, and names the
// first one that is broken.
func Walk(s *chain.Snapshot, o Options) *chain.Report {
	if o.Grace == 0 {
		o.Grace = DefaultGrace
	}
	w := &walker{s: s, o: o, d: s.Deployment}
	r := &chain.Report{
		Schema:    chain.SchemaVersion,
		Kind:      s.KindOf(),
		Namespace: s.Namespace,
		Name:      s.Name,
		Time:      s.Now,
		Requests:  s.Requests,
		Via:       s.Via,
		Gaps:      append([]chain.Gap(nil), s.Gaps...),
	}
	if s.IsResource() {
		r.API = s.API
		r.Links = w.resourceLinks()
	} else {
		w.walkKind(r)
	}
	if s.Alone && !s.IsResource() && s.Object != nil {
		r.Links = w.alone(r.Links)
	}
	if !s.IsResource() && !s.Alone && chain.Serves(s.KindOf()) && len(r.Links) < len(chain.ChainOf(s.KindOf())) {
		r.Links = append(r.Links, w.serving())
	}
	w.pullSecretNamed(r.Links)
	w.producedBy(r.Links)
	w.claimedBy(r.Links)
	w.affinityNamed(r.Links)
	w.autoscalerNotes(r.Links)
	afterBroken(r.Links)
	w.viaNote(r.Links)
	w.renderSteps(r.Links)
	r.Verdict = w.verdict(r.Links)
	if r.Verdict.Health == chain.Broken || r.Verdict.Health == chain.Progressing {
		r.Change = whatChanged(s)
	}
	gapNotes(r, s)
	return r
}

// renderSteps renders every finding's next step, once, with what the walk
// knows and the decoders and the catalogue could not: the namespace, the
// object walked, and the pod a finding names first and its node. A field
// nothing filled is printed as its name, as the catalogue prints it.
func (w *walker) renderSteps(links []chain.Link) {
	for i := range links {
		for j := range links[i].Findings {
			f := &links[i].Findings[j]
			fields := w.stepFields(f)
			if u := decode.Unfilled(f.NextStep, fields); len(u) > 0 && w.o.Unfilled != nil {
				w.o.Unfilled(f.Cause, u)
			}
			f.NextStep = decode.Render(f.NextStep, fields)
		}
	}
}

// stepFields are the fields the walk fills in a finding's next step.
func (w *walker) stepFields(f *chain.Finding) decode.Fields {
	fields := decode.Fields{decode.FieldNamespace: w.s.Namespace, decode.FieldName: w.s.Name}
	if len(f.Objects) > 0 && strings.HasPrefix(f.Objects[0], "pod/") {
		// Decoders cannot know the pod or its node; name the first seen.
		pod := strings.TrimPrefix(f.Objects[0], "pod/")
		fields[decode.FieldPod] = pod
		fields[decode.FieldNode] = w.nodeOf(pod)
	}
	return fields
}

// finish turns a link's collected findings into its status: broken when any
// finding is a failure (or a pending state has lasted past the grace),
// progressing when all are progress, ok when there are none.
func (w *walker) finish(id chain.LinkID, summary string, c *collector, of int) chain.Link {
	l := chain.Link{ID: id, Summary: summary, Status: chain.StatusOK}
	if c == nil || c.empty() {
		return l
	}
	l.Findings = c.findings(of)
	for i := range l.Findings {
		f := &l.Findings[i]
		f.Terminal = isTerminal(f, w.s.Now, w.o.Grace)
		if f.Progressing && f.Terminal {
			// A wait that outlived its grace is a failure: the component
			// that should have acted has not.
			f.Progressing = false
		}
	}
	l.Status = chain.StatusProgressing
	for _, f := range l.Findings {
		if !f.Progressing {
			l.Status = chain.StatusBroken
		}
	}
	return l
}

// finishNoted is finish with the link's notes.
func (w *walker) finishNoted(id chain.LinkID, summary string, c *collector, notes []string) chain.Link {
	l := w.finish(id, summary, c, 0)
	l.Notes = append(l.Notes, notes...)
	return l
}

// afterBroken marks the links after the first broken one as not reached:
// nothing downstream of a broken link can be trusted to be the cause. A
// later link that is broken in its own right (on other pods) stays broken,
// so no failure is hidden; what it saw stays in its summary and notes.
func afterBroken(links []chain.Link) {
	broken := false
	for i := range links {
		l := &links[i]
		if broken && l.Status != chain.StatusBroken && l.Status != chain.StatusNotReached {
			summary := "not reached"
			if l.Summary != "" {
				summary += "; " + l.Summary
			}
			*l = chain.Link{ID: l.ID, Status: chain.StatusNotReached, Summary: summary, Notes: l.Notes}
		}
		if l.Status == chain.StatusBroken {
			broken = true
		}
	}
}

func notReached(id chain.LinkID, why string) chain.Link {
	return chain.Link{ID: id, Status: chain.StatusNotReached, Summary: why}
}

// unknown is a link whose evidence could not be read: forbidden by RBAC
// (EvidenceForbidden, with the can-i check) or failed for another reason
// (EvidenceUnavailable), never a finding without a cause.
func unknown(id chain.LinkID, g *chain.Gap) chain.Link {
	msg := fmt.Sprintf("cannot %s %s: %s", g.Verb, g.Resource, g.Message)
	f := chain.Finding{
		Cause:    decode.EvidenceForbidden,
		Summary:  msg,
		NextStep: g.Check,
		Evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: string(g.Resource), Message: g.Message}},
	}
	if !g.Forbidden {
		f.Cause = decode.EvidenceUnavailable
		if g.Check == "" {
			f.NextStep = "retry; if it persists, check the API server"
		}
	}
	return chain.Link{ID: id, Status: chain.StatusUnknown, Summary: msg, Findings: []chain.Finding{f}}
}

func (w *walker) replicaSetSummaries() []chain.ReplicaSetSummary {
	var out []chain.ReplicaSetSummary
	owned := w.s.OwnedReplicaSets()
	// Newest first: the current one leads, old ones follow by age.
	for i := len(owned) - 1; i >= 0; i-- {
		rs := owned[i]
		sum := chain.ReplicaSetSummary{
			Name:      rs.Name,
			Revision:  chain.Revision(rs),
			Current:   w.rs != nil && rs.UID == w.rs.UID,
			Desired:   replicas(rs.Spec.Replicas),
			Replicas:  rs.Status.Replicas,
			Ready:     rs.Status.ReadyReplicas,
			Available: rs.Status.AvailableReplicas,
		}
		if sum.Current {
			out = append([]chain.ReplicaSetSummary{sum}, out...)
			continue
		}
		out = append(out, sum)
	}
	return out
}

func replicas(p *int32) int32 {
	if p == nil {
		return 1
	}
	return *p
}

// nodeOf is the node a pod of the snapshot runs on, "" when unscheduled.
func (w *walker) nodeOf(pod string) string {
	for i := range w.s.Pods {
		if w.s.Pods[i].Name == pod {
			return w.s.Pods[i].Spec.NodeName
		}
	}
	return ""
}
