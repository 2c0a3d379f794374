package corpus

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// StatefulSetSpec holds what a thread shows of a StatefulSet beyond its
// pods: its pod management and the claims of its volumeClaimTemplate.
type StatefulSetSpec struct {
	PodManagementPolicy appsv1.PodManagementPolicyType `json:"podManagementPolicy,omitempty"`
	// Claims are claims of the volumeClaimTemplate "data", one per pod
	// (Pod is its ordinal); events on: claim name one by its index (pod:).
	Claims []ClaimSpec `json:"claims,omitempty"`
}

// ClaimSpec is one claim of a StatefulSet's volumeClaimTemplate.
type ClaimSpec struct {
	Pod          int                               `json:"pod,omitempty"`
	Phase        corev1.PersistentVolumeClaimPhase `json:"phase,omitempty"`
	StorageClass string                            `json:"storageClass,omitempty"`
}

// DaemonSetSpec holds a DaemonSet's telling status and, when they matter,
// its nodes.
type DaemonSetSpec struct {
	// Desired is status.desiredNumberScheduled (the replicas by default).
	Desired      *int32              `json:"desired,omitempty"`
	NodeSelector map[string]string   `json:"nodeSelector,omitempty"`
	Tolerations  []corev1.Toleration `json:"tolerations,omitempty"`
	// Nodes are the cluster's nodes; pod i runs on node i.
	Nodes []NodeSpec `json:"nodes,omitempty"`
}

// NodeSpec is one node as the thread shows it.
type NodeSpec struct {
	Name     string            `json:"name"`
	Labels   map[string]string `json:"labels,omitempty"`
	Taints   []corev1.Taint    `json:"taints,omitempty"`
	NotReady bool              `json:"notReady,omitempty"`
}

// JobSpec holds a Job's spec and conditions as the thread shows them (for
// a CronJob, the Job it made).
type JobSpec struct {
	BackoffLimit          *int32                 `json:"backoffLimit,omitempty"`
	Completions           *int32                 `json:"completions,omitempty"`
	Parallelism           *int32                 `json:"parallelism,omitempty"`
	ActiveDeadlineSeconds *int64                 `json:"activeDeadlineSeconds,omitempty"`
	Suspend               bool                   `json:"suspend,omitempty"`
	RestartPolicy         corev1.RestartPolicy   `json:"restartPolicy,omitempty"`
	Conditions            []batchv1.JobCondition `json:"conditions,omitempty"`
	// Failed and Succeeded override the counts of the pods shown.
	Failed    *int32 `json:"failed,omitempty"`
	Succeeded *int32 `json:"succeeded,omitempty"`
}

// CronJobSpec holds a CronJob's schedule (@hourly when the thread shows
// none); its Job is the incident's job: (none when NoJob: the controller
// made none).
type CronJobSpec struct {
	Schedule          string                    `json:"schedule,omitempty"`
	Suspend           bool                      `json:"suspend,omitempty"`
	ConcurrencyPolicy batchv1.ConcurrencyPolicy `json:"concurrencyPolicy,omitempty"`
	NoJob             bool                      `json:"noJob,omitempty"`
	// Previous is the one pod of the run before the incident's Job, ten
	// minutes earlier; only Succeeded (its Job Complete) is built.
	Previous *PodSpec `json:"previous,omitempty"`
}

// eventOwners are the objects besides pods an event can be on, by kind.
var eventOwners = map[string]map[string]bool{
	"Deployment":  {"deployment": true, "replicaset": true},
	"StatefulSet": {"statefulset": true, "claim": true},
	"DaemonSet":   {"daemonset": true},
	"Job":         {"job": true},
	"CronJob":     {"cronjob": true, "job": true},
	"Pod":         {},
}

func (in Incident) checkKind() error {
	k := in.WorkloadKind()
	for name, set := range map[string]bool{"deployment": in.Deployment != nil, "statefulset": in.StatefulSet != nil,
		"daemonset": in.DaemonSet != nil, "cronjob": in.CronJob != nil} {
		if set && name != map[string]string{"Deployment": "deployment", "StatefulSet": "statefulset", "DaemonSet": "daemonset", "CronJob": "cronjob"}[k] {
			return fmt.Errorf("%s: is not for a %s", name, k)
		}
	}
	if in.Job != nil && k != "Job" && k != "CronJob" {
		return fmt.Errorf("job: is not for a %s", k)
	}
	if p := in.CronJob; p != nil && p.Previous != nil && p.Previous.Phase != corev1.PodSucceeded {
		return fmt.Errorf("cronjob.previous: only a Succeeded run is built")
	}
	if k == "CronJob" && in.CronJob == nil {
		return fmt.Errorf("a CronJob needs cronjob: {} (schedule, suspend, concurrencyPolicy, noJob)")
	}
	if k == "Pod" && len(in.Pods) != 1 {
		return fmt.Errorf("a bare pod incident has one pod")
	}
	for i, e := range in.Events {
		if e.On == "claim" && (in.StatefulSet == nil || e.Pod >= len(in.StatefulSet.Claims)) {
			return fmt.Errorf("event %d is on claim %d, which statefulset.claims does not have", i, e.Pod)
		}
	}
	return nil
}

// nodeOf is the node pod i runs on: a DaemonSet's pod i on node i, every
// other pod on node-1.
func (b *builder) nodeOf(i int) string {
	if b.in.WorkloadKind() != "DaemonSet" {
		return nodeName
	}
	if ds := b.in.DaemonSet; ds != nil && i < len(ds.Nodes) {
		return ds.Nodes[i].Name
	}
	return fmt.Sprintf("node-%d", i+1)
}

// daemonPinned says the DaemonSet controller of the incident's release pins
// each daemon pod to its node by a required node affinity (1.12 and later,
// when the default scheduler took over placing daemon pods; before, the
// controller set spec.nodeName itself). An unknown release is a recent one.
func (b *builder) daemonPinned() bool {
	var major, minor int
	if _, err := fmt.Sscanf(b.in.Version, "%d.%d", &major, &minor); err != nil {
		return true
	}
	return major > 1 || minor >= 12
}

// pinToNode gives a daemon pod the node affinity the DaemonSet controller
// writes (pkg/controller/daemon/util ReplaceDaemonSetPodNodeNameNodeAffinity):
// metadata.name In [node].
func pinToNode(p *corev1.Pod, node string) {
	p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{
			{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}}}}}
}

func ownerRef(apiVersion, kind, name string, uid metav1.Object) *metav1.OwnerReference {
	yes := true
	return &metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: uid.GetUID(), Controller: &yes, BlockOwnerDeletion: &yes}
}

func objectRef(apiVersion, kind string, m metav1.Object) corev1.ObjectReference {
	return corev1.ObjectReference{APIVersion: apiVersion, Kind: kind, Name: m.GetName(), UID: m.GetUID()}
}

func (b *builder) meta(kind, name string, labels map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: namespace, UID: b.uid(kind, 0), Generation: 1, CreationTimestamp: at(0), Labels: labels}
}

func withLabels(tmpl corev1.PodTemplateSpec, extra map[string]string) corev1.PodTemplateSpec {
	out := *tmpl.DeepCopy()
	for k, v := range extra {
		out.Labels[k] = v
	}
	return out
}

// kindItems are the objects of a StatefulSet, DaemonSet, Job, CronJob or
// bare pod incident, as `kubectl get KIND,pods,events -o yaml` prints them.
func (b *builder) kindItems() []any {
	var items []any
	owners := map[string]corev1.ObjectReference{}
	pods := make([]*corev1.Pod, len(b.in.Pods))
	sel := &metav1.LabelSelector{MatchLabels: b.podLabels()}
	switch b.in.WorkloadKind() {
	case "StatefulSet":
		set := &appsv1.StatefulSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"},
			ObjectMeta: b.meta("statefulset", app, map[string]string{"app": app})}
		r, zero := b.replicas(), int32(0)
		rev := app + "-" + b.suffix("revision", 0, 10)
		set.Spec = appsv1.StatefulSetSpec{Replicas: &r, Selector: sel, Template: b.template(), ServiceName: app,
			PodManagementPolicy: appsv1.OrderedReadyPodManagement,
			UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: &zero}}}
		var claims []any
		if s := b.in.StatefulSet; s != nil {
			if s.PodManagementPolicy != "" {
				set.Spec.PodManagementPolicy = s.PodManagementPolicy
			}
			if len(s.Claims) > 0 {
				set.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{b.claimTemplate("")}
			}
			for i, c := range s.Claims {
				pvc := b.claimTemplate(c.StorageClass)
				pvc.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"}
				pvc.Name, pvc.Namespace, pvc.UID = fmt.Sprintf("data-%s-%d", app, c.Pod), namespace, b.uid("claim", i)
				pvc.Labels, pvc.CreationTimestamp = map[string]string{"app": app}, at(2*time.Second)
				pvc.Status.Phase = c.Phase
				if pvc.Status.Phase == "" {
					pvc.Status.Phase = corev1.ClaimPending
				}
				claims = append(claims, &pvc)
				owners[fmt.Sprintf("claim/%d", i)] = objectRef("v1", "PersistentVolumeClaim", &pvc)
			}
		}
		items = append(items, set)
		for i := range b.in.Pods {
			name := fmt.Sprintf("%s-%d", app, i)
			tmpl := withLabels(set.Spec.Template, map[string]string{appsv1.ControllerRevisionHashLabelKey: rev, appsv1.StatefulSetPodNameLabel: name})
			pods[i] = b.podOf(i, name, tmpl, ownerRef("apps/v1", "StatefulSet", app, set))
		}
		items = append(items, claims...)
		owners["statefulset"] = objectRef("apps/v1", "StatefulSet", set)
		n, ready := int32(len(pods)), readyCount(pods)
		set.Status = appsv1.StatefulSetStatus{ObservedGeneration: 1, Replicas: n, ReadyReplicas: ready, CurrentReplicas: n,
			UpdatedReplicas: n, AvailableReplicas: ready, CurrentRevision: rev, UpdateRevision: rev}
	case "DaemonSet":
		ds := &appsv1.DaemonSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
			ObjectMeta: b.meta("daemonset", app, map[string]string{"app": app})}
		ds.Spec = appsv1.DaemonSetSpec{Selector: sel, Template: b.template(),
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType}}
		desired := b.replicas()
		if s := b.in.DaemonSet; s != nil {
			ds.Spec.Template.Spec.NodeSelector, ds.Spec.Template.Spec.Tolerations = s.NodeSelector, s.Tolerations
			if s.Desired != nil {
				desired = *s.Desired
			}
			for i, n := range s.Nodes {
				items = append(items, b.node(i, n))
			}
		}
		items = append([]any{ds}, items...)
		b.fillPods()
		pods = make([]*corev1.Pod, len(b.in.Pods))
		rev := b.suffix("revision", 0, 10)
		for i := range b.in.Pods {
			tmpl := withLabels(ds.Spec.Template, map[string]string{appsv1.ControllerRevisionHashLabelKey: rev, "pod-template-generation": "1"})
			pods[i] = b.podOf(i, app+"-"+b.suffix("pod", i, 5), tmpl, ownerRef("apps/v1", "DaemonSet", app, ds))
			if node := b.in.Pods[i].Pinned; node != "" {
				pinToNode(pods[i], node)
			} else if b.daemonPinned() {
				pinToNode(pods[i], b.nodeOf(i))
			}
		}
		owners["daemonset"] = objectRef("apps/v1", "DaemonSet", ds)
		n, ready := int32(len(pods)), readyCount(pods)
		ds.Status = appsv1.DaemonSetStatus{ObservedGeneration: 1, DesiredNumberScheduled: desired, CurrentNumberScheduled: n,
			UpdatedNumberScheduled: n, NumberReady: ready, NumberAvailable: ready, NumberUnavailable: max(desired-ready, 0)}
	case "Job":
		job := b.job(app, nil)
		items = append(items, job)
		pods = b.jobPods(job, app)
		owners["job"] = objectRef("batch/v1", "Job", job)
		b.jobStatus(job, pods)
	case "CronJob":
		cj := &batchv1.CronJob{TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "CronJob"},
			ObjectMeta: b.meta("cronjob", app, map[string]string{"app": app})}
		s := b.in.CronJob
		policy := s.ConcurrencyPolicy
		if policy == "" {
			policy = batchv1.AllowConcurrent
		}
		three, one := int32(3), int32(1)
		schedule := s.Schedule
		if schedule == "" {
			schedule = "@hourly"
		}
		cj.Spec = batchv1.CronJobSpec{Schedule: schedule, Suspend: &s.Suspend, ConcurrencyPolicy: policy,
			SuccessfulJobsHistoryLimit: &three, FailedJobsHistoryLimit: &one}
		items = append(items, cj)
		owners["cronjob"] = objectRef("batch/v1", "CronJob", cj)
		cj.Spec.JobTemplate.Spec = b.job("", nil).Spec
		cj.Spec.JobTemplate.Spec.Selector, cj.Spec.JobTemplate.Spec.Template.Labels = nil, nil
		if s.Previous != nil {
			cj.CreationTimestamp = at(-time.Hour)
			items = append(items, b.previousRun(cj, app, *s.Previous)...)
		}
		if !s.NoJob {
			job := b.job(app+"-29450880", cj)
			items = append(items, job)
			pods = b.jobPods(job, job.Name)
			owners["job"] = objectRef("batch/v1", "Job", job)
			b.jobStatus(job, pods)
			when := at(time.Second)
			if s.Previous != nil {
				// The run after a finished one has just started.
				when = shiftRun(job, pods, Now.Add(-10*time.Second).Sub(when.Time))
			}
			cj.Status.LastScheduleTime = &when
			if !finished(job) {
				cj.Status.Active = []corev1.ObjectReference{{APIVersion: "batch/v1", Kind: "Job", Namespace: namespace, Name: job.Name, UID: job.UID}}
			}
		}
	case "Pod":
		tmpl := b.template()
		pods[0] = b.podOf(0, app, tmpl, nil)
	}
	for _, p := range pods {
		items = append(items, p)
	}
	b.pods = pods
	for i, e := range b.in.Events {
		items = append(items, b.event(owners, pods, i, e))
	}
	return items
}

func (b *builder) claimTemplate(class string) corev1.PersistentVolumeClaim {
	pvc := corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data"},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}
	if class != "" {
		pvc.Spec.StorageClassName = &class
	}
	return pvc
}

func (b *builder) node(i int, n NodeSpec) *corev1.Node {
	node := &corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: n.Name, UID: b.uid("node", i), CreationTimestamp: at(-time.Hour), Labels: n.Labels},
		Spec:       corev1.NodeSpec{Taints: n.Taints}}
	ready := corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
		Message: "kubelet is posting ready status", LastHeartbeatTime: ago(10 * time.Second), LastTransitionTime: at(-time.Hour)}
	if n.NotReady {
		ready.Status, ready.Reason, ready.Message = corev1.ConditionUnknown, "NodeStatusUnknown", "Kubelet stopped posting node status."
		ready.LastTransitionTime = at(time.Second)
	}
	node.Status.Conditions = []corev1.NodeCondition{ready}
	return node
}
