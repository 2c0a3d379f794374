package kubelet

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Condition reasons and messages of pkg/kubelet/status/generate.go and
// pkg/kubelet/types/constants.go (v1.37.2).
const (
	reasonContainersNotReady       = "ContainersNotReady"
	msgUnreadyContainers           = "containers with unready status: %s"
	reasonContainersNotInitialized = "ContainersNotInitialized"
	msgIncompleteContainers        = "containers with incomplete status: %s"
	reasonSandboxNotReady          = "PodSandboxNotReady"
	msgNoPodSandbox                = "no pod sandbox exists"
	// pkg/kubelet/kubelet_pods.go
	reasonContainerCreating = "ContainerCreating"
	reasonPodInitializing   = "PodInitializing"
	// containerd v2.4.2 internal/cri/server/helpers.go: completeExitReason,
	// the reason of a container that exited 0.
	reasonCompleted = "Completed"
)

// podStatus is the status the kubelet writes for pod given the runtime's
// record: the generateAPIPodStatus of pkg/kubelet/kubelet_pods.go reduced to
// what the simulated runtime knows. Fields the kubelet does not own (other
// components' conditions, nominatedNodeName, qosClass) are kept from old.
func podStatus(pod *corev1.Pod, rec *podRecord, hostIP string, now time.Time) corev1.PodStatus {
	s := *pod.Status.DeepCopy()
	gen := pod.Generation
	s.ObservedGeneration = gen
	s.HostIP = hostIP
	s.HostIPs = []corev1.HostIP{{IP: hostIP}}
	if s.StartTime == nil {
		s.StartTime = ptr.To(metav1.NewTime(rec.startTime))
	}
	if rec.ip != "" {
		s.PodIP = rec.ip
		s.PodIPs = []corev1.PodIP{{IP: rec.ip}}
	}
	waiting := reasonContainerCreating
	if len(rec.initContainers) > 0 {
		waiting = reasonPodInitializing
	}
	s.InitContainerStatuses = containerStatuses(pod, pod.Spec.InitContainers, rec.initContainers, waiting)
	s.ContainerStatuses = containerStatuses(pod, pod.Spec.Containers, rec.containers, waiting)
	s.Phase = podPhase(rec)
	want := []corev1.PodCondition{
		sandboxCondition(rec, gen),
		initializedCondition(rec, gen),
		readyCondition(rec, gen, corev1.PodReady),
		readyCondition(rec, gen, corev1.ContainersReady),
		condition(corev1.PodScheduled, gen, corev1.ConditionTrue, "", ""),
	}
	if rec.terminal {
		s.Phase = terminalPhase(rec)
		want = terminalConditions(rec, gen, s.Phase, want)
		if s.Phase == corev1.PodFailed && rec.evicted != "" {
			// The eviction's reason and message stay with the phase it
			// set, Failed (kubelet_pods.go generateAPIPodStatus).
			s.Reason, s.Message = reasonEvicted, rec.evicted
		}
	}
	s.Conditions = mergeConditions(pod.Status.Conditions, want, now)
	return s
}

func sandboxCondition(rec *podRecord, gen int64) corev1.PodCondition {
	if !rec.sandboxReady {
		return condition(corev1.PodReadyToStartContainers, gen, corev1.ConditionFalse, reasonSandboxNotReady, msgNoPodSandbox)
	}
	return condition(corev1.PodReadyToStartContainers, gen, corev1.ConditionTrue, "", "")
}

func initializedCondition(rec *podRecord, gen int64) corev1.PodCondition {
	var incomplete []string
	for _, c := range rec.initContainers {
		if !c.initialized() {
			incomplete = append(incomplete, c.name)
		}
	}
	if len(incomplete) == 0 {
		return condition(corev1.PodInitialized, gen, corev1.ConditionTrue, "", "")
	}
	return condition(corev1.PodInitialized, gen, corev1.ConditionFalse, reasonContainersNotInitialized, fmt.Sprintf(msgIncompleteContainers, incomplete))
}

// readyCondition is Ready or ContainersReady: they agree when there are no
// readiness gates, which the lab does not evaluate.
func readyCondition(rec *podRecord, gen int64, t corev1.PodConditionType) corev1.PodCondition {
	var unready []string
	for _, c := range rec.readyCandidates() {
		if !c.ready {
			unready = append(unready, c.name)
		}
	}
	if len(unready) == 0 {
		return condition(t, gen, corev1.ConditionTrue, "", "")
	}
	return condition(t, gen, corev1.ConditionFalse, reasonContainersNotReady, fmt.Sprintf(msgUnreadyContainers, unready))
}

func condition(t corev1.PodConditionType, gen int64, st corev1.ConditionStatus, reason, msg string) corev1.PodCondition {
	return corev1.PodCondition{Type: t, ObservedGeneration: gen, Status: st, Reason: reason, Message: msg}
}

// mergeConditions keeps conditions the kubelet does not own in their place,
// then the kubelet's in its order, carrying lastTransitionTime over when a
// condition's status did not change.
func mergeConditions(old, want []corev1.PodCondition, now time.Time) []corev1.PodCondition {
	owned := map[corev1.PodConditionType]bool{}
	for _, c := range want {
		owned[c.Type] = true
	}
	var out []corev1.PodCondition
	prev := map[corev1.PodConditionType]corev1.PodCondition{}
	for _, c := range old {
		if owned[c.Type] {
			prev[c.Type] = c
			continue
		}
		out = append(out, c)
	}
	for _, c := range want {
		c.LastTransitionTime = metav1.NewTime(now)
		if p, ok := prev[c.Type]; ok && p.Status == c.Status {
			c.LastTransitionTime = p.LastTransitionTime
			c.LastProbeTime = p.LastProbeTime
		}
		out = append(out, c)
	}
	return out
}

// podPhase is the kubelet's getPhase for a pod that is not terminal (a pod
// whose containers finished for good is, see checkFinished): Pending
// while init containers are not done or a container waits that never ran,
// else Running (a container that ran and waits to restart counts as
// stopped, not waiting).
func podPhase(rec *podRecord) corev1.PodPhase {
	if !rec.initialized() {
		return corev1.PodPending
	}
	for _, c := range rec.containers {
		if c.phase == containerWaiting && c.last == nil {
			return corev1.PodPending
		}
	}
	return corev1.PodRunning
}

// containerStatuses reports every container of specs, in spec order;
// containers not created yet wait with reason waiting.
func containerStatuses(pod *corev1.Pod, specs []corev1.Container, recs []*containerRecord, waiting string) []corev1.ContainerStatus {
	if len(recs) == 0 {
		return nil
	}
	out := make([]corev1.ContainerStatus, 0, len(recs))
	for i, c := range recs {
		spec := &specs[i]
		cs := corev1.ContainerStatus{
			Name:    c.name,
			Image:   c.image,
			ImageID: c.imageID,
			Ready:   c.ready,
			Started: ptr.To(c.started),
		}
		cs.RestartCount = c.restartCount()
		cs.LastTerminationState.Terminated = c.last
		switch c.phase {
		case containerRunning:
			cs.ContainerID = c.id
			cs.State.Running = &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(c.startedAt)}
		case containerExited:
			cs.ContainerID = c.id
			cs.State.Terminated = c.terminated()
		default:
			cs.ContainerID = c.id
			cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: waiting}
			if c.waitReason != "" {
				cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: c.waitReason, Message: c.waitMessage}
			}
		}
		if c.instances > 0 || c.phase != containerWaiting {
			cs.VolumeMounts = volumeMountStatuses(spec)
			cs.User = containerUser(pod, spec)
			if len(spec.Resources.Requests) > 0 || len(spec.Resources.Limits) > 0 {
				cs.Resources = spec.Resources.DeepCopy()
			}
		}
		out = append(out, cs)
	}
	return out
}

// volumeMountStatuses mirrors the spec's mounts, as the kubelet reports them
// from the runtime once the container exists.
func volumeMountStatuses(c *corev1.Container) []corev1.VolumeMountStatus {
	if len(c.VolumeMounts) == 0 {
		return nil
	}
	out := make([]corev1.VolumeMountStatus, 0, len(c.VolumeMounts))
	for _, m := range c.VolumeMounts {
		ms := corev1.VolumeMountStatus{Name: m.Name, MountPath: m.MountPath, ReadOnly: m.ReadOnly}
		if m.ReadOnly {
			ms.RecursiveReadOnly = ptr.To(corev1.RecursiveReadOnlyDisabled)
		}
		out = append(out, ms)
	}
	return out
}

// containerUser is the identity the process runs with: the security
// context's runAsUser and runAsGroup, else root, plus the pod's supplemental
// groups and fsGroup, as the runtime reports it under SupplementalGroupsPolicy.
func containerUser(pod *corev1.Pod, c *corev1.Container) *corev1.ContainerUser {
	var uid, gid int64
	groups := []int64{}
	if psc := pod.Spec.SecurityContext; psc != nil {
		if psc.RunAsUser != nil {
			uid = *psc.RunAsUser
		}
		if psc.RunAsGroup != nil {
			gid = *psc.RunAsGroup
		}
	}
	if sc := c.SecurityContext; sc != nil {
		if sc.RunAsUser != nil {
			uid = *sc.RunAsUser
		}
		if sc.RunAsGroup != nil {
			gid = *sc.RunAsGroup
		}
	}
	groups = append(groups, gid)
	if psc := pod.Spec.SecurityContext; psc != nil {
		if psc.FSGroup != nil {
			groups = append(groups, *psc.FSGroup)
		}
		groups = append(groups, psc.SupplementalGroups...)
	}
	return &corev1.ContainerUser{Linux: &corev1.LinuxContainerUser{UID: uid, GID: gid, SupplementalGroups: groups}}
}

// normalizeStatus truncates the status's times to whole seconds, as they
// come back from the API server, so that a status compares equal to its
// stored copy: the normalizeStatus of pkg/kubelet/status/status_manager.go.
func normalizeStatus(s *corev1.PodStatus) {
	second := func(t *metav1.Time) {
		if t != nil && !t.IsZero() {
			*t = t.Rfc3339Copy()
		}
	}
	// A copy: a terminated state may be the runtime record's own.
	terminated := func(t **corev1.ContainerStateTerminated) {
		if *t != nil {
			c := **t
			second(&c.StartedAt)
			second(&c.FinishedAt)
			*t = &c
		}
	}
	second(s.StartTime)
	for i := range s.Conditions {
		second(&s.Conditions[i].LastProbeTime)
		second(&s.Conditions[i].LastTransitionTime)
	}
	for _, list := range [][]corev1.ContainerStatus{s.InitContainerStatuses, s.ContainerStatuses, s.EphemeralContainerStatuses} {
		for i := range list {
			cs := &list[i]
			if cs.State.Running != nil {
				second(&cs.State.Running.StartedAt)
			}
			terminated(&cs.State.Terminated)
			terminated(&cs.LastTerminationState.Terminated)
		}
	}
}
