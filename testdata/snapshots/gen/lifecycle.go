package main

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

const (
	kubelet = "kubelet"
	rsCtl   = "replicaset-controller"
	depCtl  = "deployment-controller"
)

// Message formats (k8s.io/kubernetes@v1.37.2 unless said otherwise):
//   pkg/controller/controller_utils.go "Created pod: %v", "Deleted pod: %v", "Error creating: %v"
//   pkg/controller/deployment/sync.go "Scaled up replica set %s from 0 to %d", "Scaled %s replica set %s from %d to %d"
//   pkg/scheduler/schedule_one.go "Successfully assigned %v/%v to %v"
//   pkg/kubelet/images/image_manager.go "Pulling image %q", "Container image %q already present on machine",
//     "Successfully pulled image %q in %v (%v including waiting). Image size: %v bytes."
//   pkg/kubelet/kuberuntime/kuberuntime_container.go "Container created", "Container started", "Stopping container %s"

func (g *G) createdPod(rs *appsv1.ReplicaSet, p *corev1.Pod, at time.Duration) {
	g.ev(rsRef(rs), "", "Normal", "SuccessfulCreate", "Created pod: "+p.Name, rsCtl, "", at, at, 1)
}

func (g *G) scaledUp(rs *appsv1.ReplicaSet, from, to int32, at time.Duration) {
	msg := fmt.Sprintf("Scaled up replica set %s from %d to %d", rs.Name, from, to)
	g.ev(g.depRef(), "", "Normal", "ScalingReplicaSet", msg, depCtl, "", at, at, 1)
}

func (g *G) scaledDown(rs *appsv1.ReplicaSet, from, to int32, at time.Duration) {
	msg := fmt.Sprintf("Scaled down replica set %s from %d to %d", rs.Name, from, to)
	g.ev(g.depRef(), "", "Normal", "ScalingReplicaSet", msg, depCtl, "", at, at, 1)
}

func (g *G) assigned(p *corev1.Pod, at time.Duration) {
	g.schedEv(p, "Normal", "Scheduled", "Binding", fmt.Sprintf("Successfully assigned %v/%v to %v", p.Namespace, p.Name, p.Spec.NodeName), at, 1, 0)
}

// kev is a kubelet event about container c of pod p.
func (g *G) kev(p *corev1.Pod, c, typ, reason, msg string, first, last time.Duration, count int32) {
	fp := ""
	if c != "" {
		fp = cpath(c)
	}
	g.ev(podRef(p), fp, typ, reason, msg, kubelet, p.Spec.NodeName, first, last, count)
}

func (g *G) kevInit(p *corev1.Pod, c, typ, reason, msg string, first, last time.Duration, count int32) {
	g.ev(podRef(p), initpath(c), typ, reason, msg, kubelet, p.Spec.NodeName, first, last, count)
}

func pulled(image, took string, size int64) string {
	return fmt.Sprintf("Successfully pulled image %q in %s (%s including waiting). Image size: %d bytes.", image, took, took, size)
}

func present(image string) string {
	return fmt.Sprintf("Container image %q already present on machine", image)
}

// startEvents are the events of a container that starts once: pulled (or
// present), created, started.
func (g *G) startEvents(p *corev1.Pod, c corev1.Container, at time.Duration, pull bool) {
	if pull {
		g.kev(p, c.Name, "Normal", "Pulling", fmt.Sprintf("Pulling image %q", c.Image), at, at, 1)
		g.kev(p, c.Name, "Normal", "Pulled", pulled(c.Image, "1.874s", 48213577), at+2*time.Second, at+2*time.Second, 1)
		at += 2 * time.Second
	} else {
		g.kev(p, c.Name, "Normal", "Pulled", present(c.Image), at, at, 1)
	}
	g.kev(p, c.Name, "Normal", "Created", "Container created", at, at, 1)
	g.kev(p, c.Name, "Normal", "Started", "Container started", at, at, 1)
}

// runningReady gives p the status of a pod whose containers all run and
// are ready: started at start, ready at ready.
func (g *G) runningReady(p *corev1.Pod, start, ready time.Duration) {
	g.onNode(p, start)
	g.podIP(p)
	p.Status.Phase = corev1.PodRunning
	sched := p.CreationTimestamp.Sub(g.t0)
	p.Status.Conditions = []corev1.PodCondition{
		g.podCond(corev1.PodReadyToStartContainers, "True", "", "", start+2*time.Second),
		g.podCond(corev1.PodInitialized, "True", "", "", start),
		g.podCond(corev1.PodReady, "True", "", "", ready),
		g.podCond(corev1.ContainersReady, "True", "", "", ready),
		g.podCond(corev1.PodScheduled, "True", "", "", sched),
	}
	p.Status.ContainerStatuses = nil
	for _, c := range p.Spec.Containers {
		st := g.cstatus(p, c, true)
		st.Ready = true
		st.Started = ptr(true)
		st.State.Running = &corev1.ContainerStateRunning{StartedAt: g.at(start + 3*time.Second)}
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, st)
	}
}

// healthyPod is a pod of rs created at c on node n that started and became
// ready, with all its events.
func (g *G) healthyPod(rs *appsv1.ReplicaSet, c time.Duration, n int, pull bool) *corev1.Pod {
	p := g.pod(rs, c, n)
	g.createdPod(rs, p, c)
	g.assigned(p, c)
	g.startEvents(p, p.Spec.Containers[0], c+time.Second, pull)
	extra := time.Duration(0)
	if pull {
		extra = 2 * time.Second
	}
	g.runningReady(p, c+time.Second, c+8*time.Second+extra)
	return p
}

// notReadyConds are the conditions of a pod on a node whose containers are
// not ready; sandbox says whether its sandbox runs.
func (g *G) notReadyConds(p *corev1.Pod, start time.Duration, sandbox bool, unready string) {
	sched := p.CreationTimestamp.Sub(g.t0)
	ready := g.podCond(corev1.PodReadyToStartContainers, "True", "", "", start+2*time.Second)
	if !sandbox {
		ready = g.podCond(corev1.PodReadyToStartContainers, "False", "PodSandboxNotReady", "no pod sandbox exists", start)
	}
	msg := fmt.Sprintf("containers with unready status: [%s]", unready)
	p.Status.Conditions = []corev1.PodCondition{
		ready,
		g.podCond(corev1.PodInitialized, "True", "", "", start),
		g.podCond(corev1.PodReady, "False", "ContainersNotReady", msg, start),
		g.podCond(corev1.ContainersReady, "False", "ContainersNotReady", msg, start),
		g.podCond(corev1.PodScheduled, "True", "", "", sched),
	}
}

// unscheduled gives p the scheduler's PodScheduled=False condition.
func (g *G) unscheduled(p *corev1.Pod, msg string, at time.Duration) {
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: "False", Reason: "Unschedulable",
		Message: msg, LastTransitionTime: g.at(at), ObservedGeneration: 1}}
}

// Deployment status helpers.

func (g *G) depStatus(replicas, updated, ready, available int32) {
	st := &g.d.Status
	st.Replicas, st.UpdatedReplicas, st.ReadyReplicas, st.AvailableReplicas = replicas, updated, ready, available
	st.UnavailableReplicas = max(replicas-available, 0)
	if *g.d.Spec.Replicas > replicas {
		st.UnavailableReplicas = *g.d.Spec.Replicas - available
	}
}

func (g *G) conds(c ...appsv1.DeploymentCondition) { g.d.Status.Conditions = c }

func available(g *G, update, trans time.Duration) appsv1.DeploymentCondition {
	return g.dcond(appsv1.DeploymentAvailable, "True", "MinimumReplicasAvailable", "Deployment has minimum availability.", update, trans)
}

func unavailable(g *G, update, trans time.Duration) appsv1.DeploymentCondition {
	return g.dcond(appsv1.DeploymentAvailable, "False", "MinimumReplicasUnavailable", "Deployment does not have minimum availability.", update, trans)
}

func progressed(g *G, rs *appsv1.ReplicaSet, update, trans time.Duration) appsv1.DeploymentCondition {
	return g.dcond(appsv1.DeploymentProgressing, "True", "NewReplicaSetAvailable", fmt.Sprintf("ReplicaSet %q has successfully progressed.", rs.Name), update, trans)
}

func progressing(g *G, rs *appsv1.ReplicaSet, update, trans time.Duration) appsv1.DeploymentCondition {
	return g.dcond(appsv1.DeploymentProgressing, "True", "ReplicaSetUpdated", fmt.Sprintf("ReplicaSet %q is progressing.", rs.Name), update, trans)
}

func createdRS(g *G, rs *appsv1.ReplicaSet, at time.Duration) appsv1.DeploymentCondition {
	return g.dcond(appsv1.DeploymentProgressing, "True", "NewReplicaSetCreated", fmt.Sprintf("Created new replica set %q", rs.Name), at, at)
}

func timedOut(g *G, rs *appsv1.ReplicaSet, at time.Duration) appsv1.DeploymentCondition {
	return g.dcond(appsv1.DeploymentProgressing, "False", "ProgressDeadlineExceeded", fmt.Sprintf("ReplicaSet %q has timed out progressing.", rs.Name), at, at)
}
