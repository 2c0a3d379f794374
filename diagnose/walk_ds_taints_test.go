package diagnose

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// TestDaemonSetTaintNotTolerated: a GPU agent's DaemonSet selects the GPU
// nodes by label, and one of them carries the GPU pool's taint
// (nvidia.com/gpu=present:NoSchedule, as in NVIDIA/gpu-operator#2717)
// it does not tolerate: the nodes link is broken, naming the node and the
// taint, though the pod on the other GPU node runs. The same DaemonSet
// without a nodeSelector means every node: the tainted node is a note.
func TestDaemonSetTaintNotTolerated(t *testing.T) {
	gpu := map[string]string{"nvidia.com/gpu.present": "true"}
	node := func(name string, labels map[string]string, taints ...corev1.Taint) corev1.Node {
		return corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Spec: corev1.NodeSpec{Taints: taints},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
	}
	nodes := []corev1.Node{
		node("gpu-1", gpu, corev1.Taint{Key: "nvidia.com/gpu", Value: "present", Effect: corev1.TaintEffectNoSchedule}),
		node("gpu-2", gpu),
		node("cpu-1", nil),
	}
	for _, selector := range []map[string]string{gpu, nil} {
		ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "ds-uid", Generation: 1, CreationTimestamp: metav1.NewTime(walkT0)},
			Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{NodeSelector: selector}}},
			Status: appsv1.DaemonSetStatus{ObservedGeneration: 1, DesiredNumberScheduled: 1, CurrentNumberScheduled: 1, NumberReady: 1,
				UpdatedNumberScheduled: 1, NumberAvailable: 1}}
		if selector == nil {
			ds.Status = appsv1.DaemonSetStatus{ObservedGeneration: 1, DesiredNumberScheduled: 2, CurrentNumberScheduled: 2, NumberReady: 2, UpdatedNumberScheduled: 2, NumberAvailable: 2}
		}
		s := &chain.Snapshot{Kind: chain.KindDaemonSet, Namespace: "shop", Name: "web", DaemonSet: ds, Nodes: nodes, Now: walkT0.Add(5 * time.Minute)}
		for _, n := range []string{"gpu-2", "cpu-1"}[:ds.Status.DesiredNumberScheduled] {
			p := kindPod("web-"+n, ds, "DaemonSet", corev1.PodRunning, true, nil)
			p.Spec.NodeName = n
			s.Pods = append(s.Pods, p)
		}
		r := Walk(s, Options{})
		l := r.Link(chain.LinkNodes)
		if selector != nil {
			if r.Verdict.Link != chain.LinkNodes || r.Verdict.Cause != decode.DaemonSetTaintNotTolerated || !r.Verdict.Terminal ||
				!strings.Contains(r.Verdict.Summary, "gpu-1") || !strings.Contains(r.Verdict.Summary, "nvidia.com/gpu=present:NoSchedule") {
				t.Errorf("selecting: verdict %+v, want DaemonSetTaintNotTolerated at nodes naming gpu-1 and the taint", r.Verdict)
			}
			continue
		}
		if l.Status != chain.StatusOK || !strings.Contains(strings.Join(l.Notes, "\n"), "gpu-1") {
			t.Errorf("every node: nodes link %s, notes %q; want ok with gpu-1 noted", l.Status, l.Notes)
		}
	}
}
