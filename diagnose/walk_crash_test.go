package diagnose

import (
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// TestWalkHookKilledCompleted: a postStart hook that keeps failing makes
// the kubelet stop the container, and a program that exits 0 on SIGTERM
// says Completed. Caught in CrashLoopBackOff before the last run's hook
// event reached the API server (the lab's real node, under load), the
// earlier runs' hook failures name the cause, not the exit. Each
// FailedPostStartHook event quotes the command's output, so each is an
// event of its own.
func TestWalkHookKilledCompleted(t *testing.T) {
	now := walkT0.Add(time.Minute)
	pod := webPod(corev1.Pod{
		Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "web"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{
			Name: "web", RestartCount: 2,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff",
				Message: "back-off 20s restarting failed container=web pod=web-5d8f9c7b6-hfdmm_shop(pod-uid)"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed",
				StartedAt: metav1.NewTime(now.Add(-3 * time.Second)), FinishedAt: metav1.NewTime(now.Add(-time.Second))}},
		}}},
	})
	// pkg/kubelet/kuberuntime/kuberuntime_container.go msgPostStartHookFailed
	// "PostStartHook failed", handlers.go's exec hook error with the output.
	hookEvent := func(at time.Duration) chain.Event {
		msg := fmt.Sprintf(`Exec lifecycle hook ([/chain-workload --exit 1]) for Container "web" in Pod "web-5d8f9c7b6-hfdmm_shop(pod-uid)" failed - error: command '/chain-workload --exit 1' exited with 1: , message: "2026-05-17T09:45:%02dZ exiting with code 1\n"`, int(at.Seconds()))
		return chain.Event{Type: corev1.EventTypeWarning, Reason: "FailedPostStartHook", Message: msg, Source: "kubelet", Count: 1,
			FieldPath: "spec.containers{web}", Object: chain.ObjectRef{Kind: "Pod", Name: pod.Name, UID: pod.UID},
			First: walkT0.Add(at), Last: walkT0.Add(at)}
	}
	for _, tt := range []struct {
		name string
		evs  []chain.Event
		want chain.CauseID
	}{
		{"two earlier hook failures", []chain.Event{hookEvent(5 * time.Second), hookEvent(20 * time.Second)}, decode.PostStartHookFailed},
		{"no hook event", nil, decode.ContainerCompleted},
	} {
		if r := walkOnePod(pod, now, tt.evs...); r.Verdict.Cause != tt.want || r.Verdict.Link != chain.LinkContainers {
			t.Errorf("%s: verdict %+v, want containers %s", tt.name, r.Verdict, tt.want)
		}
	}
}

// TestWalkBackOffOldProbeKills: a container backing off whose last state
// the input does not hold (a pasted describe's Events, cut above them:
// ingress-nginx#8790) is restarted by its liveness probe when the
// kubelet's Killing event says so more than once, however long ago: the
// 5-minute window is for running containers caught between restarts.
// The Killing message is the kubelet's ("Container %s failed %s probe,
// will be restarted", pkg/kubelet/kuberuntime), as that thread quotes it.
func TestWalkBackOffOldProbeKills(t *testing.T) {
	now := walkT0.Add(20 * time.Minute)
	pod := webPod(corev1.Pod{
		Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "web"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{
			Name: "web", RestartCount: 2,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
		}}},
	})
	killing := func(count int32) chain.Event {
		return chain.Event{Type: corev1.EventTypeNormal, Reason: "Killing", Source: "kubelet", Count: count,
			Message:   "Container web failed liveness probe, will be restarted",
			FieldPath: "spec.containers{web}", Object: chain.ObjectRef{Kind: "Pod", Name: pod.Name, UID: pod.UID},
			First: walkT0.Add(time.Minute), Last: walkT0.Add(2 * time.Minute)}
	}
	for _, tt := range []struct {
		name string
		evs  []chain.Event
		want chain.CauseID
	}{
		{"killed twice 18 minutes ago", []chain.Event{killing(2)}, decode.LivenessProbeFailed},
		{"killed once", []chain.Event{killing(1)}, decode.CrashLoopBackOff},
		{"no kill", nil, decode.CrashLoopBackOff},
	} {
		if r := walkOnePod(pod, now, tt.evs...); r.Verdict.Cause != tt.want || r.Verdict.Link != chain.LinkContainers {
			t.Errorf("%s: verdict %+v, want containers %s", tt.name, r.Verdict, tt.want)
		}
	}
}

// TestWalkPullAmbiguousSettled: Docker's "pull access denied ...,
// repository does not exist or may require 'docker login'" is either a
// missing repository or a private one; an "unauthorized: authentication
// required" about the same container says which. Both messages are
// octarine-operator#15's (the images were private).
func TestWalkPullAmbiguousSettled(t *testing.T) {
	now := walkT0.Add(10 * time.Minute)
	pod := webPod(corev1.Pod{
		Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "web", Image: "octarinesec/guardrails-enforcer:20.7"}}},
		Status: corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{
			Name: "web", Image: "octarinesec/guardrails-enforcer:20.7",
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff",
				Message: `Back-off pulling image "octarinesec/guardrails-enforcer:20.7"`}},
		}}},
	})
	failed := func(at time.Duration, msg string) chain.Event {
		return chain.Event{Type: corev1.EventTypeWarning, Reason: "Failed", Source: "kubelet", Count: 1,
			Message:   `Failed to pull image "octarinesec/guardrails-enforcer:20.7": rpc error: code = Unknown desc = Error response from daemon: ` + msg,
			FieldPath: "spec.containers{web}", Object: chain.ObjectRef{Kind: "Pod", Name: pod.Name, UID: pod.UID},
			First: walkT0.Add(at), Last: walkT0.Add(at)}
	}
	denied := failed(2*time.Minute, "pull access denied for octarinesec/guardrails-enforcer, repository does not exist or may require 'docker login': denied: requested access to the resource is denied")
	unauthorized := failed(time.Minute, "unauthorized: authentication required")
	for _, tt := range []struct {
		name string
		evs  []chain.Event
		want chain.CauseID
	}{
		{"denied, then unauthorized before it", []chain.Event{denied, unauthorized}, decode.ImagePullUnauthorized},
		{"unauthorized, then denied", []chain.Event{unauthorized, denied}, decode.ImagePullUnauthorized},
		{"denied alone", []chain.Event{denied}, decode.ImageNotFound},
	} {
		if r := walkOnePod(pod, now, tt.evs...); r.Verdict.Cause != tt.want || r.Verdict.Link != chain.LinkContainers {
			t.Errorf("%s: verdict %+v, want containers %s", tt.name, r.Verdict, tt.want)
		}
	}
}

// webPod is pod as web's ReplicaSet's only pod in shop (walkSnapshot),
// created at walkT0.
func webPod(pod corev1.Pod) corev1.Pod {
	yes := true
	pod.ObjectMeta = metav1.ObjectMeta{Namespace: "shop", Name: "web-5d8f9c7b6-hfdmm", UID: "pod-uid",
		CreationTimestamp: metav1.NewTime(walkT0),
		OwnerReferences:   []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-5d8f9c7b6", UID: "rs-uid", Controller: &yes}}}
	return pod
}

// walkOnePod walks web (walkSnapshot) at now with one replica wanted and
// pod its only pod.
func walkOnePod(pod corev1.Pod, now time.Time, evs ...chain.Event) *chain.Report {
	one := int32(1)
	s := walkSnapshot(evs...)
	s.Now = now
	s.Deployment.Spec.Replicas, s.ReplicaSets[0].Spec.Replicas = &one, &one
	s.ReplicaSets[0].Status = appsv1.ReplicaSetStatus{Replicas: 1}
	s.Pods = []corev1.Pod{pod}
	return Walk(s, Options{})
}

// TestWalkSiblingProbeKills: two pods of one ReplicaSet whose liveness
// probe fails, their containers exiting 0 on the kill's SIGTERM. The
// kubelet's Killing events of the first pod are in; the second pod's are
// not yet (the lab's, on a loaded machine: liveness-failing read
// ContainerCompleted at its 30 s recheck, its second pod's lastState
// "Completed", exit code 0, and no event of its own). The first pod's
// kills, by the same probe of the same image, name the cause of both. The
// Killing message is the kubelet's ("Container %s failed %s probe, will be
// restarted", pkg/kubelet/kuberuntime).
func TestWalkSiblingProbeKills(t *testing.T) {
	now := walkT0.Add(time.Minute)
	probe := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8080)}}, PeriodSeconds: 1, FailureThreshold: 3}
	pod := func(name string, p *corev1.Probe) corev1.Pod {
		pod := webPod(corev1.Pod{
			Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "web", Image: "registry.lab.internal/shop/web:1.4.2", LivenessProbe: p}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{
				Name: "web", RestartCount: 2,
				State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff",
					Message: "back-off 20s restarting failed container=web pod=" + name + "_shop(uid-" + name + ")"}},
				LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed",
					StartedAt: metav1.NewTime(now.Add(-8 * time.Second)), FinishedAt: metav1.NewTime(now.Add(-2 * time.Second))}},
			}}},
		})
		pod.Name, pod.UID = name, types.UID("uid-"+name)
		return pod
	}
	killed := pod("web-5d8f9c7b6-74dkp", probe)
	killing := chain.Event{Type: corev1.EventTypeNormal, Reason: "Killing", Source: "kubelet", Count: 2,
		Message:   "Container web failed liveness probe, will be restarted",
		FieldPath: "spec.containers{web}", Object: chain.ObjectRef{Kind: "Pod", Name: killed.Name, UID: killed.UID},
		First: now.Add(-40 * time.Second), Last: now.Add(-20 * time.Second)}
	otherProbe := probe.DeepCopy()
	otherProbe.HTTPGet.Path = "/live"
	for _, tt := range []struct {
		name       string
		silent     corev1.Pod
		evs        []chain.Event
		wantSilent chain.CauseID
	}{
		{"the sibling's kills are in", pod("web-5d8f9c7b6-mzrt7", probe), []chain.Event{killing}, decode.LivenessProbeFailed},
		{"the sibling has another probe", pod("web-5d8f9c7b6-mzrt7", otherProbe), []chain.Event{killing}, decode.ContainerCompleted},
		{"the sibling was killed once", pod("web-5d8f9c7b6-mzrt7", probe), []chain.Event{func() chain.Event { e := killing; e.Count = 1; return e }()}, decode.ContainerCompleted},
		{"the sibling's kills are old", pod("web-5d8f9c7b6-mzrt7", probe), []chain.Event{func() chain.Event {
			e := killing
			e.First, e.Last = now.Add(-20*time.Minute), now.Add(-10*time.Minute)
			return e
		}()}, decode.ContainerCompleted},
	} {
		two := int32(2)
		s := walkSnapshot(tt.evs...)
		s.Now = now
		s.Deployment.Spec.Replicas, s.ReplicaSets[0].Spec.Replicas = &two, &two
		s.ReplicaSets[0].Status = appsv1.ReplicaSetStatus{Replicas: 2}
		s.Pods = []corev1.Pod{killed, tt.silent}
		r := Walk(s, Options{})
		got := chain.CauseID("")
		for _, l := range r.Links {
			for _, f := range l.Findings {
				for _, o := range f.Objects {
					if o == "pod/"+tt.silent.Name {
						got = f.Cause
					}
				}
			}
		}
		if got != tt.wantSilent {
			t.Errorf("%s: the silent pod's finding is %q, want %s (verdict %+v)", tt.name, got, tt.wantSilent, r.Verdict)
		}
		if tt.wantSilent == decode.LivenessProbeFailed && r.Verdict.Cause != decode.LivenessProbeFailed {
			t.Errorf("%s: verdict %+v, want containers LivenessProbeFailed", tt.name, r.Verdict)
		}
	}
}
