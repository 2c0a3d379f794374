package diagnose

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// containers: the kubelet on each pod's node started its init containers
// to completion and its containers.
func (w *walker) containers() chain.Link {
	var onNode []*corev1.Pod
	for _, p := range w.pods {
		if p.Spec.NodeName != "" {
			onNode = append(onNode, p)
		}
	}
	if len(onNode) == 0 && len(w.gone) == 0 {
		return notReached(chain.LinkContainers, "no pod on a node")
	}
	c := &collector{}
	running := 0
	for _, p := range onNode {
		pc := podCtx{w: w, c: c, p: p, obj: objectName("pod", p.Name), evs: w.s.EventsFor("Pod", p.Name, p.UID)}
		if pc.podContainers() {
			running++
			continue
		}
		if pc.found == 0 {
			// Not running, and nothing said why (a container status with
			// no state, as partial captures have): still being created,
			// never silently ok.
			pc.add(decode.Decoded{Cause: decode.ContainersCreating, Progressing: true,
				Summary: "containers are not running and no state says why"}, scheduledAt(p), 0,
				chain.Evidence{Source: chain.SourceObjectStatus, Object: pc.obj, Field: "status.phase", Message: string(p.Status.Phase)})
		}
	}
	summary := fmt.Sprintf("%d/%d pods on nodes have all containers running", running, len(onNode))
	of := len(onNode)
	if want := w.wanted(); int32(running) < want && len(w.gone) > 0 || w.evictedAgain() {
		// The replacements of evicted or refused pods do not run (yet),
		// or pods keep being evicted for their own limits: what removed
		// them is the first thing to fix.
		for _, dp := range w.gone {
			c.add(sighting{d: dp.why, object: objectName("pod", dp.pod.Name), since: goneAt(dp.pod), evidence: []chain.Evidence{dp.evidence}})
		}
		of += len(w.gone)
		summary += fmt.Sprintf("; %s evicted or refused by the kubelet", plural(int32(len(w.gone)), "pod"))
	}
	return w.finish(chain.LinkContainers, summary, c, of)
}

// evictedAgain reports pods evicted for exceeding their own limits, at
// least twice in the last recentCrash: their replacements, which run the
// same template, meet the same fate, however healthy they look between
// two evictions.
//
// A pod whose containers exit 0 on the eviction's SIGTERM ends Succeeded
// with no reason: only the kubelet's Evicted event says why, and a busy
// kubelet's events come tens of seconds after the status (the lab's, on a
// loaded machine, 25 s). A pod of the same owner that ended so within
// recentCrash, its event not seen yet, counts beside one such eviction
// that is known: nothing else ends a pod that restarts its containers
// Succeeded without a reason. (w.gone and w.silent hold one owner's pods.)
func (w *walker) evictedAgain() bool {
	recent := func(dp deadPod) bool { return w.s.Now.Sub(goneAt(dp.pod)) < recentCrash }
	n, alike := 0, false
	for _, dp := range w.gone {
		if dp.why.Cause == decode.EphemeralStorageLimitExceeded && recent(dp) {
			n++
			alike = alike || endedWithoutReason(dp.pod)
		}
	}
	if n == 1 && alike {
		for _, dp := range w.silent {
			if recent(dp) {
				n++
			}
		}
	}
	return n >= 2
}

// wanted is how many pods the current ReplicaSet (or the workload) should
// run.
func (w *walker) wanted() int32 {
	if w.want != nil {
		return *w.want
	}
	if w.rs != nil {
		return replicas(w.rs.Spec.Replicas)
	}
	if w.d != nil {
		return replicas(w.d.Spec.Replicas)
	}
	if w.ro != nil {
		return replicas(w.ro.Spec.Replicas)
	}
	return int32(len(w.pods))
}

// goneAt is when an evicted or refused pod stopped: its last container's
// end, else its Ready condition's change, else its start.
func goneAt(p *corev1.Pod) time.Time {
	var t time.Time
	for _, st := range p.Status.ContainerStatuses {
		if tm := st.State.Terminated; tm != nil && tm.FinishedAt.After(t) {
			t = tm.FinishedAt.Time
		}
	}
	if t.IsZero() {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.LastTransitionTime.After(t) {
				t = c.LastTransitionTime.Time
			}
		}
	}
	if t.IsZero() && p.Status.StartTime != nil {
		t = p.Status.StartTime.Time
	}
	return t
}

// podContainers decodes one pod's containers and says whether all run.
func (pc *podCtx) podContainers() bool {
	p := pc.p
	if d, ok := decode.SecurityWords(p.Status.Message); ok && p.Status.Reason != "" {
		// The kubelet would not run the pod (before 1.30 it kept it
		// Pending with reason AppArmor and its containers Blocked).
		pc.add(d, scheduledAt(p), 0, chain.Evidence{Source: chain.SourceObjectStatus, Object: pc.obj, Field: "status.reason",
			Reason: p.Status.Reason, Message: p.Status.Message})
		return false
	}
	for _, st := range p.Status.InitContainerStatuses {
		if t := st.State.Terminated; t != nil && t.ExitCode == 0 {
			continue
		}
		if sidecarUp(p, st) && !pc.sidecarCrashing(st) {
			continue // a native sidecar runs beside the containers
		}
		if isSidecar(p, st.Name) {
			// A native sidecar that is not up is judged as a container
			// is (a crash loop, not an init container that failed):
			// peers that read it as an init container report such pods
			// stuck in Init (argo-rollouts#3714, argo-cd#21047,
			// replicatedhq/troubleshoot#1914).
			pc.sidecar = st.Name
			pc.container(st, true)
			pc.sidecar = ""
			return false
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
	if all && pc.resizePending() {
		return false // running, but with the resources it had (walk_resize.go)
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
	// found counts the findings added for the pod.
	found int
	// sidecar names the native sidecar being judged, so its findings say
	// so and point at its spec.
	sidecar string
}

func (pc *podCtx) add(d decode.Decoded, since time.Time, repeats int32, ev ...chain.Evidence) {
	pc.addSeen(d, since, time.Time{}, repeats, ev...)
}

// addSeen is add with when the evidence last showed it.
func (pc *podCtx) addSeen(d decode.Decoded, since, last time.Time, repeats int32, ev ...chain.Evidence) {
	if since.IsZero() && pc.p.Status.StartTime != nil {
		since = pc.p.Status.StartTime.Time
	}
	if name := pc.sidecar; name != "" {
		d.Summary = strings.Replace(d.Summary, `container "`+name+`"`, `sidecar container "`+name+`"`, 1)
		d.NextStep += "; it is a native sidecar (restartPolicy Always): fix spec.template.spec.initContainers[" + name + "]"
	}
	pc.found++
	pc.c.add(sighting{d: d, object: pc.obj, since: since, last: last, repeats: repeats, evidence: ev})
}

func (pc *podCtx) initContainer(st corev1.ContainerStatus) {
	field := fmt.Sprintf("status.initContainerStatuses[%s]", st.Name)
	switch {
	case st.State.Terminated != nil:
		pc.initFailed(st, *st.State.Terminated, field+".state.terminated")
	case st.State.Waiting != nil && st.State.Waiting.Reason == "CrashLoopBackOff" && st.LastTerminationState.Terminated != nil:
		pc.initFailed(st, *st.LastTerminationState.Terminated, field+".lastState.terminated")
	case st.State.Running != nil && st.RestartCount > 0 && st.LastTerminationState.Terminated != nil &&
		st.LastTerminationState.Terminated.ExitCode != 0 && pc.w.s.Now.Sub(st.LastTerminationState.Terminated.FinishedAt.Time) < recentCrash:
		// Running again between two failures of a crash loop: the last
		// exit, not this run, says what is wrong.
		pc.initFailed(st, *st.LastTerminationState.Terminated, field+".lastState.terminated")
	case st.State.Waiting != nil && st.State.Waiting.Reason == "CrashLoopBackOff":
		// Its last exit is not in the input (a pasted kubectl get pods
		// row says Init:CrashLoopBackOff): an init container is only
		// restarted after it fails (kuberuntime computeInitContainerActions).
		if pc.fromEvents(st, true) {
			return
		}
		pc.add(decode.Decoded{Cause: decode.InitContainerFailed,
			Summary:  fmt.Sprintf("init container %q keeps failing (CrashLoopBackOff); its last exit code is not in the input", st.Name),
			NextStep: fmt.Sprintf("read why it exits: kubectl logs {POD} -c %s --previous, then fix spec.template.spec.initContainers[%s]", st.Name, st.Name)},
			time.Time{}, st.RestartCount, chain.Evidence{Source: chain.SourceContainerState, Object: pc.obj, Field: field + ".state.waiting", Reason: "CrashLoopBackOff"})
	case st.State.Running != nil:
		pc.add(decode.Decoded{Cause: decode.ContainersCreating, Progressing: true,
			Summary: fmt.Sprintf("init container %q is running", st.Name)}, startedAt(st), 0,
			chain.Evidence{Source: chain.SourceContainerState, Object: pc.obj, Field: field + ".state.running", Message: "running"})
	default:
		pc.container(st, true)
	}
}

func (pc *podCtx) initFailed(st corev1.ContainerStatus, t corev1.ContainerStateTerminated, field string) {
	d, ok := decode.InitTermination(st.Name, t)
	if !ok && t.Reason == "Error" && t.ExitCode == 0 {
		// The runtime's word for a non-zero exit whose code the input
		// does not show (a pasted kubectl get pods row says Init:Error).
		d, ok = decode.Decoded{Cause: decode.InitContainerFailed,
			Summary:  fmt.Sprintf("init container %q failed (Error); its exit code is not in the input", st.Name),
			NextStep: fmt.Sprintf("read why it exits: kubectl logs {POD} -c %s --previous, then fix spec.template.spec.initContainers[%s]", st.Name, st.Name)}, true
	}
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
		if t := st.LastTerminationState.Terminated; t != nil && pc.betweenCrashes(st, *t) {
			pc.crashed(st, *t, field+".lastState.terminated")
		} else if pc.probeKills(st, init, recentCrash) || pc.probeRestarts(st, init) {
			return false
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
			} else if pc.fromEvents(st, init, ev) || pc.probeKills(st, init, 0, ev) {
				// The last run's state is gone; the events still say why.
			} else if d, ok := decode.BackOff(wt.Reason, wt.Message); ok {
				pc.add(d, time.Time{}, st.RestartCount, ev)
			}
		default:
			pc.waiting(st, init, wt, ev)
		}
	}
	return false
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
