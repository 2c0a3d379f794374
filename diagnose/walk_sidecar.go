package diagnose

import corev1 "k8s.io/api/core/v1"

// isSidecar says the init container named is a native sidecar
// (restartPolicy Always, KEP-753, on by default since 1.29).
func isSidecar(p *corev1.Pod, name string) bool {
	for _, c := range p.Spec.InitContainers {
		if c.Name == name {
			return c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
		}
	}
	return false
}

// sidecarUp says an init container is a native sidecar (restartPolicy
// Always) that has done what the kubelet waits for before starting the
// next one: started, and Ready when it has a readiness probe. It keeps
// running for the pod's life, so "running" is its success.
func sidecarUp(p *corev1.Pod, st corev1.ContainerStatus) bool {
	for _, c := range p.Spec.InitContainers {
		if c.Name != st.Name {
			continue
		}
		if c.RestartPolicy == nil || *c.RestartPolicy != corev1.ContainerRestartPolicyAlways {
			return false
		}
		return st.State.Running != nil && st.Started != nil && *st.Started && (c.ReadinessProbe == nil || st.Ready)
	}
	return false
}

// sidecarCrashing says a native sidecar that runs is between two crashes
// of a loop: running again, its last run ended in failure moments ago.
func (pc *podCtx) sidecarCrashing(st corev1.ContainerStatus) bool {
	t := st.LastTerminationState.Terminated
	return t != nil && pc.betweenCrashes(st, *t)
}
