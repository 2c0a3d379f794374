package diagnose

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// recentCrash is how long ago a container's last termination still counts as
// a crash loop while it runs between restarts.
const recentCrash = 5 * time.Minute

// containers: the kubelet on each pod's node started its init containers
// to completion and its containers.
func (w *walker) containers() chain.Link {
	var onNode []*corev1.Pod
	for _, p := range w.pods {
		if p.Spec.NodeName != "" {
			onNode = append(onNode, p)
		}
	}
	if len(onNode) == 0 {
		return notReached(chain.LinkContainers, "no pod on a node")
	}
	c := &collector{}
	running := 0
	for _, p := range onNode {
		if w.podContainers(c, p) {
			running++
		}
	}
	summary := fmt.Sprintf("%d/%d pods on nodes have all containers running", running, len(onNode))
	return w.finish(chain.LinkContainers, summary, c, len(onNode))
}

// podContainers decodes one pod's containers and says whether all run.
func (w *walker) podContainers(c *collector, p *corev1.Pod) bool {
	pc := podCtx{w: w, c: c, p: p, obj: objectName("pod", p.Name), evs: w.s.EventsFor("Pod", p.Name, p.UID)}
	for _, st := range p.Status.InitContainerStatuses {
		if t := st.State.Terminated; t != nil && t.ExitCode == 0 {
			continue
		}
		pc.initContainer(st)
		return false // later init containers and the containers wait for this one
	}
	if len(p.Status.ContainerStatuses) == 0 {
		pc.creating("")
		return false
	}
	all := true
	for _, st := range p.Status.ContainerStatuses {
		if !pc.container(st, false) {
			all = false
		}
	}
	return all
}

// podCtx is one pod being decoded.
type podCtx struct {
	w   *walker
	c   *collector
	p   *corev1.Pod
	obj string
	evs []chain.Event
}

func (pc *podCtx) add(d Decoded, since time.Time, repeats int32, ev ...chain.Evidence) {
	if since.IsZero() && pc.p.Status.StartTime != nil {
		since = pc.p.Status.StartTime.Time
	}
	pc.c.add(sighting{d: d, object: pc.obj, since: since, repeats: repeats, evidence: ev})
}

func (pc *podCtx) initContainer(st corev1.ContainerStatus) {
	field := fmt.Sprintf("status.initContainerStatuses[%s]", st.Name)
	switch {
	case st.State.Terminated != nil:
		pc.initFailed(st, *st.State.Terminated, field+".state.terminated")
	case st.State.Waiting != nil && st.State.Waiting.Reason == "CrashLoopBackOff" && st.LastTerminationState.Terminated != nil:
		pc.initFailed(st, *st.LastTerminationState.Terminated, field+".lastState.terminated")
	case st.State.Running != nil:
		pc.add(Decoded{Cause: ContainersCreating, Progressing: true,
			Summary: fmt.Sprintf("init container %q is running", st.Name)}, startedAt(st), 0,
			chain.Evidence{Source: chain.SourceContainerState, Object: pc.obj, Field: field + ".state.running", Message: "running"})
	default:
		pc.container(st, true)
	}
}

func (pc *podCtx) initFailed(st corev1.ContainerStatus, t corev1.ContainerStateTerminated, field string) {
	d, ok := InitTermination(st.Name, t)
	if !ok {
		return
	}
	pc.add(d, t.StartedAt.Time, st.RestartCount+1, terminatedEvidence(pc.obj, field, t))
}

// container decodes one container status; it reports whether it runs.
func (pc *podCtx) container(st corev1.ContainerStatus, init bool) bool {
	kind := "containerStatuses"
	if init {
		kind = "initContainerStatuses"
	}
	field := fmt.Sprintf("status.%s[%s]", kind, st.Name)
	switch {
	case st.State.Running != nil:
		t := st.LastTerminationState.Terminated
		if st.RestartCount > 0 && t != nil && !st.Ready && pc.w.s.Now.Sub(t.FinishedAt.Time) < recentCrash {
			// Running right now, between two crashes.
			pc.crashed(st, *t, field+".lastState.terminated")
		}
		return true
	case st.State.Terminated != nil:
		pc.crashed(st, *st.State.Terminated, field+".state.terminated")
	case st.State.Waiting != nil:
		wt := st.State.Waiting
		ev := chain.Evidence{Source: chain.SourceContainerState, Object: pc.obj, Field: field + ".state.waiting", Reason: wt.Reason, Message: wt.Message}
		switch wt.Reason {
		case "ContainerCreating", "PodInitializing", "":
			pc.creating(st.Name)
		case "CrashLoopBackOff":
			if t := st.LastTerminationState.Terminated; t != nil {
				pc.crashed(st, *t, field+".lastState.terminated", ev)
			} else if d, ok := BackOff(wt.Reason, wt.Message); ok {
				pc.add(d, time.Time{}, st.RestartCount, ev)
			}
		default:
			pc.waiting(st.Name, init, wt, ev)
		}
	}
	return false
}

// waiting decodes a waiting reason, then lets the container's events make
// a generic cause specific (an ImagePullBackOff state says less than the
// kubelet's "Failed to pull image" event).
func (pc *podCtx) waiting(name string, init bool, wt *corev1.ContainerStateWaiting, ev chain.Evidence) {
	d, ok := decodeKubelet(wt.Reason, wt.Message)
	if !ok {
		d = Decoded{Cause: ContainerStartFailed, Summary: fmt.Sprintf("container %q waiting: %s %s", name, wt.Reason, wt.Message)}
	}
	evidence := []chain.Evidence{ev}
	var since time.Time
	var repeats int32
	for _, e := range pc.containerEvents(name, init) {
		if e.Type != corev1.EventTypeWarning {
			continue
		}
		ed, ok := decodeKubelet(e.Reason, eventMessage(e))
		if !ok {
			continue
		}
		if ed.Cause == d.Cause || (generic[d.Cause] && !generic[ed.Cause] && family(ed.Cause) == family(d.Cause)) {
			if ed.Cause != d.Cause {
				d = ed
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

// creating explains a container the kubelet has not started: a mount or
// sandbox failure, an image still pulling, or plain progress.
func (pc *podCtx) creating(name string) {
	pulling := map[string]chain.Event{}
	for i := len(pc.evs) - 1; i >= 0; i-- {
		e := pc.evs[i]
		if e.Type == corev1.EventTypeWarning {
			for _, decode := range []func(string, string) (Decoded, bool){Mount, Sandbox} {
				if d, ok := decode(e.Reason, eventMessage(e)); ok {
					since, repeats := pc.repeated(e, d.Cause, decode)
					pc.add(d, since, repeats, eventEvidence(e))
					return
				}
			}
		}
		if e.Reason == "Pulled" {
			pulling[e.FieldPath] = chain.Event{} // a later pull finished
		}
		if e.Reason == "Pulling" {
			if _, done := pulling[e.FieldPath]; !done {
				if d, ok := ImagePull(e.Reason, eventMessage(e)); ok {
					pc.add(d, e.First, 0, eventEvidence(e))
					return
				}
			}
		}
	}
	s := "the kubelet is creating the pod's containers"
	if name != "" {
		s = fmt.Sprintf("container %q is being created", name)
	}
	pc.add(Decoded{Cause: ContainersCreating, Progressing: true, Summary: s}, scheduledAt(pc.p), 0,
		chain.Evidence{Source: chain.SourceObjectStatus, Object: pc.obj, Field: "status.phase", Message: string(pc.p.Status.Phase)})
}

// crashed decodes a container that exited: a failed liveness probe or hook
// that killed it is the cause if the kubelet said so, else the termination.
func (pc *podCtx) crashed(st corev1.ContainerStatus, t corev1.ContainerStateTerminated, field string, extra ...chain.Evidence) {
	ev := append([]chain.Evidence{terminatedEvidence(pc.obj, field, t)}, extra...)
	for _, e := range pc.containerEvents(st.Name, false) {
		if d, ok := Probe(e.Reason, eventMessage(e)); ok && d.Cause != ReadinessProbeFailed {
			pc.add(d, e.First, st.RestartCount, append(ev, eventEvidence(e))...)
			return
		}
		if d, ok := Hook(e.Reason, eventMessage(e)); ok {
			pc.add(d, e.First, st.RestartCount, append(ev, eventEvidence(e))...)
			return
		}
	}
	if t.Reason == "StartError" || t.Reason == "ContainerCannotRun" {
		if d, ok := ContainerStart(t.Reason, t.Message); ok {
			pc.add(d, t.StartedAt.Time, st.RestartCount+1, ev...)
			return
		}
	}
	pc.add(Termination(st.Name, t), t.StartedAt.Time, st.RestartCount, ev...)
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

// decodeKubelet tries the kubelet decoders for a waiting reason or an event.
func decodeKubelet(reason, message string) (Decoded, bool) {
	for _, dec := range []func(string, string) (Decoded, bool){ImagePull, ContainerConfig, ContainerStart, Sandbox, Mount} {
		if d, ok := dec(reason, message); ok {
			return d, true
		}
	}
	return Decoded{}, false
}

// generic causes are the catch-alls of a family, which a more specific
// message about the same container may replace.
var generic = map[chain.CauseID]bool{ImagePullFailed: true, ContainerConfigError: true, CreateContainerError: true, ContainerStartFailed: true}

func family(id chain.CauseID) string {
	switch id {
	case ImageNotFound, ImagePullUnauthorized, RegistryUnreachable, ImagePullRateLimited, InvalidImageName, ImageNeverPulled, ImagePullFailed:
		return "image"
	case ConfigMapNotFound, SecretNotFound, ConfigKeyNotFound, RunAsNonRootViolation, ContainerConfigError:
		return "config"
	case ExecutableNotFound, ExecFormatError, CreateContainerError, ContainerStartFailed:
		return "start"
	}
	return string(id)
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

func startedAt(st corev1.ContainerStatus) time.Time {
	if st.State.Running != nil {
		return st.State.Running.StartedAt.Time
	}
	return time.Time{}
}

func scheduledAt(p *corev1.Pod) time.Time {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionTrue {
			return c.LastTransitionTime.Time
		}
	}
	return p.CreationTimestamp.Time
}
