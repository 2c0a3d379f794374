package diagnose

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// Event reasons of the prober and the kill it causes
// (pkg/kubelet/events/event.go).
const (
	reasonUnhealthy = "Unhealthy"
	reasonKilling   = "Killing"
)

// recentCrash is how long ago a container's last termination still counts as
// a crash loop while it runs between restarts.
const recentCrash = 5 * time.Minute

// betweenCrashes says a running container is in a crash loop caught
// between two crashes: it restarted at least twice, its last termination
// and its current start are both recent. Readiness cannot tell (a
// container with no readiness probe is Ready the moment it starts).
func (pc *podCtx) betweenCrashes(st corev1.ContainerStatus, t corev1.ContainerStateTerminated) bool {
	now := pc.w.s.Now
	return st.RestartCount >= 2 &&
		now.Sub(st.State.Running.StartedAt.Time) < recentCrash &&
		now.Sub(t.FinishedAt.Time) < recentCrash
}

// crashed decodes a container that exited: a failed liveness probe or hook
// that killed it is the cause if the kubelet said so, else the termination.
func (pc *podCtx) crashed(st corev1.ContainerStatus, t corev1.ContainerStateTerminated, field string, extra ...chain.Evidence) {
	ev := append([]chain.Evidence{terminatedEvidence(pc.obj, field, t)}, extra...)
	events := pc.containerEvents(st.Name, false)
	for _, e := range events {
		if !duringRun(e, t) {
			continue // about an earlier run: it did not end this one
		}
		if d, ok := decode.Probe(e.Reason, eventMessage(e)); ok && d.Cause != decode.ReadinessProbeFailed {
			pc.add(d, e.First, st.RestartCount, append(ev, eventEvidence(e))...)
			return
		}
		if d, ok := decode.Hook(e.Reason, eventMessage(e)); ok {
			pc.add(d, e.First, st.RestartCount, append(ev, eventEvidence(e))...)
			return
		}
	}
	// Stopped by the kubelet (SIGKILL or SIGTERM, not the OOM killer; a
	// program that exits 0 on SIGTERM says Completed) with no event about
	// this run yet: events reach the API server after the status, so a
	// kill seconds ago may not have its Unhealthy, Killing or hook event
	// yet. A probe or hook that failed the earlier runs, twice or more,
	// ended this one. A failing hook's event quotes the command's output,
	// so each failure may be an event of its own: their counts add up.
	if killedBySignal(t) || t.ExitCode == 0 {
		var last *chain.Event
		var d decode.Decoded
		n := int32(0)
		for i, e := range events {
			ed, ok := decode.Probe(e.Reason, eventMessage(e))
			if !ok || ed.Cause == decode.ReadinessProbeFailed {
				ed, ok = decode.Hook(e.Reason, eventMessage(e))
			}
			if ok {
				last, d, n = &events[i], ed, n+max(e.Count, 1)
			}
		}
		if n > 1 {
			pc.add(d, last.First, st.RestartCount, append(ev, eventEvidence(*last))...)
			return
		}
		if pc.siblingProbeKills(st, ev) {
			return
		}
	}
	if t.Reason == "StartError" || t.Reason == "ContainerCannotRun" {
		if d, ok := decode.ContainerStart(t.Reason, t.Message); ok && !isGeneric(d.Cause) {
			pc.add(d, t.StartedAt.Time, st.RestartCount+1, ev...)
			return
		}
	}
	d := decode.Termination(st.Name, t)
	if !decode.Strong(d.Cause) && pc.fromEvents(st, false, ev...) {
		return
	}
	pc.add(d, t.StartedAt.Time, st.RestartCount, ev...)
}

// siblingProbeKills names a liveness (or startup) probe as what stopped a
// container whose own pod has no event about it yet, when the same
// container of another pod judged with it (the same image and the same
// probe) was killed by that probe at least twice within recentCrash. A
// busy kubelet writes its events seconds after the status (the lab's, on a
// loaded machine, 25 s late): one pod's kills can be in while the next
// pod's are not, and the exit code alone (0, or a SIGTERM the program did
// not handle) would read as a program that finished or crashed. A
// program that restarts often enough for its probe to kill it twice does
// not end that way by itself on its sibling. The sibling's Killing event
// is the evidence.
func (pc *podCtx) siblingProbeKills(st corev1.ContainerStatus, ev []chain.Evidence) bool {
	mine := specContainer(pc.p, st.Name)
	if mine == nil {
		return false
	}
	path := fmt.Sprintf("spec.containers{%s}", st.Name)
	for _, k := range pc.w.recentProbeKills() {
		theirs := specContainer(k.pod, st.Name)
		if k.pod == pc.p || k.e.FieldPath != path || theirs == nil || theirs.Image != mine.Image {
			continue
		}
		probe, theirProbe := mine.LivenessProbe, theirs.LivenessProbe
		if k.d.Cause == decode.StartupProbeFailed {
			probe, theirProbe = mine.StartupProbe, theirs.StartupProbe
		}
		if probe != nil && equality.Semantic.DeepEqual(probe, theirProbe) {
			pc.add(k.d, k.e.First, st.RestartCount, append(ev, eventEvidence(k.e))...)
			return true
		}
	}
	return false
}

// probeKill is a judged pod's Killing event for a failed liveness or
// startup probe, decoded.
type probeKill struct {
	pod *corev1.Pod
	e   chain.Event
	d   decode.Decoded
}

// recentProbeKills are the judged pods' probe kills seen at least twice,
// the last within recentCrash; read once per walk, when a container first
// asks (each pod's events are a scan of the snapshot's).
func (w *walker) recentProbeKills() []probeKill {
	if w.kills != nil {
		return *w.kills
	}
	var kills []probeKill
	for _, p := range w.pods {
		for _, e := range w.s.EventsFor("Pod", p.Name, p.UID) {
			if e.Reason != reasonKilling || e.Count < 2 || w.s.Now.Sub(e.Last) > recentCrash {
				continue
			}
			if d, ok := decode.Probe(e.Reason, eventMessage(e)); ok {
				kills = append(kills, probeKill{pod: p, e: e, d: d})
			}
		}
	}
	w.kills = &kills
	return kills
}

// specContainer is the pod's container spec of that name; nil when the
// input has none (a partial capture).
func specContainer(p *corev1.Pod, name string) *corev1.Container {
	for i := range p.Spec.Containers {
		if p.Spec.Containers[i].Name == name {
			return &p.Spec.Containers[i]
		}
	}
	return nil
}

// fromEvents names why a container keeps exiting (or failed to start)
// when its state says only that it does: the kubelet's own Failed or hook
// event about the container may name the runtime's error or the hook. It
// adds the finding and reports whether it found one.
func (pc *podCtx) fromEvents(st corev1.ContainerStatus, init bool, ev ...chain.Evidence) bool {
	for _, e := range pc.containerEvents(st.Name, init) {
		if e.Type != corev1.EventTypeWarning {
			continue
		}
		// Only the start errors and hooks: an older image or mount
		// failure that was overcome did not make it exit.
		ed, ok := decode.ContainerStart(e.Reason, eventMessage(e))
		if !ok || !decode.Strong(ed.Cause) {
			ed, ok = decode.Hook(e.Reason, eventMessage(e))
		}
		if ok {
			pc.add(ed, e.First, st.RestartCount+1, append(ev, eventEvidence(e))...)
			return true
		}
	}
	return false
}

// probeKills says a running container is being restarted by its liveness
// (or startup) probe: the kubelet's Killing event "failed liveness probe,
// will be restarted" more than once and within the last `within` (any
// time when 0), even when the capture caught it between two restarts with
// its last state gone. A container backing off with no last state in the
// input (a pasted describe's Events, a pod known only by them) takes
// kills of any age: they are the only restarts the input explains.
func (pc *podCtx) probeKills(st corev1.ContainerStatus, init bool, within time.Duration, extra ...chain.Evidence) bool {
	for _, e := range pc.containerEvents(st.Name, init) {
		d, ok := decode.Probe(e.Reason, eventMessage(e))
		if !ok || e.Reason != reasonKilling || e.Count < 2 || within > 0 && pc.w.s.Now.Sub(e.Last) > within {
			continue
		}
		ev := append(slices.Clone(extra), eventEvidence(e))
		for _, u := range pc.containerEvents(st.Name, init) {
			if pd, ok := decode.Probe(u.Reason, eventMessage(u)); ok && u.Reason == reasonUnhealthy && pd.Cause == d.Cause {
				d = pd
				ev = append(ev, eventEvidence(u))
				break
			}
		}
		pc.add(d, e.First, e.Count, ev...)
		return true
	}
	return false
}

// probeRestarts says a running container was restarted by its liveness
// (or startup) probe when the input kept no last state to say why it
// restarted (a pasted kubectl get pods row, a pod known only by its
// events): the kubelet restarts a container whose liveness probe fails
// (kuberuntime computePodActions), and the prober's Unhealthy event,
// repeated, says it failed. A live pod keeps its last state, which
// crashed reads instead.
func (pc *podCtx) probeRestarts(st corev1.ContainerStatus, init bool) bool {
	if st.RestartCount == 0 || st.LastTerminationState.Terminated != nil {
		return false
	}
	events := pc.containerEvents(st.Name, init)
	for _, e := range events {
		d, ok := decode.Probe(e.Reason, eventMessage(e))
		if !ok || e.Reason != reasonUnhealthy || e.Count < 2 || d.Cause != decode.LivenessProbeFailed && d.Cause != decode.StartupProbeFailed {
			continue
		}
		ev := []chain.Evidence{eventEvidence(e)}
		for _, k := range events {
			if kd, ok := decode.Probe(k.Reason, eventMessage(k)); ok && k.Reason == reasonKilling && kd.Cause == d.Cause {
				ev = append(ev, eventEvidence(k))
				break
			}
		}
		pc.add(d, e.First, st.RestartCount, ev...)
		return true
	}
	return false
}

// killedBySignal says a run ended by SIGKILL or SIGTERM (exit 137 or 143)
// from outside the container: the kubelet stopping it, not the OOM killer.
func killedBySignal(t corev1.ContainerStateTerminated) bool {
	return (t.ExitCode == 137 || t.ExitCode == 143) && t.Reason != "OOMKilled"
}

// eventSlack absorbs clock skew between the kubelet's event times and the
// runtime's container times.
const eventSlack = 5 * time.Second

// duringRun says an event could be about the run that ended in t: it
// happened between the run's start and its end, give or take eventSlack.
// An aggregated event spans many runs, so its whole span [First, Last] is
// matched, not its Last alone: a liveness failure that kept recurring
// overlaps the run, one that stopped before the run began does not. A
// termination without a finish time (a partial capture) cannot rule any
// event out.
func duringRun(e chain.Event, t corev1.ContainerStateTerminated) bool {
	if t.FinishedAt.IsZero() {
		return true
	}
	end := t.FinishedAt.Add(eventSlack)
	start := t.FinishedAt.Time
	if !t.StartedAt.IsZero() {
		start = t.StartedAt.Time
	}
	start = start.Add(-eventSlack)
	first := e.First
	if first.IsZero() || first.After(e.Last) {
		first = e.Last
	}
	return !e.Last.Before(start) && !first.After(end)
}

func terminatedEvidence(obj, field string, t corev1.ContainerStateTerminated) chain.Evidence {
	msg := fmt.Sprintf("exit code %d", t.ExitCode)
	if t.Signal != 0 {
		msg += fmt.Sprintf(", signal %d", t.Signal)
	}
	if t.Message != "" {
		msg += ": " + strings.TrimSpace(t.Message)
	}
	return chain.Evidence{Source: chain.SourceContainerState, Object: obj, Field: field, Reason: t.Reason, Message: msg, Last: t.FinishedAt.Time}
}
