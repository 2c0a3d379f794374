package paste

import (
	"regexp"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// table reads a kubectl get table from its header (or, for events whose
// header a tail cut, from its first row) to its last row.
func (p *parser) table(lines []line, i int, kind string) int {
	var t table
	headerless := tableKind(lines[i]) == ""
	if !headerless {
		t = newTable(expandTabs(lines[i].raw))
		i++
	} else {
		p.note("a kubectl get events table starts without its header: the paste was cut (by tail or head), and events before its first row are not in it")
	}
	rows := 0
	var last *eventText
	for ; i < len(lines); i++ {
		l := lines[i]
		if l.text == "" || isBoundary(l) || tableKind(l) != "" || isDescribeStart(lines, i) {
			break
		}
		raw := expandTabs(l.raw)
		switch kind {
		case "events":
			ev, ok := getEventsRow(t, raw)
			if headerless {
				ev, ok = headerlessEvent(raw)
			}
			if !ok {
				if last == nil {
					return i
				}
				last.row.message = strings.TrimSpace(last.row.message + "\n" + l.text)
				continue
			}
			ev.line = l.n
			last = &eventText{row: ev}
			p.events = append(p.events, last)
		case "pods":
			if !p.podRow(t, raw) {
				return i
			}
		case "nodes":
			if !p.nodeRow(t, raw) {
				return i
			}
		}
		rows++
	}
	switch kind {
	case "events", "pods", "nodes":
		p.res.Forms = append(p.res.Forms, "kubectl get "+kind)
	default:
		p.res.Forms = append(p.res.Forms, "kubectl get "+kind+" (not read)")
		p.note("kubectl get " + kind + " rows are not read: they show no pod template or selector; paste kubectl describe " + strings.TrimSuffix(kind, "s") + " NAME for them")
	}
	return i
}

// podRow reads a row of kubectl get pods (-o wide, --show-labels, -A).
func (p *parser) podRow(t table, raw string) bool {
	cells, ok := t.cells(raw)
	if !ok {
		cells = columns(raw)
		if len(cells) < 4 {
			return false
		}
		// Blanks split "2 (3m ago)" and "NOMINATED NODE": read the
		// fixed columns from the left.
		cells = fixRow(t, cells)
	}
	get := func(n string) string {
		if i := t.col(n); i >= 0 && i < len(cells) {
			return cells[i]
		}
		return ""
	}
	name := get("NAME")
	ready := readyRe.FindStringSubmatch(get("READY"))
	if name == "" || ready == nil {
		return false
	}
	ns := get("NAMESPACE")
	pod := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: UID("Pod", ns, name)}}
	pt := &podText{pod: pod}
	if age, ok := parseAge(get("AGE")); ok {
		p.rel = append(p.rel, relTime{at: &pod.CreationTimestamp, age: age})
	}
	if labels := get("LABELS"); labels != "" {
		pod.Labels = labelsOf(field{val: labels})
	}
	if t.col("NODE") >= 0 {
		if node := get("NODE"); !none(node) {
			pod.Spec.NodeName = node
		}
		if ip := get("IP"); !none(ip) {
			pod.Status.PodIP = ip
		}
		if n := get("NOMINATED NODE"); !none(n) {
			pod.Status.NominatedNodeName = n
		}
	}
	readyN, _ := strconv.Atoi(ready[1])
	total, _ := strconv.Atoi(ready[2])
	restarts, _ := strconv.Atoi(strings.Fields(get("RESTARTS") + " 0")[0])
	statusOfRow(pt, get("STATUS"), readyN, total, int32(restarts), t.col("NODE") >= 0)
	p.pods = append(p.pods, pt)
	return true
}

var readyRe = regexp.MustCompile(`^(\d+)/(\d+)$`)

// fixRow puts blank-split cells back under a header that has cells of
// two words ("2 (3m ago)", "<none>" in NOMINATED NODE).
func fixRow(t table, cells []string) []string {
	if i := t.col("RESTARTS"); i >= 0 && i+1 < len(cells) && strings.HasPrefix(cells[i+1], "(") {
		cells = append(cells[:i+1], cells[i+2:]...)
	}
	return cells
}

// podFailReasons are the pod-level reasons STATUS shows for a pod the
// kubelet or a controller failed (status.reason).
var podFailReasons = map[string]bool{
	"Evicted": true, "OutOfcpu": true, "OutOfmemory": true, "OutOfpods": true, "NodeAffinity": true,
	"NodeLost": true, "Shutdown": true, "UnexpectedAdmissionError": true, "Terminated": true,
	"DeadlineExceeded": true, "OutOfephemeral-storage": true, "NodeShutdown": true,
}

// runningReasons are the STATUS words of containers that have started
// at least once: their pod's phase is Running.
var runningReasons = map[string]bool{
	"CrashLoopBackOff": true, "Error": true, "OOMKilled": true, "Completed": true, "RunContainerError": true,
	"NotReady": true, "ContainerStatusUnknown": true, "StartError": true,
}

// statusOfRow gives a pod what its STATUS cell says (printPod's reason:
// the pod's reason, or its first init container's, or its last
// container's that has one). A container's name is not in the row: the
// state goes to an unnamed container that finish names from the pod's
// events.
func statusOfRow(pt *podText, status string, ready, total int, restarts int32, wide bool) {
	pod := pt.pod
	bound := true
	waiting := func(init bool, reason string) {
		st := corev1.ContainerStatus{State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason}}, RestartCount: restarts}
		if init {
			pod.Status.InitContainerStatuses = []corev1.ContainerStatus{st}
		} else {
			pod.Status.ContainerStatuses = []corev1.ContainerStatus{st}
		}
		pt.unnamed = true
	}
	switch r, init := strings.CutPrefix(status, "Init:"); {
	case status == "Pending":
		pod.Status.Phase, bound = corev1.PodPending, false
	case status == "SchedulingGated":
		pod.Status.Phase, bound = corev1.PodPending, false
		pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "SchedulingGated"}}
	case status == "Running":
		pod.Status.Phase = corev1.PodRunning
		if ready == total {
			pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		} else {
			pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}
		}
	case status == "Completed" && restarts == 0 || status == "Succeeded":
		pod.Status.Phase = corev1.PodSucceeded
	case status == "Failed":
		pod.Status.Phase = corev1.PodFailed
	case status == "Terminating":
		t := metav1.Time{}
		pod.DeletionTimestamp = &t
	case status == "Unknown":
		pod.Status.Phase = corev1.PodUnknown
	case podFailReasons[status]:
		pod.Status.Phase, pod.Status.Reason = corev1.PodFailed, status
	case init && regexp.MustCompile(`^\d+/\d+$`).MatchString(r):
		pod.Status.Phase = corev1.PodPending
	case init:
		pod.Status.Phase = corev1.PodPending
		waiting(true, r)
	case runningReasons[status]:
		pod.Status.Phase = corev1.PodRunning
		waiting(false, status)
		if status != "CrashLoopBackOff" {
			cs := &pod.Status.ContainerStatuses[0]
			cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: status}}
		}
	default:
		// ContainerCreating, ImagePullBackOff, CreateContainerConfigError,
		// ...: the kubelet's reasons for containers that never started.
		pod.Status.Phase = corev1.PodPending
		waiting(false, status)
	}
	if bound && pod.Spec.NodeName == "" && !wide {
		pt.nodeUnknown = true
	}
	_ = total
}

// nodeRow reads a row of kubectl get nodes.
func (p *parser) nodeRow(t table, raw string) bool {
	cells, ok := t.cells(raw)
	if !ok {
		cells = columns(raw)
	}
	get := func(n string) string {
		if i := t.col(n); i >= 0 && i < len(cells) {
			return cells[i]
		}
		return ""
	}
	name, status := get("NAME"), get("STATUS")
	if name == "" || status == "" {
		return false
	}
	n := &corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}, ObjectMeta: metav1.ObjectMeta{Name: name, UID: UID("Node", "", name)}}
	ready := corev1.ConditionUnknown
	for _, s := range strings.Split(status, ",") {
		switch s {
		case "Ready":
			ready = corev1.ConditionTrue
		case "NotReady":
			ready = corev1.ConditionFalse
		case "SchedulingDisabled":
			n.Spec.Unschedulable = true
		}
	}
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready}}
	n.Status.NodeInfo.KubeletVersion = get("VERSION")
	if age, ok := parseAge(get("AGE")); ok {
		p.rel = append(p.rel, relTime{at: &n.CreationTimestamp, age: age})
	}
	p.nodes = append(p.nodes, n)
	return true
}
