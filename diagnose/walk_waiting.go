package diagnose

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// waiting decodes a waiting reason, then lets the container's events make
// a generic cause specific (an ImagePullBackOff state says less than the
// kubelet's "Failed to pull image" event).
func (pc *podCtx) waiting(st corev1.ContainerStatus, init bool, wt *corev1.ContainerStateWaiting, ev chain.Evidence) {
	name := st.Name
	d, ok := decode.Waiting(wt.Reason, wt.Message)
	if !ok {
		d, ok = decode.ReasonWord(wt.Reason)
	}
	if !ok {
		d = decode.Decoded{Cause: decode.ContainerStartFailed, Summary: fmt.Sprintf("container %q waiting: %s %s", name, wt.Reason, wt.Message)}
	}
	evidence := []chain.Evidence{ev}
	if t := st.LastTerminationState.Terminated; t != nil && !decode.Strong(d.Cause) && wt.Message == "" {
		// A waiting reason without words (RunContainerError after a
		// failed start) repeats what the last run's termination says.
		if td := decode.Termination(name, *t); decode.Stronger(td.Cause, d.Cause) {
			d = td
			evidence = append(evidence, terminatedEvidence(pc.obj, fmt.Sprintf("status.containerStatuses[%s].lastState.terminated", name), *t))
		}
	}
	var since time.Time
	var repeats int32
	// Docker's "repository does not exist or may require 'docker login'"
	// is either cause; the kubelet's "unauthorized" about the same
	// container says which.
	ambiguous := d.Cause == decode.ImageNotFound && decode.PullAmbiguous(wt.Message)
	for _, e := range pc.containerEvents(name, init) {
		if e.Type != corev1.EventTypeWarning {
			continue
		}
		ed, ok := decode.Waiting(e.Reason, eventMessage(e))
		if !ok {
			continue
		}
		settles := ambiguous && ed.Cause == decode.ImagePullUnauthorized
		if ed.Cause == d.Cause || settles || (isGeneric(d.Cause) && !isGeneric(ed.Cause) && family(ed.Cause) == family(d.Cause)) {
			if ed.Cause != d.Cause {
				d = ed
				ambiguous = d.Cause == decode.ImageNotFound && decode.PullAmbiguous(eventMessage(e))
			}
			evidence = append(evidence, eventEvidence(e))
			if e.Count > repeats {
				repeats = e.Count
			}
			if since.IsZero() || e.First.Before(since) {
				since = e.First
			}
		}
	}
	pc.add(d, since, repeats, evidence...)
}

// kubeletProgress are the kubelet's Normal events that come only after
// the pod's sandbox and volumes are ready (pkg/kubelet/events/event.go).
var kubeletProgress = map[string]bool{"Pulling": true, "Pulled": true, "Created": true, "Started": true}

// creating explains a container the kubelet has not started: a mount or
// sandbox failure, an image still pulling, or plain progress.
func (pc *podCtx) creating(name string) {
	pulling := map[string]chain.Event{}
	movedOn := false    // a newer event shows the kubelet got past mounts and sandbox
	var timedOut func() // a mount that timed out, named if nothing says more
	for i := len(pc.evs) - 1; i >= 0; i-- {
		e := pc.evs[i]
		if e.Type == corev1.EventTypeWarning && !movedOn {
			for _, dec := range decode.CreatingDecoders() {
				if d, ok := dec(e.Reason, eventMessage(e)); ok {
					since, last, repeats := pc.repeated(e, d.Cause, dec)
					if decode.Weak(d.Cause) {
						// The kubelet's give-up names no cause; the
						// volume's own error, if any, is older.
						if timedOut == nil {
							timedOut = func() { pc.addSeen(d, since, last, repeats, eventEvidence(e)) }
						}
						continue
					}
					pc.addSeen(d, since, last, repeats, eventEvidence(e))
					return
				}
			}
		}
		if e.Reason == "Pulled" {
			pulling[e.FieldPath] = chain.Event{} // a later pull finished
		}
		if e.Reason == "Pulling" {
			if _, done := pulling[e.FieldPath]; !done {
				if d, ok := decode.ImagePull(e.Reason, eventMessage(e)); ok {
					pc.add(d, e.First, 0, eventEvidence(e))
					return
				}
			}
		}
		if e.Type == corev1.EventTypeNormal && kubeletProgress[e.Reason] {
			// Older mount or sandbox warnings are history.
			movedOn = true
		}
	}
	if timedOut != nil {
		timedOut()
		return
	}
	s := "the kubelet is creating the pod's containers"
	if name != "" {
		s = fmt.Sprintf("container %q is being created", name)
	}
	pc.add(decode.Decoded{Cause: decode.ContainersCreating, Progressing: true, Summary: s}, scheduledAt(pc.p), 0,
		chain.Evidence{Source: chain.SourceObjectStatus, Object: pc.obj, Field: "status.phase", Message: string(pc.p.Status.Phase)})
}

// containerEvents returns the pod's events about one container, newest first.
func (pc *podCtx) containerEvents(name string, init bool) []chain.Event {
	path := fmt.Sprintf("spec.containers{%s}", name)
	if init {
		path = fmt.Sprintf("spec.initContainers{%s}", name)
	}
	var out []chain.Event
	for i := len(pc.evs) - 1; i >= 0; i-- {
		if pc.evs[i].FieldPath == path {
			out = append(out, pc.evs[i])
		}
	}
	return out
}
