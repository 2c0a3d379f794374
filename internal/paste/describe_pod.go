package paste

import (
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// describePod rebuilds a pod from kubectl describe pod.
func (p *parser) describePod(b block) {
	ns := b.value("Namespace")
	pod := &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: b.value("Name"), Namespace: ns},
	}
	pod.UID = UID("Pod", ns, pod.Name)
	pod.OwnerReferences = ownerOf(b, ns)
	if f, ok := b.get("Labels"); ok {
		pod.Labels = labelsOf(f)
	}
	if f, ok := b.get("Annotations"); ok {
		pod.Annotations = annotationsOf(f)
	}
	if v := b.value("Priority"); v != "" {
		if n, err := strconv.Atoi(v); err == nil {
			n32 := int32(n)
			pod.Spec.Priority = &n32
		}
	}
	pod.Spec.PriorityClassName = b.value("Priority Class Name", "PriorityClassName")
	pod.Spec.ServiceAccountName = b.value("Service Account")
	if node := b.value("Node"); node != "" && node != "/" {
		name, ip, _ := strings.Cut(node, "/")
		pod.Spec.NodeName, pod.Status.HostIP = name, ip
	}
	if v := b.value("Start Time"); v != "" {
		t := p.absolute(v)
		if !t.IsZero() {
			pod.Status.StartTime = &t
		}
	}
	status := b.value("Status")
	if rest, ok := strings.CutPrefix(status, "Terminating"); ok {
		t := metav1.Time{}
		pod.DeletionTimestamp = &t
		p.rel = append(p.rel, relTime{at: pod.DeletionTimestamp, age: lastsOf(rest)})
		status = ""
	}
	pod.Status.Phase = corev1.PodPhase(status)
	pod.Status.Reason = b.value("Reason")
	if f, ok := b.get("Message"); ok && !none(f.val) {
		// A message on several lines (a paste wraps it at its margin).
		pod.Status.Message = strings.Join(append([]string{f.val}, texts(f.body)...), "\n")
	}
	pod.Status.PodIP = b.value("IP")
	pod.Status.NominatedNodeName = b.value("NominatedNodeName", "Nominated Node Name")
	pod.Status.QOSClass = corev1.PodQOSClass(b.value("QoS Class"))
	if f, ok := b.get("Init Containers"); ok {
		pod.Spec.InitContainers, pod.Status.InitContainerStatuses = p.containersOf(f)
	}
	if f, ok := b.get("Containers"); ok {
		pod.Spec.Containers, pod.Status.ContainerStatuses = p.containersOf(f)
	}
	markSidecars(pod)
	if f, ok := b.get("Conditions"); ok {
		pod.Status.Conditions = podConditionsOf(f)
	}
	if f, ok := b.get("Volumes"); ok {
		pod.Spec.Volumes = volumesOf(f)
	}
	if f, ok := b.get("Node-Selectors"); ok {
		pod.Spec.NodeSelector = labelsOf(f)
	}
	if f, ok := b.get("Tolerations"); ok {
		pod.Spec.Tolerations = tolerationsOf(f)
	}
	if pod.Name == unnamed {
		// Its Scheduled event names it.
		if f, ok := b.get("Events"); ok {
			rows, _ := describeEvents(f.body)
			for _, r := range rows {
				if m := assignedRe.FindStringSubmatch(r.message); m != nil && r.reason == "Scheduled" {
					pod.Name = m[2]
					if pod.Namespace == "" {
						pod.Namespace = m[1]
					}
				}
			}
		}
		ns = pod.Namespace
		pod.UID = UID("Pod", ns, pod.Name)
	}
	pt := &podText{pod: pod, described: true}
	if !b.has("Node") && len(pod.Status.InitContainerStatuses)+len(pod.Status.ContainerStatuses) > 0 {
		// A describe cut above its Node line: the kubelet has set
		// states, so the pod is bound, to a node the paste does not show.
		pod.Spec.NodeName, pt.nodeUnknown = unknownNode, true
	}
	p.pods = append(p.pods, pt)
	p.res.Forms = append(p.res.Forms, "kubectl describe pod "+key(ns, pod.Name))
	p.blockEvents(b, "Pod", ns, pod.Name)
	p.cutAt(b, "pod "+key(ns, pod.Name))
}

// markSidecars gives restartPolicy Always to the init containers the
// states show are native sidecars, which describe does not say: while an
// app container runs, every classic init container has completed (one
// that fails holds the app containers back, and a new sandbox runs them
// all again before any app container), so an init container that runs,
// waits or has stopped other than by completing is kept going beside
// them.
func markSidecars(pod *corev1.Pod) {
	appRuns := false
	for _, st := range pod.Status.ContainerStatuses {
		appRuns = appRuns || st.State.Running != nil
	}
	if !appRuns {
		return
	}
	always := corev1.ContainerRestartPolicyAlways
	for _, st := range pod.Status.InitContainerStatuses {
		if t := st.State.Terminated; t != nil && t.ExitCode == 0 && st.RestartCount == 0 {
			continue // completed, as a classic init container does
		}
		for i := range pod.Spec.InitContainers {
			if c := &pod.Spec.InitContainers[i]; c.Name == st.Name && c.RestartPolicy == nil {
				c.RestartPolicy = &always
			}
		}
	}
}

// lastsOf reads "(lasts 3m)" of a terminating pod.
func lastsOf(s string) time.Duration {
	s = strings.Trim(strings.TrimSpace(s), "()")
	d, _ := parseAge(strings.TrimPrefix(s, "lasts "))
	return d
}

// podConditionsOf reads the Conditions table: Type and Status (describe
// prints no reason or message of a pod's conditions).
func podConditionsOf(f field) []corev1.PodCondition {
	var out []corev1.PodCondition
	for _, l := range f.body {
		c := strings.Fields(l.text)
		if len(c) < 2 || c[0] == "Type" || strings.Trim(l.text, "- ") == "" {
			continue
		}
		if c[1] != "True" && c[1] != "False" && c[1] != "Unknown" {
			continue
		}
		out = append(out, corev1.PodCondition{Type: corev1.PodConditionType(c[0]), Status: corev1.ConditionStatus(c[1])})
	}
	return out
}

// blockEvents keeps a describe block's events as events about the object
// described.
func (p *parser) blockEvents(b block, kind, namespace, name string) {
	f, ok := b.get("Events")
	if !ok {
		return
	}
	rows, _ := describeEvents(f.body)
	for _, r := range rows {
		r.kind, r.name, r.namespace = kind, name, namespace
		p.events = append(p.events, &eventText{row: r, described: true})
	}
}

// orphanEvents keeps an Events section whose describe head was not
// pasted: finish ties it to the paste's only described object, if any.
func (p *parser) orphanEvents(b block) {
	f, ok := b.get("Events")
	if !ok {
		return
	}
	rows, _ := describeEvents(f.body)
	for _, r := range rows {
		p.events = append(p.events, &eventText{row: r, described: true, orphan: true})
	}
	if len(rows) > 0 {
		p.res.Forms = append(p.res.Forms, "the Events of a kubectl describe")
	}
}

// cutAt notes a describe block that ends before its last section: a
// paste cut short (describe ends with Events unless --show-events=false).
func (p *parser) cutAt(b block, what string) {
	if len(b.fields) == 0 {
		return
	}
	last := b.fields[len(b.fields)-1]
	if last.key == "Events" {
		if rows, header := describeEvents(last.body); len(rows) == 0 && !none(last.val) && !header {
			p.note("the kubectl describe of " + what + " is cut in its Events")
		}
		return
	}
	p.note("the kubectl describe of " + what + " is cut after " + last.key + ": what follows (its Events) is not in the paste")
}

func key(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// texts are the lines' texts.
func texts(lines []line) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, l.text)
	}
	return out
}
