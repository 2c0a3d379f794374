package main

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

const s = time.Second
const m = time.Minute

func day(d, h, min int) time.Time { return time.Date(2026, 5, d, h, min, 0, 0, time.UTC) }

// fresh is a Deployment created at t0 with its first ReplicaSet scaled up.
func fresh(name string, t0 time.Time, tmpl corev1.PodTemplateSpec, replicas int32) (*G, *appsv1.ReplicaSet) {
	g := newG(name, t0)
	g.deployment(tmpl, replicas, 1, "1")
	rs := g.replicaSet(tmpl, "1", replicas, 0)
	g.scaledUp(rs, 0, replicas, 0)
	return g, rs
}

func healthy() *G {
	g, rs := fresh("healthy", day(12, 9, 0), webTemplate(webImage), 3)
	for n := 1; n <= 3; n++ {
		g.healthyPod(rs, 0, n, true)
	}
	rsStatus(rs, 3, 3, 3)
	g.depStatus(3, 3, 3, 3)
	g.conds(available(g, 11*s, 11*s), progressed(g, rs, 11*s, 0))
	return g
}

// Image pull errors, containerd v2 wording (core/remotes/docker/resolver.go,
// internal/cri/server/image_pull.go "failed to pull and unpack image %q: %w"),
// as the decoder tables in decode/image_test.go cite them.
func notFoundErr(img string) string {
	return fmt.Sprintf(`rpc error: code = NotFound desc = failed to pull and unpack image %q: failed to resolve reference %q: %s: not found`, img, img, img)
}

func deniedErr(img string) string {
	return fmt.Sprintf(`rpc error: code = Unknown desc = failed to pull and unpack image %q: failed to resolve reference %q: pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed`, img, img)
}

// pullFailing makes p's container fail to pull image with err since start,
// as seen at now: pulls every back-off step, back-off events between.
func (g *G) pullFailing(p *corev1.Pod, start, now time.Duration, pulls, backoffs int32, err string) {
	c := p.Spec.Containers[0]
	g.onNode(p, start)
	g.podIP(p)
	g.notReadyConds(p, start, true, c.Name)
	lastPull := now - 50*s
	g.kev(p, c.Name, "Normal", "Pulling", fmt.Sprintf("Pulling image %q", c.Image), start+s, lastPull, pulls)
	g.kev(p, c.Name, "Warning", "Failed", fmt.Sprintf("Failed to pull image %q: %s", c.Image, err), start+2*s, lastPull+s, pulls)
	g.kev(p, c.Name, "Warning", "Failed", "Error: ErrImagePull", start+2*s, lastPull+s, pulls)
	g.kev(p, c.Name, "Normal", "BackOff", fmt.Sprintf("Back-off pulling image %q", c.Image), start+3*s, now, backoffs)
	g.kev(p, c.Name, "Warning", "Failed", "Error: ImagePullBackOff", start+3*s, now, backoffs)
	st := g.cstatus(p, c, false)
	st.State.Waiting = &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff",
		Message: fmt.Sprintf("Back-off pulling image %q: ErrImagePull: %s", c.Image, err)}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{st}
}

func imageNotFound() *G {
	img := "registry.lab.internal/shop/web:1.5.0"
	g, rs := fresh("image-not-found", day(12, 10, 20), webTemplate(img), 3)
	now := 3*m + 20*s
	for n := 1; n <= 3; n++ {
		p := g.pod(rs, 0, n)
		g.createdPod(rs, p, 0)
		g.assigned(p, 0)
		g.pullFailing(p, 0, now, 5, 13, notFoundErr(img))
	}
	rsStatus(rs, 3, 0, 0)
	g.depStatus(3, 3, 0, 0)
	g.conds(unavailable(g, 0, 0), progressing(g, rs, s, 0))
	return g
}

func imageUnauthorized() *G {
	img := "registry.lab.internal/team/private-web:2.1.0"
	g, rs := fresh("image-unauthorized", day(13, 14, 5), webTemplate(img), 2)
	now := 2*m + 10*s
	for n := 1; n <= 2; n++ {
		p := g.pod(rs, 0, n)
		g.createdPod(rs, p, 0)
		g.assigned(p, 0)
		g.pullFailing(p, 0, now, 4, 9, deniedErr(img))
	}
	rsStatus(rs, 2, 0, 0)
	g.depStatus(2, 2, 0, 0)
	g.conds(unavailable(g, 0, 0), progressing(g, rs, s, 0))
	return g
}

// crashing gives p a container that exited restarts+1 times with last, now
// waiting in CrashLoopBackOff with back-off backoff; the last exit at lastExit.
func (g *G) crashing(p *corev1.Pod, restarts int32, last corev1.ContainerStateTerminated, backoff string, now time.Duration) {
	c := p.Spec.Containers[0]
	g.onNode(p, s)
	g.podIP(p)
	g.notReadyConds(p, s, true, c.Name)
	p.Status.Phase = corev1.PodRunning
	lastStart := last.StartedAt.Sub(g.t0) - s
	g.kev(p, c.Name, "Normal", "Pulled", present(c.Image), s, lastStart, restarts+1)
	g.kev(p, c.Name, "Normal", "Created", "Container created", s, lastStart, restarts+1)
	g.kev(p, c.Name, "Normal", "Started", "Container started", s, lastStart, restarts+1)
	// kuberuntime_manager.go doBackOff: "Back-off restarting failed container %s in pod %s"
	g.kev(p, c.Name, "Warning", "BackOff", fmt.Sprintf("Back-off restarting failed container %s in pod %s", c.Name, kpod(p)), 5*s, now, 3*restarts+2)
	st := g.cstatus(p, c, true)
	st.RestartCount = restarts
	st.LastTerminationState.Terminated = &last
	last.ContainerID = st.ContainerID
	st.State.Waiting = &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff",
		Message: fmt.Sprintf("back-off %s restarting failed container=%s pod=%s", backoff, c.Name, kpod(p))}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{st}
}

func crashloop() *G {
	g, rs := fresh("crashloop", day(14, 8, 30), webTemplate(webImage), 3)
	now := 3*m + 5*s
	for n := 1; n <= 3; n++ {
		p := g.pod(rs, 0, n)
		g.createdPod(rs, p, 0)
		g.assigned(p, 0)
		g.crashing(p, 4, corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error",
			StartedAt: g.at(2*m + 2*s), FinishedAt: g.at(2*m + 3*s)}, "1m20s", now)
	}
	rsStatus(rs, 3, 0, 0)
	g.depStatus(3, 3, 0, 0)
	g.conds(unavailable(g, 0, 0), progressing(g, rs, s, 0))
	return g
}

func oomkilled() *G {
	g, rs := fresh("oomkilled", day(14, 11, 10), webTemplate(webImage), 2)
	now := m + 50*s
	for n := 1; n <= 2; n++ {
		p := g.pod(rs, 0, n)
		g.createdPod(rs, p, 0)
		g.assigned(p, 0)
		g.crashing(p, 3, corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled",
			StartedAt: g.at(m + 2*s), FinishedAt: g.at(m + 9*s)}, "40s", now)
	}
	rsStatus(rs, 2, 0, 0)
	g.depStatus(2, 2, 0, 0)
	g.conds(unavailable(g, 0, 0), progressing(g, rs, s, 0))
	return g
}

// runningBetweenCrashes: served for 20 minutes, then OOM-killed under load
// three times; restarted 25 s ago and not ready yet.
func runningBetweenCrashes() *G {
	g, rs := fresh("running-between-crashes", day(15, 16, 0), webTemplate(webImage), 2)
	now := 34 * m
	for n := 1; n <= 2; n++ {
		p := g.pod(rs, 0, n)
		g.createdPod(rs, p, 0)
		g.assigned(p, 0)
		c := p.Spec.Containers[0]
		g.onNode(p, s)
		g.podIP(p)
		g.notReadyConds(p, s, true, c.Name)
		p.Status.Conditions[2].LastTransitionTime = g.at(now - 26*s)
		p.Status.Conditions[3].LastTransitionTime = g.at(now - 26*s)
		p.Status.Phase = corev1.PodRunning
		g.kev(p, c.Name, "Normal", "Pulled", present(c.Image), s, now-25*s, 4)
		g.kev(p, c.Name, "Normal", "Created", "Container created", s, now-25*s, 4)
		g.kev(p, c.Name, "Normal", "Started", "Container started", s, now-25*s, 4)
		g.kev(p, c.Name, "Warning", "BackOff", fmt.Sprintf("Back-off restarting failed container %s in pod %s", c.Name, kpod(p)), 26*m+3*s, now-35*s, 3)
		// prober.go "%s probe failed: %s"; pkg/probe/http/http.go returns Go's client error
		ip := p.Status.PodIP
		g.kev(p, c.Name, "Warning", "Unhealthy", fmt.Sprintf(`Readiness probe failed: Get "http://%s:8080/ready": dial tcp %s:8080: connect: connection refused`, ip, ip), 20*m+12*s, now-22*s, 9)
		st := g.cstatus(p, c, true)
		st.RestartCount = 3
		st.Started = ptr(true)
		st.State.Running = &corev1.ContainerStateRunning{StartedAt: g.at(now - 25*s)}
		st.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled",
			StartedAt: g.at(31*m + 40*s), FinishedAt: g.at(now - 26*s), ContainerID: "containerd://" + g.hex(64)}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{st}
	}
	rsStatus(rs, 2, 0, 0)
	g.depStatus(2, 2, 0, 0)
	g.conds(progressed(g, rs, 11*s, 0), unavailable(g, now-26*s, now-26*s))
	return g
}

// Scheduler messages: pkg/scheduler/framework/types.go FitError.Error,
// plugins/noderesources/fit.go "Insufficient cpu", plugins/tainttoleration
// "node(s) had untolerated taint(s)", defaultpreemption "No preemption
// victims found for incoming pod", preemption.go "Preemption is not helpful
// for scheduling", volumebinding "pod has unbound immediate PersistentVolumeClaims".
const (
	cpuTaintMsg = "0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 Insufficient cpu. preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod."
	cpuMsg      = "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."
	pvcMsg      = "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
)

func cpuTemplate(cpu string) corev1.PodTemplateSpec {
	t := webTemplate(webImage)
	t.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = q(cpu)
	return t
}

func insufficientCPU() *G {
	g, rs := fresh("insufficient-cpu", day(16, 13, 0), cpuTemplate("4"), 3)
	for i := 0; i < 3; i++ {
		p := g.pod(rs, 0, 0)
		g.createdPod(rs, p, 0)
		g.unscheduled(p, cpuTaintMsg, 0)
		g.schedEv(p, "Warning", "FailedScheduling", "Scheduling", cpuTaintMsg, 0, 5, 4*m+10*s)
	}
	rsStatus(rs, 3, 0, 0)
	g.depStatus(3, 3, 0, 0)
	g.conds(unavailable(g, 0, 0), progressing(g, rs, s, 0))
	return g
}

func autoscalerScaleUp() *G {
	g, rs := fresh("autoscaler-scaleup", day(16, 15, 30), cpuTemplate("2"), 3)
	for i := 0; i < 3; i++ {
		p := g.pod(rs, 0, 0)
		g.createdPod(rs, p, 0)
		g.unscheduled(p, cpuMsg, 0)
		g.schedEv(p, "Warning", "FailedScheduling", "Scheduling", cpuMsg, 0, 3, m+10*s)
		// cluster-autoscaler core/scaleup: "pod triggered scale-up: %v" of
		// ScaleUpInfo "{%v %v->%v (max: %v)}"
		g.ev(podRef(p), "", "Normal", "TriggeredScaleUp", "pod triggered scale-up: [{lab-pool-b 3->5 (max: 8)}]", "cluster-autoscaler", "", 11*s, 11*s, 1)
	}
	rsStatus(rs, 3, 0, 0)
	g.depStatus(3, 3, 0, 0)
	g.conds(unavailable(g, 0, 0), progressing(g, rs, s, 0))
	return g
}

func pvcUnbound() *G {
	t := webTemplate(webImage)
	t.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/var/lib/web"}}
	t.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "web-data"}}}}
	g, rs := fresh("pvc-unbound", day(24, 8, 0), t, 1)
	p := g.pod(rs, 0, 0)
	g.createdPod(rs, p, 0)
	g.unscheduled(p, pvcMsg, 0)
	g.schedEv(p, "Warning", "FailedScheduling", "Scheduling", pvcMsg, 0, 4, 3*m+2*s)
	rsStatus(rs, 1, 0, 0)
	g.depStatus(1, 1, 0, 0)
	g.conds(unavailable(g, 0, 0), progressing(g, rs, s, 0))
	return g
}

// refused is a ReplicaSet whose pods admission refuses: the controller's
// ReplicaFailure condition and its FailedCreate events, a distinct one per
// generated name until the correlator combines them
// (client-go tools/record/events_cache.go "(combined from similar events): ").
func refused(name string, t0 time.Time, errFor func(pod string) string) *G {
	g := newG(name, t0)
	tmpl := webTemplate(webImage)
	g.deployment(tmpl, 3, 1, "1")
	rs := g.replicaSet(tmpl, "1", 3, 0)
	g.scaledUp(rs, 0, 3, 0)
	at := []time.Duration{0, 0, s, 2 * s, 5 * s, 10 * s, 20 * s, 41 * s, 81 * s, 2*m + 42*s}
	first := errFor(rs.Name + "-" + g.safe(5))
	if first == errFor("") {
		// The same text every time: the correlator counts one event.
		g.ev(rsRef(rs), "", "Warning", "FailedCreate", "Error creating: "+first, rsCtl, "", 0, 5*m+24*s, 11)
	} else {
		for i, t := range at {
			msg := first
			if i > 0 {
				msg = errFor(rs.Name + "-" + g.safe(5))
			}
			g.ev(rsRef(rs), "", "Warning", "FailedCreate", "Error creating: "+msg, rsCtl, "", t, t, 1)
		}
		combined := errFor(rs.Name + "-" + g.safe(5))
		g.ev(rsRef(rs), "", "Warning", "FailedCreate", "(combined from similar events): Error creating: "+combined, rsCtl, "", 5*m+24*s, 5*m+24*s, 1)
	}
	// replica_set_utils.go calculateStatus: ReplicaFailure True, reason
	// FailedCreate, set once with the first error and kept while it fails.
	rs.Status.Conditions = []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure, Status: "True",
		Reason: "FailedCreate", Message: first, LastTransitionTime: g.at(0)}}
	g.depStatus(0, 0, 0, 0)
	rc := rs.Status.Conditions[0]
	g.conds(
		createdRS(g, rs, 0),
		unavailable(g, 0, 0),
		appsv1.DeploymentCondition{Type: appsv1.DeploymentReplicaFailure, Status: "True", Reason: rc.Reason, Message: rc.Message,
			LastUpdateTime: rc.LastTransitionTime, LastTransitionTime: rc.LastTransitionTime},
	)
	return g
}

func quotaExceeded() *G {
	// apiserver resourcequota/controller.go "exceeded quota: %s, requested: %s, used: %s, limited: %s"
	return refused("quota-exceeded", day(17, 9, 45), func(pod string) string {
		return fmt.Sprintf(`pods %q is forbidden: exceeded quota: compute, requested: requests.cpu=250m, used: requests.cpu=3900m, limited: requests.cpu=4`, pod)
	})
}

func podSecurityRejected() *G {
	// pod-security-admission admission.go 'violates PodSecurity %q: %s', policy/check_*.go
	return refused("podsecurity-rejected", day(17, 11, 0), func(pod string) string {
		return fmt.Sprintf(`pods %q is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "web" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "web" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "web" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "web" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`, pod)
	})
}

func webhookDenied() *G {
	// apiserver webhook/errors/statuserror.go 'admission webhook %q denied the request: %s'
	return refused("webhook-denied", day(17, 15, 30), func(string) string {
		return `admission webhook "require-team-label.policy.example.internal" denied the request: missing required label "team"`
	})
}
