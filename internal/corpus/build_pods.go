package corpus

import (
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// pod rebuilds pod i: its spec from the ReplicaSet's template, its status
// from the thread, with times a real kubelet would have written.
func (b *builder) pod(rs *appsv1.ReplicaSet, i int) *corev1.Pod {
	yes := true
	owner := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID,
		Controller: &yes, BlockOwnerDeletion: &yes}
	return b.podOf(i, rs.Name+"-"+b.suffix("pod", i, 5), rs.Spec.Template, &owner)
}

// podOf rebuilds pod i named name from template, owned by owner (none for
// a bare pod).
func (b *builder) podOf(i int, name string, tmpl corev1.PodTemplateSpec, owner *metav1.OwnerReference) *corev1.Pod {
	return b.podFrom(b.in.Pods[i], i, name, tmpl, owner)
}

// podFrom rebuilds pod ps as podOf does, with index i's UID and node.
func (b *builder) podFrom(ps PodSpec, i int, name string, tmpl corev1.PodTemplateSpec, owner *metav1.OwnerReference) *corev1.Pod {
	p := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, UID: b.uid("pod", i),
			CreationTimestamp: at(2 * time.Second), Labels: tmpl.Labels},
		Spec: *tmpl.Spec.DeepCopy(),
	}
	if owner != nil {
		p.OwnerReferences = []metav1.OwnerReference{*owner}
	}
	st := &p.Status
	st.Phase = ps.Phase
	if st.Phase == "" {
		st.Phase = corev1.PodPending
	}
	st.Reason, st.Message = ps.Reason, ps.Message
	st.QOSClass = corev1.PodQOSBestEffort
	if ps.Node {
		p.Spec.NodeName = b.nodeOf(i)
		st.HostIP = "10.0.0.11"
		start := at(3 * time.Second)
		st.StartTime = &start
		if st.Phase == corev1.PodRunning {
			st.PodIP = fmt.Sprintf("10.244.1.%d", 10+i)
		}
	}
	for _, c := range ps.InitContainers {
		st.InitContainerStatuses = append(st.InitContainerStatuses, b.containerStatus(c))
	}
	for _, c := range ps.Containers {
		st.ContainerStatuses = append(st.ContainerStatuses, b.containerStatus(c))
	}
	st.Conditions = b.podConditions(ps)
	return p
}

// containerStatus fills in what the thread left out: image, times, started.
func (b *builder) containerStatus(c corev1.ContainerStatus) corev1.ContainerStatus {
	c.Image = b.image()
	if r := c.State.Running; r != nil {
		c.Started = ptr(true)
		r.StartedAt = at(20 * time.Second)
		if c.LastTerminationState.Terminated != nil {
			// Running again between crashes: the last exit was recent.
			r.StartedAt = ago(14 * time.Second)
		}
	} else {
		c.Started = ptr(false)
	}
	// The runs the thread shows end shortly before the capture, and its
	// events fall within them (see event).
	if t := c.State.Terminated; t != nil {
		t.StartedAt, t.FinishedAt = ago(60*time.Second), ago(12*time.Second)
	}
	if t := c.LastTerminationState.Terminated; t != nil {
		t.StartedAt, t.FinishedAt = ago(70*time.Second), ago(15*time.Second)
	}
	if c.State.Running != nil || c.State.Terminated != nil {
		c.ImageID = c.Image + "@sha256:" + b.suffix("digest", 0, 8)
		c.ContainerID = "containerd://" + b.suffix("container:"+c.Name, 0, 12)
	}
	return c
}

func ptr[T any](v T) *T { return &v }

// podConditions keeps the thread's conditions and adds the ones every pod
// of that state has, as the scheduler and kubelet write them.
func (b *builder) podConditions(ps PodSpec) []corev1.PodCondition {
	has := map[corev1.PodConditionType]bool{}
	var out []corev1.PodCondition
	for _, c := range ps.Conditions {
		if c.LastTransitionTime.IsZero() {
			c.LastTransitionTime = at(3 * time.Second)
		}
		has[c.Type] = true
		out = append(out, c)
	}
	add := func(t corev1.PodConditionType, ok bool, reason string) {
		if has[t] {
			return
		}
		c := corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, LastTransitionTime: at(3 * time.Second)}
		if !ok {
			c.Status, c.Reason = corev1.ConditionFalse, reason
		}
		out = append(out, c)
	}
	if !ps.Node {
		add(corev1.PodScheduled, false, corev1.PodReasonUnschedulable)
		return out
	}
	initDone := true
	for _, c := range ps.InitContainers {
		if t := c.State.Terminated; t == nil || t.ExitCode != 0 {
			initDone = false
		}
	}
	ready := len(ps.Containers) > 0
	for _, c := range ps.Containers {
		ready = ready && c.Ready
	}
	add(corev1.PodInitialized, initDone, "ContainersNotInitialized")
	add(corev1.PodReady, ready, "ContainersNotReady")
	add(corev1.ContainersReady, ready, "ContainersNotReady")
	add(corev1.PodScheduled, true, "")
	return out
}

// kubeletContainerReasons are the kubelet's events about one container
// (pkg/kubelet/events/event.go); they carry its fieldPath.
var kubeletContainerReasons = map[string]bool{
	"Pulling": true, "Pulled": true, "Failed": true, "BackOff": true, "ErrImageNeverPull": true, "InspectFailed": true,
	"Created": true, "Started": true, "Killing": true, "Unhealthy": true, "ProbeWarning": true,
	"FailedPostStartHook": true, "FailedPreStopHook": true, "ExceededGracePeriod": true,
}

// defaultSource is the component that writes an event reason.
func defaultSource(on, reason string) string {
	if kind, _, ok := strings.Cut(on, "/"); ok {
		for k, s := range objectSources {
			if strings.ToLower(k) == kind {
				return s
			}
		}
		return ""
	}
	switch on {
	case "replicaset":
		return "replicaset-controller"
	case "deployment":
		return "deployment-controller"
	case "statefulset", "daemonset", "job", "cronjob":
		return on + "-controller"
	case "claim":
		return "persistentvolume-controller"
	}
	switch reason {
	case "FailedScheduling", "Scheduled":
		return "default-scheduler"
	case "FailedAttachVolume", "SuccessfulAttachVolume":
		return "attachdetach-controller"
	case "TriggeredScaleUp", "NotTriggerScaleUp", "ScaleDown":
		return "cluster-autoscaler"
	}
	return "kubelet"
}

func (b *builder) event(owners map[string]corev1.ObjectReference, pods []*corev1.Pod, i int, e EventSpec) *corev1.Event {
	ref := corev1.ObjectReference{Namespace: namespace}
	switch e.On {
	case "pod":
		p := pods[e.Pod]
		ref.Kind, ref.APIVersion, ref.Name, ref.UID = "Pod", "v1", p.Name, p.UID
		c := e.Container
		if c == "" && kubeletContainerReasons[e.Reason] {
			c = p.Spec.Containers[0].Name
		}
		if c != "" {
			ref.FieldPath = fmt.Sprintf("spec.containers{%s}", c)
			for _, ic := range p.Spec.InitContainers {
				if ic.Name == c {
					ref.FieldPath = fmt.Sprintf("spec.initContainers{%s}", c)
				}
			}
		}
	default:
		if r, ok := b.refs[e.On]; ok {
			ref = r
			break
		}
		key := e.On
		if e.On == "claim" {
			key = fmt.Sprintf("claim/%d", e.Pod)
		}
		o := owners[key]
		ref.Kind, ref.APIVersion, ref.Name, ref.UID = o.Kind, o.APIVersion, o.Name, o.UID
	}
	typ := e.Type
	if typ == "" {
		typ = corev1.EventTypeWarning
	}
	source := e.Source
	if source == "" {
		source = defaultSource(e.On, e.Reason)
	}
	count := e.Count
	if count == 0 {
		count = 1
	}
	// Events keep the thread's order; a repeated one spans the incident,
	// a single one happened during the last run.
	step := time.Duration(i) * 100 * time.Millisecond
	first, last := at(10*time.Second+step), ago(20*time.Second-step)
	if count == 1 {
		first = ago(30*time.Second - step)
		last = first
	}
	ev := &corev1.Event{
		TypeMeta:       metav1.TypeMeta{APIVersion: "v1", Kind: "Event"},
		ObjectMeta:     metav1.ObjectMeta{Name: fmt.Sprintf("%s.%s", ref.Name, b.suffix("event", i, 16)), Namespace: namespace, CreationTimestamp: first},
		InvolvedObject: ref, Reason: e.Reason, Message: e.Message, Type: typ, Count: count,
		Source:         corev1.EventSource{Component: source},
		FirstTimestamp: first, LastTimestamp: last,
		ReportingController: source,
	}
	if source == "kubelet" && e.On == "pod" && pods[e.Pod].Spec.NodeName != "" {
		ev.Source.Host = pods[e.Pod].Spec.NodeName
		ev.ReportingInstance = ev.Source.Host
	}
	return ev
}

// status writes the Deployment's and ReplicaSet's status from the pods, as
// their controllers would, and the thread's Deployment conditions.
func (b *builder) status(d *appsv1.Deployment, rs *appsv1.ReplicaSet, pods []*corev1.Pod) {
	var ready int32
	for _, p := range pods {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				ready++
			}
		}
	}
	n := int32(len(pods))
	rs.Status = appsv1.ReplicaSetStatus{Replicas: n, FullyLabeledReplicas: n, ReadyReplicas: ready, AvailableReplicas: ready, ObservedGeneration: 1}
	for _, e := range b.in.Events {
		if e.On == "replicaset" && e.Reason == "FailedCreate" {
			rs.Status.Conditions = []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue,
				Reason: "FailedCreate", Message: e.Message, LastTransitionTime: at(2 * time.Second)}}
		}
	}
	want := b.replicas()
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: n, UpdatedReplicas: n, ReadyReplicas: ready,
		AvailableReplicas: ready, UnavailableReplicas: max(want-ready, 0)}
	has := map[appsv1.DeploymentConditionType]bool{}
	if b.in.Deployment != nil {
		for _, c := range b.in.Deployment.Conditions {
			if c.LastUpdateTime.IsZero() {
				c.LastUpdateTime = ago(30 * time.Second)
			}
			if c.LastTransitionTime.IsZero() {
				c.LastTransitionTime = ago(30 * time.Second)
			}
			has[c.Type] = true
			d.Status.Conditions = append(d.Status.Conditions, c)
		}
	}
	if !has[appsv1.DeploymentAvailable] {
		c := appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable",
			Message: "Deployment has minimum availability.", LastUpdateTime: at(time.Second), LastTransitionTime: at(time.Second)}
		if ready < want {
			c.Status, c.Reason, c.Message = corev1.ConditionFalse, "MinimumReplicasUnavailable", "Deployment does not have minimum availability."
		}
		d.Status.Conditions = append(d.Status.Conditions, c)
	}
	if !has[appsv1.DeploymentProgressing] {
		d.Status.Conditions = append(d.Status.Conditions, appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing,
			Status: corev1.ConditionTrue, Reason: "ReplicaSetUpdated", Message: fmt.Sprintf("ReplicaSet %q is progressing.", rs.Name),
			LastUpdateTime: at(2 * time.Second), LastTransitionTime: at(time.Second)})
	}
}
