package paste

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// kubeletAfterStart are the kubelet's events that say a container has
// run: its pod's phase is Running.
var kubeletAfterStart = map[string]bool{"Started": true, "Killing": true, "Unhealthy": true}

// skeletons gives each pod the paste's events are about, and that the
// paste does not describe or list, the little its events show: its name
// and namespace, its node (the scheduler's Scheduled event names it, a
// kubelet's event comes from it), whether a container ran (a Started
// event), and its owner (the ReplicaSet whose SuccessfulCreate event
// created it). Its containers' states are not shown: the walk judges it
// by its events, and a note says which describe to paste.
func (p *parser) skeletons() {
	known := map[string]bool{}
	for _, pt := range p.pods {
		known[pt.pod.Name] = true
	}
	creator := map[string]string{} // pod -> ReplicaSet
	for _, e := range p.events {
		if e.row.kind == "ReplicaSet" && e.row.reason == "SuccessfulCreate" {
			if name, ok := strings.CutPrefix(e.row.message, "Created pod: "); ok {
				creator[strings.TrimSpace(name)] = e.row.name
			}
		}
	}
	for _, e := range p.events {
		r := e.row
		if r.kind != "Pod" || r.name == "" || known[r.name] {
			continue
		}
		known[r.name] = true
		pod := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{Name: r.name, Namespace: r.namespace, UID: UID("Pod", r.namespace, r.name)}}
		pod.Status.Phase = corev1.PodPending
		bound := false
		for _, o := range p.events {
			if o.row.kind != "Pod" || o.row.name != r.name {
				continue
			}
			if m := assignedRe.FindStringSubmatch(o.row.message); m != nil && o.row.reason == "Scheduled" {
				pod.Spec.NodeName = m[3]
			}
			if o.row.source == "kubelet" || kubeletReasons[o.row.reason] || containerEvents[o.row.reason] {
				bound = true
				if pod.Spec.NodeName == "" && o.row.host != "" {
					pod.Spec.NodeName = o.row.host
				}
			}
			if kubeletAfterStart[o.row.reason] {
				pod.Status.Phase = corev1.PodRunning
			}
		}
		pt := &podText{pod: pod, skeleton: true}
		if bound {
			statesFromEvents(pt, p.events)
		}
		if bound && pod.Spec.NodeName == "" {
			pod.Spec.NodeName, pt.nodeUnknown = unknownNode, true
		}
		if rs := creator[r.name]; rs != "" {
			yes := true
			pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs, UID: UID("ReplicaSet", r.namespace, rs), Controller: &yes}}
		}
		p.pods = append(p.pods, pt)
		p.note(fmt.Sprintf("pod/%s is known only by its events: its containers' states are not in the paste; kubectl describe pod %s shows them", r.name, r.name))
	}
}

// kubeletReasons are the kubelet's pod-level event reasons
// (pkg/kubelet/events): it writes them only about pods bound to its node.
var kubeletReasons = map[string]bool{
	"FailedMount": true, "FailedCreatePodSandBox": true, "SandboxChanged": true, "FailedSync": true,
	"NetworkNotReady": true, "FailedKillPod": true, "FailedPodSandBoxStatus": true, "FailedMapVolume": true,
	"SuccessfulMountVolume": true, "FailedAttachVolume": false,
}

// errorWords are the kubelet's "Error: REASON" events (kuberuntime's
// recordContainerEvent): the waiting reason it set on the container.
var errorWords = map[string]bool{
	"ErrImagePull": true, "ImagePullBackOff": true, "InvalidImageName": true, "ErrImageNeverPull": true,
	"CreateContainerConfigError": true, "CreateContainerError": true, "RunContainerError": true,
}

// configErrorRe are the messages of the kubelet's "Error: MESSAGE" events
// when it cannot build a container's config from a Secret or ConfigMap
// (CreateContainerConfigError; kuberuntime generateContainerConfig).
var configErrorRe = regexp.MustCompile(`(?i)^(?:secrets?|configmaps?|config map) "[^"]*" not found|^couldn't find key|^configmap references non-existent|^container has runAsNonRoot`)

// statesFromEvents gives a pod known only by its events the state its
// container's newest state-telling event shows: the kubelet writes
// "Error: ErrImagePull" (and the like) when it sets that waiting reason,
// "Failed to pull image" with ErrImagePull, ErrImageNeverPull with that
// reason, "Back-off pulling image" with ImagePullBackOff, "Back-off
// restarting failed container" with CrashLoopBackOff, and "Error:
// MESSAGE" when the container's config cannot be built; Created and
// Started say it runs, and a Killing "failed liveness probe, will be
// restarted" that it runs again after as many kills (kuberuntime's
// computePodActions). The message is filled later from the same events
// (containersOfEvents).
func statesFromEvents(pt *podText, events []*eventText) {
	pod := pt.pod
	// Each container's newest state-telling event, by the container its
	// fieldPath names ("" when the paste prints none).
	type told struct {
		row    *eventRow
		reason string
		age    time.Duration
	}
	byPath := map[string]*told{}
	var paths []string
	for _, e := range events {
		r := &e.row
		if r.kind != "Pod" || r.name != pod.Name {
			continue
		}
		got := stateWord(*r)
		if got == "" {
			continue
		}
		// The newest says the state now; on a tie, the later row (describe
		// lists oldest first).
		age := time.Duration(math.MaxInt64)
		if r.aged {
			age = r.last
		}
		path := ""
		if pathNameRe.MatchString(r.fieldPath) {
			path = r.fieldPath
		}
		t, ok := byPath[path]
		if !ok {
			t = &told{}
			byPath[path] = t
			paths = append(paths, path)
		}
		if t.reason == "" || age <= t.age {
			t.row, t.reason, t.age = r, got, age
		}
	}
	if len(paths) > 1 && byPath[""] != nil {
		// Rows that name their container beside rows that do not: the
		// latter's container is not known.
		delete(byPath, "")
		paths = slices.DeleteFunc(paths, func(p string) bool { return p == "" })
	}
	ready := true
	for _, path := range paths {
		t := byPath[path]
		name, init := "#1", false
		if m := pathNameRe.FindStringSubmatch(path); m != nil {
			name, init = m[1], strings.HasPrefix(path, "spec.initContainers")
		} else {
			pt.unnamed = true
		}
		st := containerStateOf(name, t.reason, t.row, pod.Name, events)
		ready = ready && st.Ready
		if init {
			pod.Spec.InitContainers = append(pod.Spec.InitContainers, corev1.Container{Name: name})
			pod.Status.InitContainerStatuses = append(pod.Status.InitContainerStatuses, st)
			continue
		}
		pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: name})
		pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, st)
		if st.State.Running != nil || st.State.Waiting.Reason == "CrashLoopBackOff" {
			pod.Status.Phase = corev1.PodRunning
		}
	}
	if pod.Status.Phase == corev1.PodRunning && len(paths) > 0 {
		c := corev1.ConditionFalse
		if ready && len(pod.Status.InitContainerStatuses) == 0 {
			c = corev1.ConditionTrue
		}
		pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: c})
	}
}

// containerStateOf is the status of the container named so whose newest
// state-telling event is r, telling reason.
func containerStateOf(name, reason string, r *eventRow, pod string, events []*eventText) corev1.ContainerStatus {
	st := corev1.ContainerStatus{Name: name}
	switch reason {
	case stateRuns, stateKilled:
		st.State.Running = &corev1.ContainerStateRunning{}
		if reason == stateKilled {
			st.RestartCount = max(r.count, 1)
		}
		// Ready unless a probe failed since it started or it was killed.
		st.Ready = reason == stateRuns && !probeFailedSince(pod, r, events)
	default:
		st.State.Waiting = &corev1.ContainerStateWaiting{Reason: reason}
	}
	return st
}

// The states statesFromEvents gives besides waiting reasons: the
// container runs (Created, Started), or runs again after its liveness
// probe killed it.
const (
	stateRuns   = "(runs)"
	stateKilled = "(killed by its probe)"
)

// livenessKillRe is the kubelet's Killing event for a failed liveness or
// startup probe.
var livenessKillRe = regexp.MustCompile(`failed (?:liveness|startup) probe, will be restarted`)

// stateWord is the state one of the kubelet's events about a container
// tells, "" for none.
func stateWord(r eventRow) string {
	switch {
	case r.reason == "Failed" && strings.HasPrefix(r.message, "Error: "):
		w := strings.TrimPrefix(r.message, "Error: ")
		switch {
		case errorWords[w]:
			return w
		case configErrorRe.MatchString(w):
			return "CreateContainerConfigError"
		}
		return "CreateContainerError"
	case r.reason == "Failed" && strings.HasPrefix(r.message, "Failed to pull image"):
		return "ErrImagePull"
	case r.reason == "ErrImageNeverPull":
		return "ErrImageNeverPull"
	case r.reason == "BackOff" && strings.HasPrefix(r.message, "Back-off pulling image"):
		return "ImagePullBackOff"
	case r.reason == "BackOff" && strings.HasPrefix(r.message, "Back-off restarting failed container"):
		return "CrashLoopBackOff"
	case r.reason == "InspectFailed":
		return "InvalidImageName"
	case r.reason == "Created" || r.reason == "Started":
		return stateRuns
	case r.reason == "Killing" && livenessKillRe.MatchString(r.message):
		return stateKilled
	}
	return ""
}

// probeFailedSince says a readiness probe of the pod failed at or after
// the event that said its container runs.
func probeFailedSince(pod string, since *eventRow, events []*eventText) bool {
	for _, e := range events {
		r := e.row
		if r.kind == "Pod" && r.name == pod && r.reason == "Unhealthy" && (!r.aged || !since.aged || r.last <= since.last) {
			return true
		}
	}
	return false
}
