package decode

import (
	"regexp"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// pasteItem is one piece of evidence found in pasted kubectl output.
type pasteItem struct {
	kind    string // event, waiting, terminated, status, condition
	reason  string
	message string
	exit    int32
	init    bool // an init container's state
	last    bool // a Last State: what the container did before this one
}

var (
	// pasteEventRe finds an event row of kubectl describe (Type Reason Age
	// From Message; before 1.10 FirstSeen LastSeen Count From SubObjectPath
	// Type Reason Message) or kubectl get events (LAST SEEN TYPE REASON
	// OBJECT MESSAGE): the type word, then the reason.
	pasteEventRe = regexp.MustCompile(`(?:^|\s)(Warning|Normal)\s+([A-Za-z][A-Za-z0-9]*)(?:\s+(.*))?$`)
	// pasteAgeRe is an event age column: "7s", "3m12s", "<unknown>", "7s (x13 over 28s)".
	pasteAgeRe = regexp.MustCompile(`^(?:\d+[smhdy](?:\d+[smhd])?|<unknown>|<invalid>)(?:\s+\(x\d+ over [^)]*\))?\s+`)
	// pasteFromRe is a From or source column: the kubelet (with its node
	// before 1.14), a controller, a scheduler, an autoscaler.
	pasteFromRe = regexp.MustCompile(`^(?:kubelet(?:,\s*\S+)?|\{[^}]*\}|default-scheduler|[a-z0-9.-]+-(?:controller|scheduler|autoscaler|manager|provisioner|attacher)(?:,\s*\S+)?|karpenter|cluster-autoscaler)\s+`)
	// pasteObjectRe is get events' OBJECT column (kind/name), or a kind
	// word of the older layout.
	pasteObjectRe = regexp.MustCompile(`^(?:[a-z]+(?:\.[a-z0-9.]+)?/\S+|Pod|ReplicaSet|Deployment|StatefulSet|DaemonSet|Job|Node|PersistentVolumeClaim)\s+`)
	// pasteKeyRe is a "Key: value" line of kubectl describe, or of a
	// pod's status as kubectl get -o yaml|json prints it.
	pasteKeyRe = regexp.MustCompile(`^(State|Last State|Last Termination State|Reason|Message|Exit Code|Status|state|lastState|lastTerminationState|terminated|termination|waiting|running|reason|message|exitCode):\s*(.*)$`)
	// pasteConsoleRe is the OpenShift console's "Last State Terminated at
	// DATE (Reason)".
	pasteConsoleRe = regexp.MustCompile(`^Last State\s+Terminated\b.*\((\w+)\)$`)
	// pasteGetPodsRe is a kubectl get pods row: NAME READY STATUS [RESTARTS AGE].
	pasteGetPodsRe = regexp.MustCompile(`^\S+\s+\d+/\d+\s+(\S+)(?:\s+\d+|\s*$)`)
	// pasteCondRe is a row of describe's Conditions table: Type Status Reason.
	pasteCondRe = regexp.MustCompile(`^(Progressing|ReplicaFailure|Available|PodScheduled|Ready|ContainersReady|Initialized)\s+(True|False|Unknown)\s+(\S+)\s*$`)
	// pasteSpawnRe is an event as JupyterHub's KubeSpawner shows a user the
	// pod's events while it starts: "TIME [Type] message", no reason.
	pasteSpawnRe = regexp.MustCompile(`^\d{4}-\d\d-\d\dT[\d:.]+Z \[(?:Warning|Normal)\] (.+)$`)
)

// pasted finds the evidence in text that is kubectl output rather than one
// message: describe blocks, get events or get pods rows. It returns nothing
// for a plain message.
func pasted(text string) []pasteItem {
	if !strings.Contains(text, "\n") && !pasteEventRe.MatchString(text) && !pasteGetPodsRe.MatchString(text) {
		return nil
	}
	var (
		items []pasteItem
		cur   *pasteItem // the State or Last State being read
		pod   pasteItem  // pod-level Status/Reason/Message
		init  bool       // in describe's "Init Containers:" section
		event = -1       // the event row a wrapped line continues
	)
	flush := func() {
		if cur != nil && cur.reason != "" {
			items = append(items, *cur)
		}
		cur = nil
	}
	for _, raw := range pasteJoin(strings.Split(text, "\n")) {
		line := pasteLine(raw)
		switch {
		case line == "":
			continue
		case line == "Init Containers:" || line == "initContainerStatuses:":
			flush()
			init, event = true, -1
			continue
		case line == "Containers:" || line == "containerStatuses:":
			flush()
			init, event = false, -1
			continue
		}
		if m := pasteEventRe.FindStringSubmatch(line); m != nil && !pasteKeyRe.MatchString(line) {
			flush()
			items = append(items, pasteItem{kind: "event", reason: m[2], message: pasteEventMessage(m[3])})
			event = len(items) - 1
			continue
		}
		if m := pasteSpawnRe.FindStringSubmatch(line); m != nil {
			flush()
			items = append(items, pasteItem{kind: "event", message: m[1]})
			event = len(items) - 1
			continue
		}
		if m := pasteCondRe.FindStringSubmatch(line); m != nil {
			if (m[1] == "ReplicaFailure" && m[2] == "True") || m[2] == "False" {
				items = append(items, pasteItem{kind: "condition", reason: m[3]})
			}
			event = -1
			continue
		}
		if m := pasteConsoleRe.FindStringSubmatch(line); m != nil {
			flush()
			items = append(items, pasteItem{kind: "terminated", reason: m[1], init: init, last: true})
			continue
		}
		if m := pasteKeyRe.FindStringSubmatch(line); m != nil {
			event = -1
			key, val := strings.ToLower(strings.ReplaceAll(m[1], " ", "")), strings.TrimSpace(m[2])
			switch key {
			case "state", "laststate", "lastterminationstate":
				flush()
				cur = &pasteItem{init: init, last: key != "state"}
				pasteStateValue(cur, val)
			case "terminated", "termination", "waiting":
				if cur == nil {
					cur = &pasteItem{init: init}
				}
				cur.kind = "waiting"
				if key != "waiting" {
					cur.kind = "terminated"
				}
			case "running":
				if cur != nil {
					cur.kind = ""
				}
			case "status":
				flush()
				pod = pasteItem{kind: "status"}
			case "reason":
				if cur != nil {
					cur.reason = val
				} else if pod.kind != "" || !strings.Contains(text, "State") {
					pod.kind, pod.reason = "status", val
				}
			case "message":
				if cur != nil {
					cur.message = val
				} else if pod.kind != "" {
					pod.message = val
				}
			case "exitcode":
				if cur != nil {
					n, _ := strconv.Atoi(val)
					cur.exit = int32(n)
				}
			}
			continue
		}
		if m := pasteGetPodsRe.FindStringSubmatch(line); m != nil && !strings.HasPrefix(line, "NAME ") {
			flush()
			items = append(items, pasteItem{kind: "waiting", reason: m[1]})
			event = -1
			continue
		}
		if event >= 0 && !strings.HasPrefix(line, "---") {
			// kubectl does not wrap, but a paste often does: the rest of
			// the event's message.
			items[event].message = strings.TrimSpace(items[event].message + " " + line)
		}
	}
	flush()
	if pod.reason != "" {
		items = append(items, pod)
	}
	return items
}

// pasteJoin puts the OpenShift console's state values back on their
// labels' lines: its copied text has "State:" or "Last State" alone on a
// line and "Waiting (CrashLoopBackOff)" or "Terminated at DATE (Reason)" on
// the next.
func pasteJoin(lines []string) []string {
	out := make([]string, 0, len(lines))
	for i := 0; i < len(lines); i++ {
		label := strings.TrimSpace(lines[i])
		if (label == "State:" || label == "Last State" || label == "Last State:") && i+1 < len(lines) {
			if next := strings.TrimSpace(lines[i+1]); strings.HasPrefix(next, "Waiting") || strings.HasPrefix(next, "Terminated") || strings.HasPrefix(next, "Running") {
				out = append(out, label+" "+next)
				i++
				continue
			}
		}
		out = append(out, lines[i])
	}
	return out
}

// pasteLine trims a line of YAML or JSON status down to "key: value":
// list dashes, quotes, trailing commas and braces go.
func pasteLine(raw string) string {
	line := strings.TrimSpace(raw)
	if strings.HasPrefix(line, `"`) || strings.HasPrefix(line, "- ") || strings.HasSuffix(line, ",") || strings.HasSuffix(line, "{") {
		line = strings.TrimPrefix(line, "- ")
		line = strings.TrimRight(line, ",{ ")
		if k, v, ok := strings.Cut(line, ":"); ok && strings.HasPrefix(k, `"`) {
			line = strings.Trim(k, `"`) + ": " + strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return line
}

// pasteStateValue reads describe's "State: Waiting" (or the OpenShift
// console's "Waiting (CrashLoopBackOff)").
func pasteStateValue(it *pasteItem, val string) {
	switch {
	case strings.HasPrefix(val, "Waiting"):
		it.kind = "waiting"
	case strings.HasPrefix(val, "Terminated"):
		it.kind = "terminated"
	}
	if i := strings.Index(val, "("); i >= 0 && strings.HasSuffix(val, ")") {
		it.reason = val[i+1 : len(val)-1]
	}
}

// pasteEventMessage cuts the columns between an event's reason and its
// message: describe's Age and From, get events' OBJECT.
func pasteEventMessage(rest string) string {
	rest = strings.TrimSpace(rest)
	if loc := pasteAgeRe.FindStringIndex(rest); loc != nil {
		rest = rest[loc[1]:]
		if loc := pasteFromRe.FindStringIndex(rest); loc != nil {
			rest = rest[loc[1]:]
		}
		return strings.TrimSpace(rest)
	}
	if loc := pasteObjectRe.FindStringIndex(rest); loc != nil {
		rest = rest[loc[1]:]
	}
	if loc := pasteFromRe.FindStringIndex(rest); loc != nil {
		rest = rest[loc[1]:]
	}
	return strings.TrimSpace(rest)
}

// explainItems decodes every piece of a paste; Explain ranks them. Among
// equals, newer events come first, then the containers' current states,
// then what they did before.
func explainItems(items []pasteItem) []Decoded {
	var ordered []pasteItem
	for i := len(items) - 1; i >= 0; i-- {
		if items[i].kind == "event" {
			ordered = append(ordered, items[i])
		}
	}
	for _, last := range []bool{false, true} {
		for _, it := range items {
			if it.kind != "event" && it.last == last {
				ordered = append(ordered, it)
			}
		}
	}
	var out []Decoded
	for _, it := range ordered {
		switch {
		case it.kind == "terminated" && it.init:
			t := corev1.ContainerStateTerminated{Reason: it.reason, Message: it.message, ExitCode: it.exit}
			if d, ok := InitTermination("", t); ok {
				out = append(out, d)
			}
			continue
		case it.kind == "terminated":
			if it.exit == 0 && it.reason != "Completed" {
				it.exit = exitOf(it.reason)
			}
			t := corev1.ContainerStateTerminated{Reason: it.reason, Message: it.message, ExitCode: it.exit}
			out = append(out, Termination("", t))
			continue
		case it.kind == "waiting" && (it.reason == "Running" || it.reason == "Pending" || it.reason == ""):
			continue
		case it.kind == "waiting" && it.init && !strings.HasPrefix(it.reason, "Init:"):
			it.reason = "Init:" + it.reason
		case it.kind == "event" && strings.HasPrefix(it.reason, "Successful"):
			continue
		}
		if ds := explainPair(it.reason, unwrapPaste(it.message)); len(ds) > 0 {
			// A scheduler line gives one cause per reason: the one the
			// line itself leads with (not the first written) stands for it.
			out = append(out, rank(ds)[0])
		}
	}
	return out
}

// pasteWrappers are the words tools put before the API server's or the
// kubelet's message: kubectl's error printer, Helm's, the event
// aggregator's.
var pasteWrappers = []*regexp.Regexp{
	regexp.MustCompile(`^Error from server(?: \([A-Za-z]+\))?: `),
	regexp.MustCompile(`^error when (?:creating|applying|replacing|patching) "[^"]*": `),
	regexp.MustCompile(`^\(combined from similar events\): `),
	regexp.MustCompile(`^spec\.(?:init)?[cC]ontainers\{[^}]*\}: `),
}

// unwrapPaste strips the wrappers users' tools put around a message.
func unwrapPaste(m string) string {
	for changed := true; changed; {
		changed = false
		for _, re := range pasteWrappers {
			if loc := re.FindStringIndex(m); loc != nil {
				m = strings.TrimSpace(m[loc[1]:])
				changed = true
			}
		}
	}
	return m
}
