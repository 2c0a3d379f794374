package paste

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// mergePods joins a pod described and listed: the describe says more,
// the row adds its age and, with -o wide, its node.
func (p *parser) mergePods() {
	var out []*podText
	for _, pt := range p.pods {
		var same *podText
		for _, o := range out {
			if o.pod.Name == pt.pod.Name && (o.pod.Namespace == pt.pod.Namespace || o.pod.Namespace == "" || pt.pod.Namespace == "") {
				same = o
			}
		}
		if same == nil {
			out = append(out, pt)
			continue
		}
		if why := twoPods(same.pod, pt.pod); why != "" {
			p.note(fmt.Sprintf("pod %s is shown twice with %s: the paste mixes two clusters (or a pod deleted and made again); the first is walked: paste one cluster's output at a time", key(pt.pod.Namespace, pt.pod.Name), why))
		}
		keep, row := same, pt
		if !keep.described && !row.described {
			// Two listings: the later shows the pod as it is now, and
			// the earlier its node if only it was wide.
			if node := same.pod.Spec.NodeName; (pt.pod.Spec.NodeName == "" || pt.nodeUnknown) && node != "" && !same.nodeUnknown {
				pt.pod.Spec.NodeName, pt.nodeUnknown = node, false
			}
			*same = *pt
			continue
		}
		if !keep.described && row.described {
			keep, row = row, keep
			*same = *keep
			keep = same
		}
		if keep.described && !row.described {
			p.rel = retarget(p.rel, &row.pod.CreationTimestamp, &keep.pod.CreationTimestamp)
			if keep.pod.Labels == nil {
				keep.pod.Labels = row.pod.Labels
			}
			stateFromRow(keep.pod, row.pod)
		}
	}
	p.pods = out
}

// twoPods says how two pods of one name differ in what a pod keeps for
// its life (its node, its IP, its start), "" when they may be one.
func twoPods(a, b *corev1.Pod) string {
	switch {
	case a.Spec.NodeName != "" && b.Spec.NodeName != "" && a.Spec.NodeName != b.Spec.NodeName:
		return fmt.Sprintf("different nodes (%s and %s)", a.Spec.NodeName, b.Spec.NodeName)
	case a.Status.PodIP != "" && b.Status.PodIP != "" && a.Status.PodIP != b.Status.PodIP:
		return fmt.Sprintf("different IPs (%s and %s)", a.Status.PodIP, b.Status.PodIP)
	case a.Status.StartTime != nil && b.Status.StartTime != nil && !a.Status.StartTime.Equal(b.Status.StartTime):
		return fmt.Sprintf("different start times (%s and %s)", a.Status.StartTime.UTC().Format(time.RFC3339), b.Status.StartTime.UTC().Format(time.RFC3339))
	}
	return ""
}

// stateFromRow gives a described pod of one container whose describe
// was cut before its State the state its kubectl get pods row shows
// (STATUS CreateContainerConfigError is that waiting reason).
func stateFromRow(described, row *corev1.Pod) {
	if len(described.Spec.Containers) != 1 || len(row.Status.ContainerStatuses) != 1 || len(row.Spec.InitContainers) > 0 {
		return
	}
	for _, st := range described.Status.ContainerStatuses {
		if st.State != (corev1.ContainerState{}) {
			return // the describe shows it
		}
	}
	st := row.Status.ContainerStatuses[0]
	st.Name, st.Image = described.Spec.Containers[0].Name, described.Spec.Containers[0].Image
	described.Status.ContainerStatuses = []corev1.ContainerStatus{st}
}

// retarget moves a time printed as an age from one object to another.
func retarget(rel []relTime, from, to *metav1.Time) []relTime {
	for i := range rel {
		if rel[i].at == from {
			rel[i].at = to
		}
	}
	return rel
}
