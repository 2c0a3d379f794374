package diagnose

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// TestSidecarCrashLoop: a native sidecar (an init container with
// restartPolicy Always) that keeps exiting is a crash loop named as the
// sidecar, whether the capture caught it waiting in its back-off or
// running again for a moment between two crashes (the lab's
// sidecar-crashloop showed both); one that runs steadily blames nothing.
func TestSidecarCrashLoop(t *testing.T) {
	s := walkSnapshot()
	s.Now = walkT0.Add(2 * time.Minute)
	exited := &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error",
		StartedAt: metav1.NewTime(s.Now.Add(-3 * time.Second)), FinishedAt: metav1.NewTime(s.Now.Add(-2 * time.Second))}
	three := func(p corev1.Pod) []corev1.Pod {
		out := []corev1.Pod{p, *p.DeepCopy(), *p.DeepCopy()}
		out[1].Name, out[2].Name = "web-5d8f9c7b6-fghij", "web-5d8f9c7b6-klmno"
		return out
	}
	pod := func(st corev1.ContainerState, restarts int32) corev1.Pod {
		tmpl := s.ReplicaSets[0].Spec.Template
		p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-5d8f9c7b6-abcde", Labels: tmpl.Labels,
			OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "web-5d8f9c7b6", UID: "rs-uid", Controller: ptr.To(true)}}},
			Spec: *tmpl.Spec.DeepCopy()}
		p.Spec.NodeName = "lab-node-1"
		p.Spec.InitContainers = []corev1.Container{{Name: "proxy", Image: "registry.lab.internal/web:v1", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways)}}
		p.Status = corev1.PodStatus{Phase: corev1.PodPending, StartTime: ptr.To(metav1.NewTime(walkT0)),
			InitContainerStatuses: []corev1.ContainerStatus{{Name: "proxy", State: st, LastTerminationState: corev1.ContainerState{Terminated: exited},
				RestartCount: restarts, Started: ptr.To(st.Running != nil)}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "web", Ready: true, Started: ptr.To(true),
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(walkT0)}}}}}
		return p
	}
	waiting := corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 40s restarting failed container=proxy pod=web-5d8f9c7b6-abcde_shop(uid)"}}
	running := corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(s.Now.Add(-time.Second))}}
	for name, st := range map[string]corev1.ContainerState{"in its back-off": waiting, "between two crashes": running} {
		s.Pods = three(pod(st, 4))
		v := Walk(s, Options{}).Verdict
		if v.Link != chain.LinkContainers || v.Cause != decode.CrashLoopBackOff || !strings.Contains(v.Summary, `sidecar container "proxy"`) ||
			!strings.Contains(v.NextStep, "spec.template.spec.initContainers[proxy]") {
			t.Errorf("%s: %+v", name, v)
		}
	}
	steady := pod(corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(walkT0)}}, 0)
	steady.Status.InitContainerStatuses[0].LastTerminationState = corev1.ContainerState{}
	s.Pods = three(steady)
	if v := Walk(s, Options{}).Verdict; v.Link == chain.LinkContainers {
		t.Errorf("a sidecar that runs steadily is blamed: %+v", v)
	}
}
