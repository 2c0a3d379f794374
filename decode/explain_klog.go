package decode

import (
	"regexp"
	"strconv"
)

// A controller's event as kube-controller-manager logs it, which users
// paste from its log: the structured line of 1.19+ (client-go
// tools/record/event.go, `"Event occurred" object=... type="Warning"
// reason="FailedCreate" message="..."`, the message quoted) and the older
// `Event(v1.ObjectReference{...}): type: 'Warning' reason: 'X' MESSAGE`.
var (
	klogEventRE    = regexp.MustCompile(`"Event occurred" .*?\btype="\w+" reason="(\w+)" message="((?:[^"\\]|\\.)*)"`)
	klogOldEventRE = regexp.MustCompile(`(?s)\): type: '\w+' reason: '(\w+)' (.*)$`)
)

// klogEvent finds the reason and message of an event in a log line.
func klogEvent(line string) (reason, message string, ok bool) {
	if m := klogEventRE.FindStringSubmatch(line); m != nil {
		msg, err := strconv.Unquote(`"` + m[2] + `"`)
		if err != nil {
			msg = m[2]
		}
		return m[1], msg, true
	}
	if m := klogOldEventRE.FindStringSubmatch(line); m != nil {
		return m[1], m[2], true
	}
	return "", "", false
}
