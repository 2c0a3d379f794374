package main

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
)

func configMapMissing() *G {
	t := webTemplate(webImage)
	t.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: "web-config"}}}}
	g, rs := fresh("configmap-missing", day(18, 10, 0), t, 3)
	now := m + 58*s
	for n := 1; n <= 3; n++ {
		p := g.pod(rs, 0, n)
		g.createdPod(rs, p, 0)
		g.assigned(p, 0)
		c := p.Spec.Containers[0]
		g.onNode(p, 0)
		g.podIP(p)
		g.notReadyConds(p, 0, true, c.Name)
		g.kev(p, c.Name, "Normal", "Pulled", present(c.Image), s, now, 10)
		// kuberuntime_container.go "Error: %v" around the configmap manager's
		// NotFound (apimachinery errors.go "%s %q not found", resource "configmap")
		g.kev(p, c.Name, "Warning", "Failed", `Error: configmap "web-config" not found`, s, now, 10)
		st := g.cstatus(p, c, false)
		st.State.Waiting = &corev1.ContainerStateWaiting{Reason: "CreateContainerConfigError", Message: `configmap "web-config" not found`}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{st}
	}
	rsStatus(rs, 3, 0, 0)
	g.depStatus(3, 3, 0, 0)
	g.conds(unavailable(g, 0, 0), progressing(g, rs, s, 0))
	return g
}

func mountSecretMissing() *G {
	t := webTemplate(webImage)
	t.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "tls", ReadOnly: true, MountPath: "/etc/web/tls"}}
	t.Spec.Volumes = []corev1.Volume{{Name: "tls", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
		SecretName: "web-tls", DefaultMode: ptr(int32(420))}}}}
	g, rs := fresh("mount-secret-missing", day(18, 12, 0), t, 2)
	now := 2*m + 10*s
	for n := 1; n <= 2; n++ {
		p := g.pod(rs, 0, n)
		g.createdPod(rs, p, 0)
		g.assigned(p, 0)
		c := p.Spec.Containers[0]
		g.onNode(p, 0)
		g.notReadyConds(p, 0, false, c.Name)
		// operation_generator.go "MountVolume.SetUp failed for volume %q" + " : %v" of the
		// secret manager's NotFound ("%s %q not found", resource "secret")
		g.kev(p, "", "Warning", "FailedMount", `MountVolume.SetUp failed for volume "tls" : secret "web-tls" not found`, 0, now, 9)
		st := g.cstatus(p, c, false)
		st.State.Waiting = &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{st}
	}
	rsStatus(rs, 2, 0, 0)
	g.depStatus(2, 2, 0, 0)
	g.conds(unavailable(g, 0, 0), progressing(g, rs, s, 0))
	return g
}

// sandboxCNI: the calico binary is missing on lab-worker-3 only.
func sandboxCNI() *G {
	g, rs := fresh("sandbox-cni", day(19, 7, 0), webTemplate(webImage), 3)
	g.healthyPod(rs, 0, 1, true)
	g.healthyPod(rs, 0, 2, true)
	p := g.pod(rs, 0, 3)
	g.createdPod(rs, p, 0)
	g.assigned(p, 0)
	c := p.Spec.Containers[0]
	g.onNode(p, 0)
	g.notReadyConds(p, 0, false, c.Name)
	// kuberuntime_manager.go "Failed to create pod sandbox: %v"; containerd
	// sandbox_run.go "failed to setup network for sandbox %q: %w"; libcni
	// "plugin %s failed (add): %w"; cni invoke/find.go "failed to find plugin %q in path %s"
	sandboxErr := func() string {
		return fmt.Sprintf(`Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox %q: plugin type="calico" name="k8s-pod-network" failed (add): failed to find plugin "calico" in path [/opt/cni/bin]`, g.hex(64))
	}
	// A new sandbox ID each attempt: ten distinct events, then client-go's
	// correlator (tools/record/events_cache.go) combines the rest into one.
	for _, at := range []time.Duration{s, 13 * s, 26 * s, 40 * s, 53 * s, 67 * s, 80 * s, 94 * s, 107 * s, 121 * s} {
		g.kev(p, "", "Warning", "FailedCreatePodSandBox", sandboxErr(), at, at, 1)
	}
	g.kev(p, "", "Warning", "FailedCreatePodSandBox", "(combined from similar events): "+sandboxErr(), 134*s, 4*m+2*s, 9)
	st := g.cstatus(p, c, false)
	st.State.Waiting = &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{st}
	rsStatus(rs, 3, 2, 2)
	g.depStatus(3, 3, 2, 2)
	g.conds(unavailable(g, 0, 0), progressing(g, rs, 10*s, 0))
	return g
}

func readinessFailing() *G {
	g, rs := fresh("readiness-failing", day(19, 9, 0), webTemplate(webImage), 3)
	now := 5 * m
	for n := 1; n <= 3; n++ {
		p := g.pod(rs, 0, n)
		g.createdPod(rs, p, 0)
		g.assigned(p, 0)
		c := p.Spec.Containers[0]
		g.startEvents(p, c, s, false)
		g.onNode(p, s)
		g.podIP(p)
		g.notReadyConds(p, s, true, c.Name)
		p.Status.Phase = corev1.PodRunning
		// prober.go "%s probe failed: %s"; pkg/probe/http/http.go "HTTP probe failed with statuscode: %d"
		g.kev(p, c.Name, "Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503", 6*s, now, 30)
		st := g.cstatus(p, c, true)
		st.Started = ptr(true)
		st.State.Running = &corev1.ContainerStateRunning{StartedAt: g.at(2 * s)}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{st}
	}
	rsStatus(rs, 3, 0, 0)
	g.depStatus(3, 3, 0, 0)
	g.conds(unavailable(g, 0, 0), progressing(g, rs, s, 0))
	return g
}

func initContainerFailing() *G {
	t := webTemplate(webImage)
	t.Spec.InitContainers = []corev1.Container{{
		Name: "migrate", Image: "registry.lab.internal/shop/web-migrate:1.4.2", Command: []string{"/app/migrate", "up"},
		ImagePullPolicy: corev1.PullIfNotPresent, TerminationMessagePath: corev1.TerminationMessagePathDefault,
		TerminationMessagePolicy: corev1.TerminationMessageReadFile,
	}}
	g, rs := fresh("init-container-failing", day(22, 6, 0), t, 2)
	now := m + 40*s
	for n := 1; n <= 2; n++ {
		p := g.pod(rs, 0, n)
		g.createdPod(rs, p, 0)
		g.assigned(p, 0)
		ic, c := p.Spec.InitContainers[0], p.Spec.Containers[0]
		g.onNode(p, 0)
		g.podIP(p)
		g.notReadyConds(p, 0, true, c.Name)
		p.Status.Conditions[1] = g.podCond(corev1.PodInitialized, "False", "ContainersNotInitialized", "containers with incomplete status: [migrate]", 0)
		g.kevInit(p, ic.Name, "Normal", "Pulled", present(ic.Image), s, m+s, 4)
		g.kevInit(p, ic.Name, "Normal", "Created", "Container created", s, m+s, 4)
		g.kevInit(p, ic.Name, "Normal", "Started", "Container started", s, m+s, 4)
		g.kevInit(p, ic.Name, "Warning", "BackOff", fmt.Sprintf("Back-off restarting failed container %s in pod %s", ic.Name, kpod(p)), 3*s, now, 8)
		ist := g.cstatus(p, ic, true)
		ist.RestartCount = 3
		ist.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error",
			StartedAt: g.at(m + 2*s), FinishedAt: g.at(m + 3*s), ContainerID: ist.ContainerID}
		ist.State.Waiting = &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff",
			Message: fmt.Sprintf("back-off 40s restarting failed container=%s pod=%s", ic.Name, kpod(p))}
		p.Status.InitContainerStatuses = []corev1.ContainerStatus{ist}
		st := g.cstatus(p, c, false)
		st.State.Waiting = &corev1.ContainerStateWaiting{Reason: "PodInitializing"}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{st}
	}
	rsStatus(rs, 2, 0, 0)
	g.depStatus(2, 2, 0, 0)
	g.conds(unavailable(g, 0, 0), progressing(g, rs, s, 0))
	return g
}

func imagePulling() *G {
	img := "registry.lab.internal/shop/web-ml:3.0.0"
	g, rs := fresh("image-pulling", day(22, 9, 0), webTemplate(img), 3)
	for n := 1; n <= 3; n++ {
		p := g.pod(rs, 0, n)
		g.createdPod(rs, p, 0)
		g.assigned(p, 0)
		c := p.Spec.Containers[0]
		g.onNode(p, 0)
		g.podIP(p)
		g.notReadyConds(p, 0, true, c.Name)
		g.kev(p, c.Name, "Normal", "Pulling", fmt.Sprintf("Pulling image %q", img), s, s, 1)
		st := g.cstatus(p, c, false)
		st.State.Waiting = &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{st}
	}
	rsStatus(rs, 3, 0, 0)
	g.depStatus(3, 3, 0, 0)
	g.conds(unavailable(g, 0, 0), progressing(g, rs, s, 0))
	return g
}

// evicted: the pod on lab-worker-1 was evicted for memory 40 minutes in;
// its replacement runs on lab-worker-2.
func evicted() *G {
	g, rs := fresh("evicted", day(23, 0, 0), webTemplate(webImage), 3)
	var first *corev1.Pod
	for n := 1; n <= 3; n++ {
		p := g.healthyPod(rs, 0, n, true)
		if n == 1 {
			first = p
		}
	}
	at := 40 * m
	// eviction/helpers.go nodeLowMessageFmt, thresholdMetMessageFmt, containerMessageFmt
	msg := "The node was low on resource: memory. Threshold quantity: 100Mi, available: 87284Ki. Container web was using 1402304Ki, request is 256Mi, has larger consumption of memory. "
	p := first
	p.Status.Phase = corev1.PodFailed
	p.Status.Reason = "Evicted"
	p.Status.Message = msg
	p.Status.Conditions = append([]corev1.PodCondition{
		g.podCond(corev1.DisruptionTarget, "True", "TerminationByKubelet", msg, at)}, p.Status.Conditions...)
	p.Status.Conditions[1] = g.podCond(corev1.PodReadyToStartContainers, "False", "PodSandboxNotReady", "pod sandbox is not ready", at+s)
	p.Status.Conditions[3] = g.podCond(corev1.PodReady, "False", "PodFailed", "", at)
	p.Status.Conditions[4] = g.podCond(corev1.ContainersReady, "False", "PodFailed", "", at)
	st := &p.Status.ContainerStatuses[0]
	st.Ready, st.Started = false, ptr(false)
	st.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "Error",
		StartedAt: st.State.Running.StartedAt, FinishedAt: g.at(at), ContainerID: st.ContainerID}}
	// eviction_manager.go evictPod: Warning "Evicted" with the message
	g.kev(p, "", "Warning", "Evicted", msg, at, at, 1)
	g.kev(p, "web", "Normal", "Killing", "Stopping container web", at, at, 1)
	g.healthyPod(rs, at, 2, false)
	rsStatus(rs, 3, 3, 3)
	g.depStatus(3, 3, 3, 3)
	g.conds(progressed(g, rs, 11*s, 0), available(g, at+9*s, at+9*s))
	return g
}
