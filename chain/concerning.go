package chain

import (
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

type objectKey struct{ kind, name string }

// Concerning keeps the events about the Deployment, one of the ReplicaSets or
// one of the Pods. Kind and name must match, and the UID too when both carry
// one, so an event about a deleted pod of the same name, or a pod of another
// Deployment, is not blamed on this one. The order of evs is kept.
func Concerning(evs []Event, d *appsv1.Deployment, rss []appsv1.ReplicaSet, pods []corev1.Pod) []Event {
	uids := make(map[objectKey]types.UID, 1+len(rss)+len(pods))
	uids[objectKey{"Deployment", d.Name}] = d.UID
	for i := range rss {
		uids[objectKey{"ReplicaSet", rss[i].Name}] = rss[i].UID
	}
	for i := range pods {
		uids[objectKey{"Pod", pods[i].Name}] = pods[i].UID
	}
	// A pod names its ReplicaSet: that keeps the ReplicaSet's events when
	// its ReplicaSet could not be read.
	for i := range pods {
		if ref := metav1.GetControllerOf(&pods[i]); ref != nil && ref.Kind == "ReplicaSet" {
			k := objectKey{"ReplicaSet", ref.Name}
			if _, ok := uids[k]; !ok {
				uids[k] = ref.UID
			}
		}
	}
	var out []Event
	for _, e := range evs {
		uid, ok := uids[objectKey{e.Object.Kind, e.Object.Name}]
		if !ok || (uid != "" && e.Object.UID != "" && uid != e.Object.UID) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// Assemble fills the snapshot's objects the one way both the live reader
// and the capture loader must: ReplicaSets and Pods by name, and only the
// events that concern them, oldest first. The Deployment must be set.
func (s *Snapshot) Assemble(rss []appsv1.ReplicaSet, pods []corev1.Pod, evs []Event) {
	sort.SliceStable(rss, func(i, j int) bool { return rss[i].Name < rss[j].Name })
	sort.SliceStable(pods, func(i, j int) bool { return pods[i].Name < pods[j].Name })
	s.ReplicaSets, s.Pods = rss, pods
	s.Events = Concerning(evs, s.Deployment, rss, pods)
	SortEvents(s.Events)
}
