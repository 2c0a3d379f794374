package decode

import (
	"regexp"
	"strconv"
	"strings"
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

// The kubelet's own structured log lines about a probe, which users paste
// from its journal: the prober's "Probe failed" probeType="Liveness"
// (pkg/kubelet/prober/prober.go), the sync loop's "SyncLoop (probe)"
// probe="liveness" status="unhealthy" (pkg/kubelet/kubelet.go), and the
// runtime manager's "Message for Container of pod" with the kill message
// the Killing event carries, containerMessage="Container X failed
// liveness probe, will be restarted" (pkg/kubelet/kuberuntime/
// kuberuntime_manager.go).
var (
	klogProbeFailedRE  = regexp.MustCompile(`"Probe failed" probeType="(Liveness|Readiness|Startup)"`)
	klogSyncProbeRE    = regexp.MustCompile(`"SyncLoop \(probe\)" probe="(liveness|readiness|startup)" status="unhealthy"`)
	klogContainerMsgRE = regexp.MustCompile(`"Message for Container of pod" .*?\bcontainerMessage="((?:[^"\\]|\\.)*)"`)
)

// klogProbe finds, in a kubelet log line, the probe event it stands for:
// Unhealthy "<Kind> probe failed: " (the output follows on the next lines,
// which a single line does not hold) or Killing with the kill message.
func klogProbe(line string) (reason, message string, ok bool) {
	if m := klogContainerMsgRE.FindStringSubmatch(line); m != nil {
		msg, err := strconv.Unquote(`"` + m[1] + `"`)
		if err != nil {
			msg = m[1]
		}
		return reasonKilling, msg, true
	}
	kind := ""
	if m := klogProbeFailedRE.FindStringSubmatch(line); m != nil {
		kind = m[1]
	} else if m := klogSyncProbeRE.FindStringSubmatch(line); m != nil {
		kind = strings.ToUpper(m[1][:1]) + m[1][1:]
	}
	if kind == "" {
		return "", "", false
	}
	return reasonUnhealthy, kind + " probe failed: ", true
}
