package chain

import (
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

type objectKey struct{ kind, name string }

// Owned are the objects of one workload whose events the walk reads.
type Owned struct {
	// Workload is the Deployment, StatefulSet, DaemonSet, Job or CronJob.
	Workload    metav1.Object
	Kind        Kind
	ReplicaSets []appsv1.ReplicaSet
	Jobs        []batchv1.Job
	Claims      []corev1.PersistentVolumeClaim
	Pods        []corev1.Pod
	// Services are the namespace's Services: the service controller's
	// events about a load balancer are the serving link's evidence.
	Services []corev1.Service
}

// Concerning keeps the events about the workload or one of the objects it
// owns. Kind and name must match, and the UID too when both carry one, so
// an event about a deleted pod of the same name, or a pod of another
// workload, is not blamed on this one. The order of evs is kept.
func Concerning(evs []Event, o Owned) []Event {
	uids := make(map[objectKey]types.UID, 1+len(o.ReplicaSets)+len(o.Jobs)+len(o.Claims)+len(o.Pods))
	if o.Workload != nil {
		uids[objectKey{string(o.Kind), o.Workload.GetName()}] = o.Workload.GetUID()
	}
	for i := range o.ReplicaSets {
		uids[objectKey{"ReplicaSet", o.ReplicaSets[i].Name}] = o.ReplicaSets[i].UID
	}
	for i := range o.Jobs {
		uids[objectKey{"Job", o.Jobs[i].Name}] = o.Jobs[i].UID
	}
	for i := range o.Claims {
		uids[objectKey{"PersistentVolumeClaim", o.Claims[i].Name}] = o.Claims[i].UID
	}
	for i := range o.Pods {
		uids[objectKey{"Pod", o.Pods[i].Name}] = o.Pods[i].UID
	}
	for i := range o.Services {
		uids[objectKey{"Service", o.Services[i].Name}] = o.Services[i].UID
	}
	// A pod names its ReplicaSet or Job: that keeps the owner's events
	// when the owner could not be read.
	for i := range o.Pods {
		if ref := metav1.GetControllerOf(&o.Pods[i]); ref != nil && (ref.Kind == "ReplicaSet" || ref.Kind == "Job") {
			k := objectKey{ref.Kind, ref.Name}
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

// Workload is the snapshot's workload object, nil when it was not found.
func (s *Snapshot) Workload() metav1.Object {
	if s.IsResource() {
		if s.Object != nil {
			return s.Object
		}
		return nil
	}
	if r, ok := RowOf(s.KindOf()); ok {
		return r.Object(s)
	}
	return nil
}

// Assemble fills the snapshot's objects the one way both the live reader
// and the capture loader must: each list by name, and only the events that
// concern the workload or what it owns, oldest first. The workload must be
// set, and the kind's other lists (Revisions, Claims, Nodes, Jobs,
// Services, EndpointSlices) too.
func (s *Snapshot) Assemble(rss []appsv1.ReplicaSet, pods []corev1.Pod, evs []Event) {
	sort.SliceStable(rss, func(i, j int) bool { return rss[i].Name < rss[j].Name })
	sort.SliceStable(pods, func(i, j int) bool { return pods[i].Name < pods[j].Name })
	sort.SliceStable(s.Jobs, func(i, j int) bool { return s.Jobs[i].Name < s.Jobs[j].Name })
	sort.SliceStable(s.Claims, func(i, j int) bool { return s.Claims[i].Name < s.Claims[j].Name })
	sort.SliceStable(s.Revisions, func(i, j int) bool { return s.Revisions[i].Revision < s.Revisions[j].Revision })
	sort.SliceStable(s.Nodes, func(i, j int) bool { return s.Nodes[i].Name < s.Nodes[j].Name })
	sort.SliceStable(s.Services, func(i, j int) bool { return s.Services[i].Name < s.Services[j].Name })
	sort.SliceStable(s.EndpointSlices, func(i, j int) bool { return s.EndpointSlices[i].Name < s.EndpointSlices[j].Name })
	s.ReplicaSets, s.Pods = rss, pods
	s.Events = Concerning(evs, Owned{Workload: s.Workload(), Kind: s.KindOf(), ReplicaSets: rss, Jobs: s.Jobs, Claims: s.Claims, Pods: pods, Services: s.Services})
	SortEvents(s.Events)
}
