package paste

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// finish joins what the paste showed in several places (a pod described
// and listed, events under a describe whose head was cut), fills what
// one line shows for another, names what is missing, and sets the times.
func (p *parser) finish() *Result {
	p.mergePods()
	p.tieOrphans()
	p.skeletons()
	p.creators()
	p.owners()
	built := make([]*corev1.Event, 0, len(p.events))
	for _, e := range p.events {
		if e.row.name == "" {
			continue
		}
		built = append(built, p.event(e))
	}
	p.res.Now = Epoch
	first := true
	for _, t := range slices.Concat(p.abs, p.scheduleAnchors()) {
		if first || t.After(p.res.Now) {
			p.res.Now, first = t, false
		}
	}
	for _, rt := range p.rel {
		*rt.at = metav1.NewTime(p.res.Now.Add(-rt.age))
	}
	p.fromPods()
	for _, pt := range p.pods {
		p.nodeFromNodes(pt)
		nodeFromEvents(pt, built)
		p.containersOfEvents(pt, built)
		p.created(pt.pod, built)
		p.res.Pods = append(p.res.Pods, *pt.pod)
	}
	// A ReplicaFailure condition whose message no FailedCreate event of
	// the paste gives (the event not written yet, or not pasted) is left
	// out: its message is unknown, not empty, and an empty one reads as a
	// webhook's denial without words.
	for _, rs := range p.rss {
		msg := failedCreate(rs.Namespace, rs.Name, built)
		for i := range rs.Status.Conditions {
			if c := &rs.Status.Conditions[i]; c.Type == appsv1.ReplicaSetReplicaFailure && c.Message == "" {
				c.Message = msg
			}
		}
		rs.Status.Conditions = slices.DeleteFunc(rs.Status.Conditions, func(c appsv1.ReplicaSetCondition) bool {
			return c.Type == appsv1.ReplicaSetReplicaFailure && c.Message == ""
		})
		p.res.ReplicaSets = append(p.res.ReplicaSets, *rs)
	}
	for _, d := range p.deps {
		for i := range d.Status.Conditions {
			c := &d.Status.Conditions[i]
			if c.Type != appsv1.DeploymentReplicaFailure || c.Message != "" {
				continue
			}
			for _, rs := range p.rss {
				if metav1.IsControlledBy(rs, d) && c.Message == "" {
					c.Message = failedCreate(rs.Namespace, rs.Name, built)
				}
			}
		}
		d.Status.Conditions = slices.DeleteFunc(d.Status.Conditions, func(c appsv1.DeploymentCondition) bool {
			return c.Type == appsv1.DeploymentReplicaFailure && c.Message == ""
		})
		p.res.Deployments = append(p.res.Deployments, *d)
	}
	for _, n := range p.nodes {
		p.res.Nodes = append(p.res.Nodes, *n)
	}
	for _, c := range p.claimRows {
		p.res.Claims = append(p.res.Claims, *c)
	}
	for _, j := range p.jobs {
		jobConditions(j, built)
		p.res.Jobs = append(p.res.Jobs, *j)
	}
	p.endpointSlices()
	for _, e := range built {
		p.res.Events = append(p.res.Events, *e)
	}
	p.missing()
	return &p.res
}

// assignedRe is the scheduler's Scheduled event, which names the pod.
var assignedRe = regexp.MustCompile(`^Successfully assigned (?:([a-z0-9-]+)/)?(\S+) to (\S+)`)

// event builds a core/v1 event from a row.
func (p *parser) event(e *eventText) *corev1.Event {
	r := e.row
	ns := r.namespace
	ev := &corev1.Event{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Event"},
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s.paste%d", r.name, r.line), Namespace: ns},
		InvolvedObject: corev1.ObjectReference{Kind: r.kind, Name: r.name, Namespace: ns,
			UID: UID(r.kind, ns, r.name), FieldPath: r.fieldPath, APIVersion: apiVersions[r.kind]},
		Reason: r.reason, Message: r.message, Type: r.typ, Count: r.count,
		Source: corev1.EventSource{Component: r.source},
	}
	for _, g := range p.generic {
		if ev.InvolvedObject.APIVersion == "" && g.Kind == r.kind && g.Name == r.name && g.Namespace == ns {
			ev.InvolvedObject.APIVersion = g.APIVersion
		}
	}
	if ev.InvolvedObject.APIVersion == "" {
		ev.InvolvedObject.APIVersion = "v1"
	}
	if ev.Count == 0 {
		ev.Count = 1
	}
	switch {
	case r.aged:
		p.rel = append(p.rel, relTime{at: &ev.LastTimestamp, age: r.last}, relTime{at: &ev.FirstTimestamp, age: r.first})
	case !r.absLast.IsZero():
		ev.LastTimestamp, ev.FirstTimestamp = metav1.NewTime(r.absLast), metav1.NewTime(r.absFirst)
		p.abs = append(p.abs, r.absLast)
	}
	return ev
}

// createdJobRe is the CronJob controller's event on creating a Job
// ("Created job %v", pkg/controller/cronjob/cronjob_controllerv2.go),
// whose name is the CronJob's and its scheduled time in minutes since
// the epoch (getJobName, getTimeHashInMinutes: Unix()/60).
var createdJobRe = regexp.MustCompile(`^Created job \S+-(\d{8,10})$`)

// scheduleAnchors are moments the paste was printed no earlier than: a
// Job a CronJob created names the minute it was scheduled for, and the
// event of its creation, seen an age ago, came at or after that minute.
// Where a paste's newest absolute time is its last schedule, the ages of
// those events say how long ago that was.
func (p *parser) scheduleAnchors() []time.Time {
	var out []time.Time
	for _, e := range p.events {
		r := e.row
		if !r.aged || r.reason != "SuccessfulCreate" {
			continue
		}
		m := createdJobRe.FindStringSubmatch(r.message)
		if m == nil {
			continue
		}
		minutes, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil {
			continue
		}
		out = append(out, time.Unix(minutes*60, 0).UTC().Add(r.last))
	}
	return out
}

// created gives a pod its creation time when the paste printed none
// (describe pod does not): the earlier of its start and its oldest
// event. The walk only counts from it.
func (p *parser) created(pod *corev1.Pod, events []*corev1.Event) {
	if !pod.CreationTimestamp.IsZero() {
		return
	}
	if pod.Status.StartTime != nil {
		pod.CreationTimestamp = *pod.Status.StartTime
	}
	for _, e := range events {
		if e.InvolvedObject.Kind == "Pod" && e.InvolvedObject.Name == pod.Name && !e.FirstTimestamp.IsZero() &&
			(pod.CreationTimestamp.IsZero() || e.FirstTimestamp.Before(&pod.CreationTimestamp)) {
			pod.CreationTimestamp = e.FirstTimestamp
		}
	}
}

// owners ties pods the paste does not say the owner of (kubectl get pods
// rows) to a ReplicaSet of the paste: by their pod-template-hash label,
// else by name (a ReplicaSet names its pods NAME-xxxxx). A pod a
// ReplicaSet controls carries its selector's labels: a row that shows
// none gets them.
func (p *parser) owners() {
	for _, pt := range p.pods {
		pod := pt.pod
		if metav1.GetControllerOf(pod) == nil {
			for _, rs := range p.rss {
				if rs.Namespace != pod.Namespace && pod.Namespace != "" {
					continue
				}
				hash := pod.Labels[appsv1.DefaultDeploymentUniqueLabelKey]
				byHash := hash != "" && strings.HasSuffix(rs.Name, "-"+hash)
				byName := pod.Labels == nil && strings.HasPrefix(pod.Name, rs.Name+"-") && len(pod.Name) == len(rs.Name)+6
				if byHash || byName {
					yes := true
					pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID, Controller: &yes}}
					if pod.Namespace == "" {
						pod.Namespace = rs.Namespace
						pod.UID = UID("Pod", pod.Namespace, pod.Name)
					}
				}
			}
		}
		ref := metav1.GetControllerOf(pod)
		if ref == nil || ref.Kind != "ReplicaSet" {
			continue
		}
		rs := p.replicaSet(pod.Namespace, ref.Name)
		if rs == nil || rs.Spec.Selector == nil {
			continue
		}
		if pod.Labels == nil {
			pod.Labels = map[string]string{}
		}
		for k, v := range rs.Spec.Selector.MatchLabels {
			if _, ok := pod.Labels[k]; !ok && !pt.described {
				pod.Labels[k] = v
			}
		}
	}
}

// missing names the text a walk would need that the paste lacks.
func (p *parser) missing() {
	for _, pt := range p.pods {
		pod := pt.pod
		if pt.nodeUnknown && !pt.skeleton && !pt.described {
			p.note(fmt.Sprintf("pod/%s runs on a node the paste does not show: kubectl get pods -o wide, or kubectl describe pod %s, shows it", pod.Name, pod.Name))
		}
		ref := metav1.GetControllerOf(pod)
		if ref == nil {
			if !pt.described && !pt.skeleton {
				p.note(fmt.Sprintf("pod/%s: a kubectl get pods row does not show who owns the pod; paste kubectl describe pod %s", pod.Name, pod.Name))
			}
			continue
		}
		if ref.Kind != "ReplicaSet" {
			if !p.hasWorkload(ref.Kind, pod.Namespace, ref.Name) {
				p.note(fmt.Sprintf("pod/%s is controlled by %s/%s, which is not in the paste: paste kubectl describe %s %s too", pod.Name, strings.ToLower(ref.Kind), ref.Name, strings.ToLower(ref.Kind), ref.Name))
			}
			continue
		}
		rs := p.replicaSet(pod.Namespace, ref.Name)
		if rs == nil {
			hint := ""
			if h := pod.Labels[appsv1.DefaultDeploymentUniqueLabelKey]; h != "" && strings.HasSuffix(ref.Name, "-"+h) {
				hint = fmt.Sprintf(" (and kubectl describe deployment %s, its owner by its name)", strings.TrimSuffix(ref.Name, "-"+h))
			}
			p.note(fmt.Sprintf("pod/%s is controlled by replicaset/%s, which is not in the paste: paste kubectl describe rs %s too%s to walk its workload", pod.Name, ref.Name, ref.Name, hint))
		}
	}
	for _, rs := range p.rss {
		if ref := metav1.GetControllerOf(rs); ref != nil && !p.hasWorkload(ref.Kind, rs.Namespace, ref.Name) {
			p.note(fmt.Sprintf("replicaset/%s is controlled by %s/%s, which is not in the paste: paste kubectl describe %s %s too", rs.Name, strings.ToLower(ref.Kind), ref.Name, strings.ToLower(ref.Kind), ref.Name))
		}
	}
	for _, d := range p.deps {
		for _, rs := range p.rss {
			if !metav1.IsControlledBy(rs, d) || rs.Spec.Template.Spec.Containers == nil || rs.Status.Replicas == 0 {
				continue
			}
			shown := 0
			sel, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
			for _, pt := range p.pods {
				if err == nil && sel.Matches(labels.Set(pt.pod.Labels)) {
					shown++
				}
			}
			if shown < int(rs.Status.Replicas) {
				p.note(fmt.Sprintf("replicaset/%s has %d pods and the paste shows %d: paste kubectl describe pods -l %s", rs.Name, rs.Status.Replicas, shown, metav1.FormatLabelSelector(rs.Spec.Selector)))
			}
		}
	}
}

// hasWorkload says the paste describes the owner kind/namespace/name.
func (p *parser) hasWorkload(kind, namespace, name string) bool {
	var metas []metav1.ObjectMeta
	switch kind {
	case "Deployment":
		for _, d := range p.deps {
			metas = append(metas, d.ObjectMeta)
		}
	case "StatefulSet":
		for _, s := range p.res.StatefulSets {
			metas = append(metas, s.ObjectMeta)
		}
	case "DaemonSet":
		for _, d := range p.res.DaemonSets {
			metas = append(metas, d.ObjectMeta)
		}
	case "Job":
		for _, j := range p.jobs {
			metas = append(metas, j.ObjectMeta)
		}
	case "CronJob":
		for _, c := range p.res.CronJobs {
			metas = append(metas, c.ObjectMeta)
		}
	}
	for _, g := range p.generic {
		if g.Kind == kind {
			metas = append(metas, g.ObjectMeta)
		}
	}
	for _, m := range metas {
		if m.Name == name && (m.Namespace == namespace || namespace == "") {
			return true
		}
	}
	return false
}

// failedCreate is the message of a ReplicaSet's ReplicaFailure condition,
// which describe does not print: the error of the pod create that failed
// first (the controller sets the condition once, from that error, and
// records it as the event "Error creating: %v": pkg/controller/replicaset
// replica_set_utils.go and pkg/controller/controller_utils.go at v1.37.2),
// taken from the oldest FailedCreate event the paste shows.
func failedCreate(namespace, name string, events []*corev1.Event) string {
	var first *corev1.Event
	for _, e := range events {
		o := e.InvolvedObject
		if o.Kind != "ReplicaSet" || o.Name != name || o.Namespace != namespace || e.Reason != "FailedCreate" {
			continue
		}
		if first == nil || e.FirstTimestamp.Before(&first.FirstTimestamp) {
			first = e
		}
	}
	if first == nil {
		return ""
	}
	return strings.TrimPrefix(strings.TrimPrefix(first.Message, "(combined from similar events): "), "Error creating: ")
}

// nodeFromNodes gives a pod whose node the paste does not show the node
// whose kubectl describe lists it among its Non-terminated Pods.
func (p *parser) nodeFromNodes(pt *podText) {
	pod := pt.pod
	if pod.Spec.NodeName != "" && pod.Spec.NodeName != unknownNode {
		return
	}
	for _, o := range p.onNode {
		if o.pod == pod.Name && (pod.Namespace == "" || o.namespace == pod.Namespace) {
			pod.Spec.NodeName, pt.nodeUnknown = o.node, false
		}
	}
}

// endpointSlices adds the slices read from kubectl describe endpoints
// whose Service no described slice serves.
func (p *parser) endpointSlices() {
	for _, e := range p.endpoints {
		svc := e.Labels[discoveryv1.LabelServiceName]
		described := false
		for _, s := range p.res.EndpointSlices {
			described = described || s.Namespace == e.Namespace && s.Labels[discoveryv1.LabelServiceName] == svc
		}
		if !described {
			p.res.EndpointSlices = append(p.res.EndpointSlices, e)
		}
	}
}

// nodeFromEvents gives a pod whose node the paste does not show (a get
// pods row without -o wide, a describe cut above its Node line) the node
// its Scheduled event names.
func nodeFromEvents(pt *podText, events []*corev1.Event) {
	pod := pt.pod
	if pod.Spec.NodeName != "" && pod.Spec.NodeName != unknownNode {
		return
	}
	for _, e := range events {
		if e.InvolvedObject.Kind == "Pod" && e.InvolvedObject.Name == pod.Name && e.Reason == "Scheduled" {
			if m := assignedRe.FindStringSubmatch(e.Message); m != nil {
				pod.Spec.NodeName, pt.nodeUnknown = m[3], false
			}
		}
	}
}
