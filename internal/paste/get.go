package paste

import (
	"cmp"
	"fmt"
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
				if cutRowRe.MatchString(l.text) {
					// A row cut short (the end of a paste): not a
					// message's next line.
					p.note("a kubectl get events row is cut short: " + l.text)
					continue
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
		case "ingressclasses":
			if !p.ingressClassRow(t, raw) {
				return i
			}
		case "persistentvolumeclaims":
			if !p.claimRow(t, raw) {
				return i
			}
		}
		rows++
	}
	switch kind {
	case "events", "pods", "nodes", "ingressclasses", "persistentvolumeclaims":
		p.res.Forms = append(p.res.Forms, "kubectl get "+kind)
	case "other":
		p.res.Forms = append(p.res.Forms, "a kubectl get table (not read)")
		p.note("a kubectl get table of columns " + strings.Join(t.names, ", ") + " is not read: kubectl chain reads kubectl get pods, events, nodes, ingressclasses and pvc, and kubectl describe of workloads, pods, Services, Ingresses, nodes, claims, quotas and namespaces")
	default:
		p.res.Forms = append(p.res.Forms, "kubectl get "+kind+" (not read)")
		p.note("kubectl get " + kind + " rows are not read: they show no pod template or selector; paste kubectl describe " + strings.TrimSuffix(kind, "s") + " NAME for them")
	}
	return i
}

// unknownNode is the node of a pod the paste shows bound without
// showing where.
const unknownNode = "<unknown>"

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
	get := func(n string) string { return t.cell(cells, n) }
	name := get("NAME")
	ready := readyRe.FindStringSubmatch(get("READY"))
	if name == "" || ready == nil {
		return false
	}
	ns := cmp.Or(get("NAMESPACE"), p.ns)
	pod := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: UID("Pod", ns, name)}}
	pt := &podText{pod: pod}
	if age, ok := parseAge(get("AGE")); ok {
		p.rel = append(p.rel, relTime{at: &pod.CreationTimestamp, age: age})
	}
	if labels := get("LABELS"); labels != "" {
		pod.Labels = labelsOf(field{val: labels})
	}
	if ip := get("IP"); !none(ip) {
		pod.Status.PodIP = ip
	}
	if t.col("NODE") >= 0 {
		if node := get("NODE"); !none(node) {
			pod.Spec.NodeName = node
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

// statusOfRow gives a pod what its STATUS and READY cells say (printPod's
// reason: the pod's reason, or its first failing init container's, or
// its last container's that has one; READY counts the containers that
// run ready). The row names no container: they are called #1, #2, ...
// (no container can be named so), and finish names a pod's only
// container from its events.
func statusOfRow(pt *podText, status string, ready, total int, restarts int32, wide bool) {
	pod := pt.pod
	bound := true
	var told *corev1.ContainerStatus // the container STATUS is about
	init := false
	switch r, isInit := strings.CutPrefix(status, "Init:"); {
	case status == "Pending":
		pod.Status.Phase, bound = corev1.PodPending, false
	case status == "SchedulingGated":
		pod.Status.Phase, bound = corev1.PodPending, false
		pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "SchedulingGated"}}
	case status == "Running" || status == "NotReady":
		pod.Status.Phase = corev1.PodRunning
		c := corev1.ConditionTrue
		if ready < total {
			c = corev1.ConditionFalse
		}
		pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: c}}
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
	case isInit && initCountRe.MatchString(r):
		pod.Status.Phase = corev1.PodPending
	case isInit:
		pod.Status.Phase, init = corev1.PodPending, true
		told = &corev1.ContainerStatus{State: initState(r), RestartCount: restarts}
	case runningReasons[status]:
		pod.Status.Phase = corev1.PodRunning
		told = &corev1.ContainerStatus{State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: status}}, RestartCount: restarts}
		if status != "CrashLoopBackOff" {
			told.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: status}}
		}
	default:
		// ContainerCreating, ImagePullBackOff, CreateContainerConfigError,
		// ...: the kubelet's reasons for containers that never started.
		pod.Status.Phase = corev1.PodPending
		told = &corev1.ContainerStatus{State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: status}}, RestartCount: restarts}
	}
	if bound && pod.Status.Phase != corev1.PodSucceeded {
		rowContainers(pt, told, init, ready, total)
		if sts := pod.Status.ContainerStatuses; told == nil && len(sts) == 1 {
			// RESTARTS sums the containers': the only one's.
			sts[0].RestartCount = restarts
		}
	}
	if bound && pod.Spec.NodeName == "" && !wide {
		// The kubelet has set states, so the pod is bound; the row does
		// not show where (finish takes the node from a Scheduled event).
		pod.Spec.NodeName, pt.nodeUnknown = unknownNode, true
	}
}

// initTerminated are the reasons printPod writes after "Init:" for an
// init container that terminated (the runtime's word); the others are
// waiting reasons.
var initTerminated = map[string]bool{"Error": true, "OOMKilled": true, "ContainerCannotRun": true, "StartError": true, "DeadlineExceeded": true}

// initExitRe is printPod's "Init:ExitCode:N" and "Init:Signal:N", for an
// init container that terminated without a reason.
var initExitRe = regexp.MustCompile(`^(ExitCode|Signal):(\d+)$`)

// initState is the state of the init container a STATUS of "Init:R"
// is about.
func initState(r string) corev1.ContainerState {
	if m := initExitRe.FindStringSubmatch(r); m != nil {
		n, _ := strconv.Atoi(m[2])
		t := &corev1.ContainerStateTerminated{ExitCode: int32(n)}
		if m[1] == "Signal" {
			t.Signal, t.ExitCode = int32(n), int32(128+n)
		}
		return corev1.ContainerState{Terminated: t}
	}
	if initTerminated[r] {
		return corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: r}}
	}
	return corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: r}}
}

// cutRowRe is the start of a get events row, its LAST SEEN cell.
var cutRowRe = regexp.MustCompile(`^(?:\S+\s+)?\d+[smhdy]|^<unknown>|^<invalid>`)

var initCountRe = regexp.MustCompile(`^\d+/\d+$`)

// rowContainers gives a listed pod the containers its READY cell counts:
// the one STATUS is about, those that run ready, and those that run
// not ready.
func rowContainers(pt *podText, told *corev1.ContainerStatus, init bool, ready, total int) {
	pod := pt.pod
	n := 0
	name := func() string { n++; return fmt.Sprintf("#%d", n) }
	if told != nil {
		told.Name = name()
		if init {
			pod.Spec.InitContainers = []corev1.Container{{Name: told.Name}}
			pod.Status.InitContainerStatuses = []corev1.ContainerStatus{*told}
		} else {
			pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: told.Name})
			pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, *told)
		}
		pt.unnamed = true
		if !init {
			total--
		}
	}
	if init {
		return // the containers wait for it
	}
	for i := 0; i < total; i++ {
		st := corev1.ContainerStatus{Name: name(), Ready: i < ready, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}
		pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: st.Name})
		pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, st)
	}
	pt.unnamed = pt.unnamed || len(pod.Status.ContainerStatuses) > 0
}

// nodeRow reads a row of kubectl get nodes.
func (p *parser) nodeRow(t table, raw string) bool {
	cells, ok := t.cells(raw)
	if !ok {
		cells = columns(raw)
	}
	get := func(n string) string { return t.cell(cells, n) }
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

// claimRow reads a row of kubectl get pvc (-o wide, -A): NAME, STATUS,
// VOLUME, CAPACITY, ACCESS MODES, STORAGECLASS, VOLUMEATTRIBUTESCLASS
// (1.29+), AGE, VOLUMEMODE. A claim's empty cells (no volume, no class)
// are told only by the header's column starts: a row that lost its
// spacing is not read.
func (p *parser) claimRow(t table, raw string) bool {
	cells, ok := t.cells(raw)
	if !ok {
		if cells = columns(raw); len(cells) != len(t.names) {
			return false
		}
	}
	get := func(n string) string { return t.cell(cells, n) }
	name, status := get("NAME"), get("STATUS")
	if name == "" || status == "" {
		return false
	}
	ns := cmp.Or(get("NAMESPACE"), p.ns)
	c := &corev1.PersistentVolumeClaim{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: UID("PersistentVolumeClaim", ns, name)}}
	c.Status.Phase = corev1.PersistentVolumeClaimPhase(status)
	// kubectl prints "" for a claim with no class, set or not: either
	// way it binds only a volume with no class.
	class := get("STORAGECLASS")
	c.Spec.StorageClassName = &class
	if v := get("VOLUME"); !none(v) {
		c.Spec.VolumeName = v
	}
	c.Status.AccessModes = accessModesOf(get("ACCESS MODES"))
	if age, ok := parseAge(get("AGE")); ok {
		p.rel = append(p.rel, relTime{at: &c.CreationTimestamp, age: age})
	}
	p.claimRows = append(p.claimRows, c)
	return true
}

// podRowRe is a kubectl get pods row without its header (a paste cut by
// tail, or rows quoted alone): [NAMESPACE] NAME READY STATUS RESTARTS AGE,
// then -o wide's IP, NODE, NOMINATED NODE and READINESS GATES.
var podRowRe = regexp.MustCompile(`^(?:[a-z0-9][-a-z0-9]*\s{2,})?[a-z0-9][-a-z0-9.]*\s{2,}\d+/\d+\s{2,}[A-Za-z][-A-Za-z:0-9]*\s{2,}\d+(?: \([^)]*\))?\s{2,}(?:\d+[smhdy])+(?:\s{2,}|$)`)

// headerlessPods reads kubectl get pods rows without their header, the
// columns told by the place of the READY cell and how many follow AGE.
func (p *parser) headerlessPods(lines []line, i int) int {
	read := 0
	for ; i < len(lines) && podRowRe.MatchString(lines[i].text); i++ {
		raw := expandTabs(lines[i].raw)
		cells := columns(raw)
		names := []string{"NAME", "READY", "STATUS", "RESTARTS", "AGE"}
		if readyRe.MatchString(cells[2]) {
			names = append([]string{"NAMESPACE"}, names...)
		}
		if len(cells) >= len(names)+2 {
			names = append(names, "IP", "NODE", "NOMINATED NODE", "READINESS GATES")
		}
		t := table{names: names[:min(len(names), len(cells))]}
		off := 0
		for _, c := range cells[:len(t.names)] {
			at := strings.Index(raw[off:], c) + off
			t.starts = append(t.starts, at)
			off = at + len(c)
		}
		if p.podRow(t, raw) {
			read++
		}
	}
	if read > 0 {
		p.res.Forms = append(p.res.Forms, "kubectl get pods")
		p.note("kubectl get pods rows without their header: their columns are read by their place")
	}
	return i
}
