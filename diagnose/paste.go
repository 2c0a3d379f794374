package diagnose

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
	// pasteKeyRe is a "Key: value" line of kubectl describe.
	pasteKeyRe = regexp.MustCompile(`^(State|Last State|Reason|Message|Exit Code|Status):\s*(.*)$`)
	// pasteGetPodsRe is a kubectl get pods row: NAME READY STATUS RESTARTS AGE.
	pasteGetPodsRe = regexp.MustCompile(`^\S+\s+\d+/\d+\s+(\S+)\s+\d+`)
	// pasteCondRe is a row of describe's Conditions table: Type Status Reason.
	pasteCondRe = regexp.MustCompile(`^(Progressing|ReplicaFailure|Available|PodScheduled|Ready|ContainersReady|Initialized)\s+(True|False|Unknown)\s+(\S+)\s*$`)
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
	)
	flush := func() {
		if cur != nil && cur.reason != "" {
			items = append(items, *cur)
		}
		cur = nil
	}
	for _, raw := range strings.Split(text, "\n") {
		line := strings.TrimSpace(raw)
		if line == "" {
			continue
		}
		if m := pasteEventRe.FindStringSubmatch(line); m != nil && !pasteKeyRe.MatchString(line) {
			flush()
			items = append(items, pasteItem{kind: "event", reason: m[2], message: pasteEventMessage(m[3])})
			continue
		}
		if m := pasteCondRe.FindStringSubmatch(line); m != nil {
			if (m[1] == "ReplicaFailure" && m[2] == "True") || m[2] == "False" {
				items = append(items, pasteItem{kind: "condition", reason: m[3]})
			}
			continue
		}
		if m := pasteKeyRe.FindStringSubmatch(line); m != nil {
			key, val := m[1], strings.TrimSpace(m[2])
			switch key {
			case "State", "Last State":
				flush()
				switch {
				case strings.HasPrefix(val, "Waiting"):
					cur = &pasteItem{kind: "waiting"}
				case strings.HasPrefix(val, "Terminated"):
					cur = &pasteItem{kind: "terminated"}
				}
			case "Status":
				flush()
				pod = pasteItem{kind: "status"}
			case "Reason":
				if cur != nil {
					cur.reason = val
				} else if pod.kind != "" {
					pod.reason = val
				}
			case "Message":
				if cur != nil {
					cur.message = val
				} else if pod.kind != "" {
					pod.message = val
				}
			case "Exit Code":
				if cur != nil {
					n, _ := strconv.Atoi(val)
					cur.exit = int32(n)
				}
			}
			continue
		}
		if m := pasteGetPodsRe.FindStringSubmatch(line); m != nil {
			flush()
			items = append(items, pasteItem{kind: "waiting", reason: m[1]})
		}
	}
	flush()
	if pod.reason != "" {
		items = append(items, pod)
	}
	return items
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

// explainItems decodes every piece of a paste; Explain ranks them. Later
// pieces (newer events) come first among equals.
func explainItems(items []pasteItem) []Decoded {
	var out []Decoded
	for i := len(items) - 1; i >= 0; i-- {
		it := items[i]
		if it.kind == "terminated" {
			if it.reason == "Completed" && it.exit == 0 {
				continue // a past run that ended well explains nothing
			}
			t := corev1.ContainerStateTerminated{Reason: it.reason, Message: it.message, ExitCode: it.exit}
			out = append(out, Termination("", t))
			continue
		}
		if it.kind == "waiting" && (it.reason == "Running" || it.reason == "Pending") {
			continue
		}
		if ds := explainPair(it.reason, unwrapPaste(it.message)); len(ds) > 0 {
			out = append(out, ds[0])
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
