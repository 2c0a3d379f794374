package paste

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// eventRow is one event as a paste shows it.
type eventRow struct {
	typ, reason, message, source, fieldPath string
	// host is the node a kubelet's event came from, when the From or
	// SOURCE cell names it ("kubelet, node-1", "{kubelet node-1}").
	host string
	// kind and name are the object's (get events' OBJECT, or KIND and
	// NAME); a describe's events are the described object's.
	kind, name, namespace string
	count                 int32
	// last and first are ages, or absolute times before 1.2 (abs).
	last, first       time.Duration
	aged              bool
	absLast, absFirst time.Time
	line              int
}

// eventRowRe is a row of describe's Events since 1.10 (Type Reason Age
// From Message) or of kubectl get events (... TYPE REASON ...): the type
// leads or follows an age.
var eventRowRe = regexp.MustCompile(`^(?:(?:\S+\s+){1,2})?(Normal|Warning)\s+[A-Za-z]\S*\s`)

// describeEvents reads a describe block's Events section.
func describeEvents(body []line) ([]eventRow, bool) {
	var (
		t      table
		header bool
		rows   []eventRow
	)
	for _, l := range body {
		raw := expandTabs(l.raw)
		switch {
		case l.text == "":
			continue
		case !header && strings.Contains(l.text, "Reason") && strings.Contains(l.text, "Message"):
			t, header = newTable(raw), true
			continue
		case strings.Trim(l.text, "- \t") == "":
			continue
		}
		if ev, ok := describeEventRow(t, raw); ok {
			ev.line = l.n
			rows = append(rows, ev)
			continue
		}
		if len(rows) > 0 {
			// A message kubectl printed on several lines, or a paste
			// that wrapped it.
			last := &rows[len(rows)-1]
			last.message = strings.TrimSpace(last.message + "\n" + l.text)
		}
	}
	return rows, header
}

// describeEventRow reads one row by the header's columns, or, for a row
// that lost its alignment, by the layout since 1.10.
func describeEventRow(t table, raw string) (eventRow, bool) {
	if cells, ok := t.cells(raw); ok && t.col("REASON") >= 0 && t.col("MESSAGE") >= 0 {
		get := func(n string) string { return t.cell(cells, n) }
		ev := eventRow{typ: get("TYPE"), reason: get("REASON"), message: get("MESSAGE"), source: get("FROM"), fieldPath: get("SUBOBJECTPATH")}
		if ev.reason == "" || strings.ContainsAny(ev.reason, " ") {
			return eventRow{}, false
		}
		if ev.typ != "" && ev.typ != "Normal" && ev.typ != "Warning" {
			return eventRow{}, false
		}
		switch {
		case t.col("AGE") >= 0:
			iv := parseInterval(get("AGE"))
			ev.last, ev.first, ev.count, ev.aged = iv.last, iv.first, iv.count, iv.known
		case t.col("LASTSEEN") >= 0:
			ev.readSeen(get("LASTSEEN"), get("FIRSTSEEN"), get("COUNT"))
		}
		ev.source, ev.host = cleanSource(ev.source), hostOf(ev.source)
		ev.splitFieldPath()
		return ev, true
	}
	m := describeRowRe.FindStringSubmatch(strings.TrimSpace(raw))
	if m == nil {
		return oldDescribeRow(raw)
	}
	iv := parseInterval(m[3])
	ev := eventRow{typ: m[1], reason: m[2], source: cleanSource(m[4]), host: hostOf(m[4]), message: m[5], last: iv.last, first: iv.first, count: iv.count, aged: iv.known}
	ev.splitFieldPath()
	return ev, true
}

// describeRowRe is describe's row since 1.10 split on blanks: the Age cell
// may hold "(x5 over 3m)" and the From cell "kubelet, node-1".
var describeRowRe = regexp.MustCompile(`^(Normal|Warning)\s+(\S+)\s+(\S+(?: \(x\d+ over \S+\))?|<unknown>|<invalid>)\s+((?:\S+, \S+)|\S+)\s+(.*)$`)

// oldRowRe is describe's row before 1.10 split on blanks: FirstSeen
// LastSeen Count From [SubobjectPath] Type Reason Message (the message
// may be cut off by a paste).
var oldRowRe = regexp.MustCompile(`^(\S+)\s+(\S+)\s+(\d+)\s+(\{[^}]*\}|\S+(?:, \S+)?)\s+(?:(spec\.\S+|implicitly required container POD)\s+)?(Normal|Warning)\s+(\S+)(?:\s+(.*))?$`)

func oldDescribeRow(raw string) (eventRow, bool) {
	m := oldRowRe.FindStringSubmatch(strings.TrimSpace(raw))
	if m == nil {
		return eventRow{}, false
	}
	ev := eventRow{typ: m[6], reason: m[7], message: m[8], source: cleanSource(m[4]), host: hostOf(m[4]), fieldPath: m[5]}
	ev.readSeen(m[2], m[1], m[3])
	ev.splitFieldPath()
	return ev, true
}

// readSeen reads the LastSeen, FirstSeen and Count cells of the layouts
// before 1.10 (describe) and 1.14 (get events): ages, or before 1.2
// absolute times.
func (ev *eventRow) readSeen(last, first, count string) {
	n, err := strconv.Atoi(strings.TrimSpace(count))
	if err != nil || n < 1 {
		n = 1
	}
	ev.count = int32(n)
	if l, ok := parseAge(last); ok {
		ev.last, ev.aged = l, true
		ev.first = l
		if f, ok := parseAge(first); ok {
			ev.first = f
		}
		return
	}
	if l, ok := parseTime(last); ok {
		ev.absLast, ev.absFirst = l, l
		if f, ok := parseTime(first); ok {
			ev.absFirst = f
		}
	}
}

// cleanSource reads the From column: "kubelet", "kubelet, node-1" (1.10
// to 1.14), "{kubelet node-1}" and "{default-scheduler }" before.
func cleanSource(s string) string {
	s = strings.TrimSpace(strings.Trim(strings.TrimSpace(s), "{}"))
	if c, _, ok := strings.Cut(s, ","); ok {
		return strings.TrimSpace(c)
	}
	if c, _, ok := strings.Cut(s, " "); ok {
		return c
	}
	return s
}

// hostOf is the node of a From or SOURCE cell, "" when it names none.
func hostOf(s string) string {
	s = strings.TrimSpace(strings.Trim(strings.TrimSpace(s), "{}"))
	if _, h, ok := strings.Cut(s, ","); ok {
		return strings.TrimSpace(h)
	}
	if _, h, ok := strings.Cut(s, " "); ok {
		return strings.TrimSpace(h)
	}
	return ""
}

// fieldPathRe is the fieldPath describe writes before an event's message
// since 1.35 ("spec.containers{web}: Back-off pulling image ...").
var fieldPathRe = regexp.MustCompile(`^(spec\.(?:initContainers|containers|ephemeralContainers)\{[^}]+\}):\s*`)

func (ev *eventRow) splitFieldPath() {
	if m := fieldPathRe.FindStringSubmatch(ev.message); m != nil {
		ev.fieldPath = m[1]
		ev.message = ev.message[len(m[0]):]
	}
	if ev.fieldPath != "" && !strings.HasPrefix(ev.fieldPath, "spec.") {
		ev.fieldPath = ""
	}
}

// getEventsRow reads one row of kubectl get events.
func getEventsRow(t table, raw string) (eventRow, bool) {
	cells, ok := t.cells(raw)
	if !ok {
		return headerlessEvent(raw)
	}
	get := func(n string) string { return t.cell(cells, n) }
	ev := eventRow{typ: get("TYPE"), reason: get("REASON"), message: get("MESSAGE"), namespace: get("NAMESPACE"), fieldPath: get("SUBOBJECT"), source: cleanSource(get("SOURCE")), host: hostOf(get("SOURCE"))}
	if ev.typ != "Normal" && ev.typ != "Warning" || ev.reason == "" {
		return headerlessEvent(raw)
	}
	if obj := get("OBJECT"); obj != "" {
		ev.kind, ev.name = objectCell(obj)
	} else {
		ev.kind, ev.name = kindOf(get("KIND")), get("NAME")
	}
	if ev.name == "" {
		return eventRow{}, false
	}
	lastCell, firstCell := get("LAST SEEN"), get("FIRST SEEN")
	if t.col("LASTSEEN") >= 0 {
		lastCell, firstCell = get("LASTSEEN"), get("FIRSTSEEN")
	}
	ev.readSeen(lastCell, firstCell, get("COUNT"))
	return ev, true
}

// headerRowRe is a row of kubectl get events since 1.14 without its
// header (a paste cut by tail): [NAMESPACE] LAST SEEN TYPE REASON OBJECT
// MESSAGE.
var headerlessRe = regexp.MustCompile(`^(?:(\S+)\s+)?(\S+)\s+(Normal|Warning)\s+(\S+)\s+([a-z][a-z0-9.]*/\S+)\s+(.*)$`)

func headerlessEvent(raw string) (eventRow, bool) {
	m := headerlessRe.FindStringSubmatch(strings.TrimSpace(raw))
	if m == nil {
		return oldHeaderlessEvent(raw)
	}
	age, ok := parseAge(m[2])
	if !ok && m[2] != "<unknown>" && m[2] != "<invalid>" {
		return eventRow{}, false
	}
	ev := eventRow{namespace: m[1], typ: m[3], reason: m[4], message: m[6], count: 1, last: age, first: age, aged: ok}
	ev.kind, ev.name = objectCell(m[5])
	return ev, true
}

// oldHeaderlessRe is a row of kubectl get events before 1.14 without its
// header: LAST SEEN, FIRST SEEN, COUNT, NAME (the event's: the object's
// name and a hex suffix), KIND, SUBOBJECT (blank for the object itself),
// TYPE, REASON, SOURCE, MESSAGE.
var oldHeaderlessRe = regexp.MustCompile(`^(\S+)\s+(\S+)\s+(\d+)\s+([a-z0-9][-a-z0-9.]*?)(?:\.[0-9a-f]{8,})?\s+([A-Z][A-Za-z]+)\s+(?:(spec\.\S+|implicitly required container POD)\s+)?(Normal|Warning)\s+(\S+)\s+(\S+(?:, \S+)?)\s+(.*)$`)

func oldHeaderlessEvent(raw string) (eventRow, bool) {
	m := oldHeaderlessRe.FindStringSubmatch(strings.TrimSpace(raw))
	if m == nil {
		return eventRow{}, false
	}
	if _, ok := parseAge(m[1]); !ok && m[1] != "<unknown>" {
		return eventRow{}, false
	}
	ev := eventRow{kind: kindOf(m[5]), name: m[4], fieldPath: m[6], typ: m[7], reason: m[8],
		source: cleanSource(m[9]), host: hostOf(m[9]), message: m[10]}
	ev.readSeen(m[1], m[2], m[3])
	ev.splitFieldPath()
	return ev, true
}

// objectCell reads get events' OBJECT cell, "pod/web-1", the kind in
// lower case (printEvent); "replicaset.apps/web" is not printed but
// pasted.
func objectCell(s string) (string, string) {
	k, n, ok := strings.Cut(s, "/")
	if !ok {
		return kindOf(s), ""
	}
	k, _, _ = strings.Cut(k, ".")
	return kindOf(k), n
}

// kinds are the kinds an event is about, by the lower-case word kubectl
// prints.
var kinds = map[string]string{
	"pod": "Pod", "replicaset": "ReplicaSet", "deployment": "Deployment", "statefulset": "StatefulSet",
	"daemonset": "DaemonSet", "job": "Job", "cronjob": "CronJob", "node": "Node", "service": "Service",
	"endpoints": "Endpoints", "persistentvolumeclaim": "PersistentVolumeClaim", "persistentvolume": "PersistentVolume",
	"horizontalpodautoscaler": "HorizontalPodAutoscaler", "ingress": "Ingress", "namespace": "Namespace",
	"replicationcontroller": "ReplicationController", "endpointslice": "EndpointSlice", "configmap": "ConfigMap",
	"poddisruptionbudget": "PodDisruptionBudget", "serviceaccount": "ServiceAccount", "lease": "Lease",
}

// kindOf is the kind kubectl printed in lower case or as is.
func kindOf(s string) string {
	if k, ok := kinds[strings.ToLower(s)]; ok {
		return k
	}
	return s
}
