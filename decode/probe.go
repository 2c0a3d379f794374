package decode

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Probe causes: the container runs but the kubelet's probes say it is not
// ready (it gets no traffic), not alive (it is restarted), or not started.
const (
	ReadinessProbeFailed chain.CauseID = "ReadinessProbeFailed"
	LivenessProbeFailed  chain.CauseID = "LivenessProbeFailed"
	StartupProbeFailed   chain.CauseID = "StartupProbeFailed"
)

// probeCauses are the catalogue entries for probes. A failing readiness probe
// is judged after a grace window (apps warm up); liveness and startup
// failures restart the container, so they are judged by repeats.
var probeCauses = []Cause{
	{
		ID:       ReadinessProbeFailed,
		Link:     chain.LinkReady,
		Summary:  "the readiness probe fails, so the pod is not Ready and gets no traffic",
		NextStep: "fix spec.template.spec.containers[].readinessProbe (path, port, timeoutSeconds) or the endpoint it probes",
		// Never terminal by itself: apps that start slowly fail their
		// readiness probe for as long as they start, and only the progress
		// deadline knows how long is too long.
		Terminal: TerminalRule{Mode: Transient},
	},
	{
		ID:       LivenessProbeFailed,
		Link:     chain.LinkContainers,
		Summary:  "the liveness probe fails, so the kubelet keeps restarting the container",
		NextStep: "fix spec.template.spec.containers[].livenessProbe (path, port, timeoutSeconds), or add a startupProbe if the app starts slowly",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 3},
	},
	{
		ID:       StartupProbeFailed,
		Link:     chain.LinkReady,
		Summary:  "the startup probe never succeeds, so the kubelet keeps restarting the container",
		NextStep: "fix spec.template.spec.containers[].startupProbe, or give the app more time (failureThreshold x periodSeconds)",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 3},
	},
}

// Event reasons of the prober and the kill it causes
// (pkg/kubelet/events/event.go).
const (
	reasonUnhealthy = "Unhealthy"
	reasonKilling   = "Killing"
)

// probeKind is one of the three probes, as the prober names it
// (probeType.String in pkg/kubelet/prober/prober_manager.go).
type probeKind struct {
	title string // "Readiness", as in the event text
	field string // "readinessProbe", the container field
	cause chain.CauseID
}

var probeKinds = []probeKind{
	{title: "Readiness", field: "readinessProbe", cause: ReadinessProbeFailed},
	{title: "Liveness", field: "livenessProbe", cause: LivenessProbeFailed},
	{title: "Startup", field: "startupProbe", cause: StartupProbeFailed},
}

var (
	// probeKillRe matches computePodActions' kill messages "Container %s
	// failed liveness probe" (+ ", will be restarted") and the sidecar form
	// "Init container %s failed startup probe"
	// (pkg/kubelet/kuberuntime/kuberuntime_manager.go, kuberuntime_container.go).
	probeKillRe = regexp.MustCompile(`^(Init container|Container) (\S+) failed (liveness|startup) probe`)
	// probeStatusRe matches the HTTP prober's
	// "HTTP probe failed with statuscode: %d" (pkg/probe/http/http.go).
	probeStatusRe = regexp.MustCompile(`HTTP probe failed with statuscode: (\d+)`)
	// probeDialRe finds the address in Go's "dial tcp 10.0.0.1:8080: ..." errors.
	probeDialRe = regexp.MustCompile(`dial tcp (\S+?): `)
)

// Probe decodes Unhealthy events ("Readiness probe failed: ...", "Liveness
// probe failed: ...", "Startup probe failed: ...", "... probe errored: ...")
// and the Killing event for a failed liveness or startup probe.
func Probe(reason, message string) (d Decoded, ok bool) {
	switch reason {
	case reasonUnhealthy:
		return probeUnhealthy(message)
	case reasonKilling:
		return probeKilled(message)
	}
	return Decoded{}, false
}

// probeUnhealthy decodes the prober's "%s probe failed: %s" and "%s probe
// errored and resulted in %s state: %s" (pkg/kubelet/prober/prober.go).
func probeUnhealthy(message string) (Decoded, bool) {
	for _, k := range probeKinds {
		if out, found := strings.CutPrefix(message, k.title+" probe failed: "); found {
			return probeFailure(k, out), true
		}
		if rest, found := strings.CutPrefix(message, k.title+" probe errored"); found {
			_, out, _ := strings.Cut(rest, " state: ")
			d := probeFailure(k, out)
			d.Summary = fmt.Sprintf("%s probe could not run: %s", strings.ToLower(k.title), kubeletHead(out))
			return d, true
		}
	}
	return Decoded{}, false
}

// probeFailure decodes the probe's output: an HTTP status, a refused
// connection, a timeout, or whatever an exec probe printed.
func probeFailure(k probeKind, out string) Decoded {
	name := strings.ToLower(k.title)
	field := "spec.template.spec.containers[]." + k.field
	details := []chain.Detail{{Key: "probe", Value: name}}
	if url, ok := probeURL(out); ok {
		details = append(details, chain.Detail{Key: "target", Value: url})
	} else if m := probeDialRe.FindStringSubmatch(out); m != nil {
		details = append(details, chain.Detail{Key: "target", Value: m[1]})
	}
	target := ""
	if len(details) > 1 {
		target = details[1].Value
	}
	d := Decoded{Cause: k.cause}
	switch {
	case probeStatusRe.MatchString(out):
		code := probeStatusRe.FindStringSubmatch(out)[1]
		details = append(details, chain.Detail{Key: "failure", Value: "http-status"}, chain.Detail{Key: "statusCode", Value: code})
		d.Summary = fmt.Sprintf("%s probe got HTTP %s", name, code)
		d.NextStep = fmt.Sprintf("the endpoint answers %s: check the app (kubectl logs {POD}), or fix %s.httpGet path/port", code, field)
	case strings.Contains(out, "connection refused"):
		details = append(details, chain.Detail{Key: "failure", Value: "connection-refused"})
		d.Summary = fmt.Sprintf("%s probe: connection refused", name)
		d.NextStep = fmt.Sprintf("nothing listens on the probed port: make %s's port match the containerPort the app listens on (and the app listen on the pod IP, not 127.0.0.1)", field)
		if target != "" {
			d.Summary += " on " + podLocal(target)
		}
	case probeTimedOut(out):
		details = append(details, chain.Detail{Key: "failure", Value: "timeout"})
		d.Summary = fmt.Sprintf("%s probe timed out", name)
		d.NextStep = fmt.Sprintf("the probe did not finish in time: raise %s.timeoutSeconds or make the probed endpoint or command answer faster", field)
		if target != "" {
			d.Summary += " on " + podLocal(target)
		}
	default:
		if o := kubeletHead(out); o != "" {
			details = append(details, chain.Detail{Key: "output", Value: o})
			d.Summary = fmt.Sprintf("%s probe failed: %s", name, o)
		} else {
			d.Summary = fmt.Sprintf("%s probe failed", name)
		}
		d.NextStep = fmt.Sprintf("run the probe by hand (kubectl exec {POD} -- ...) and fix %s or the app", field)
	}
	d.NextStep += probeSlowStart(k)
	d.Details = details
	return d
}

// probeSlowStart is the hint for probes that restart the container: a slow
// starter needs more time, not a different check.
func probeSlowStart(k probeKind) string {
	switch k.cause {
	case LivenessProbeFailed:
		return "; if the app only starts slowly, add or lengthen a startupProbe"
	case StartupProbeFailed:
		return "; if the app only starts slowly, raise startupProbe.failureThreshold x periodSeconds"
	}
	return ""
}

// probeTimedOut recognises the timeouts of the HTTP, TCP, exec and gRPC probers.
func probeTimedOut(out string) bool {
	for _, s := range []string{"Client.Timeout exceeded", "context deadline exceeded", "i/o timeout", "command timed out", "timeout: "} {
		if strings.Contains(out, s) {
			return true
		}
	}
	return false
}

// probeURL reads the URL of Go's HTTP client errors: `Get "http://...": ...`.
func probeURL(out string) (string, bool) {
	rest, found := strings.CutPrefix(out, "Get ")
	if !found {
		return "", false
	}
	url, _, ok := kubeletQuoted(rest)
	return url, ok && url != "" && !strings.ContainsAny(url, " \t\r\n")
}

// probeKilled decodes the Killing event the kubelet writes when it restarts a
// container for a failed liveness or startup probe.
func probeKilled(message string) (Decoded, bool) {
	m := probeKillRe.FindStringSubmatch(message)
	if m == nil {
		return Decoded{}, false
	}
	list, container, probe := "containers", m[2], m[3]
	if m[1] == "Init container" {
		list = "initContainers"
	}
	k := probeKinds[1]
	if probe == "startup" {
		k = probeKinds[2]
	}
	return Decoded{
		Cause:    k.cause,
		Summary:  fmt.Sprintf("container %q is restarted because its %s probe fails", container, probe),
		NextStep: fmt.Sprintf("see the Unhealthy events for the probe's output, then fix spec.template.spec.%s[%s].%s or the app%s", list, container, k.field, probeSlowStart(k)),
		Details:  []chain.Detail{{Key: "probe", Value: probe}, {Key: "container", Value: container}},
	}, true
}

// Lifecycle hook causes: the kubelet runs postStart and preStop handlers in
// the container like it runs probes. A failed postStart kills the container.
const (
	PostStartHookFailed chain.CauseID = "PostStartHookFailed"
	PreStopHookFailed   chain.CauseID = "PreStopHookFailed"
)

// hookCauses are the catalogue entries for lifecycle hooks, judged by repeats:
// a hook racing the app's start can fail once.
var hookCauses = []Cause{
	{
		ID:       PostStartHookFailed,
		Link:     chain.LinkContainers,
		Summary:  "the postStart hook fails, so the kubelet kills and restarts the container",
		NextStep: "fix spec.template.spec.containers[].lifecycle.postStart (its command, or the HTTP path/port it calls)",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 2},
	},
	{
		ID:       PreStopHookFailed,
		Link:     chain.LinkContainers,
		Summary:  "the preStop hook fails, so the container stops without its graceful shutdown",
		NextStep: "fix spec.template.spec.containers[].lifecycle.preStop (its command, or the HTTP path/port it calls)",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 2},
	},
}

// Hook reasons: the events of pkg/kubelet/events/event.go, the waiting reason
// of kuberuntime's ErrPostStartHook and the kill message it uses.
const (
	reasonFailedPostStartHook = "FailedPostStartHook"
	reasonFailedPreStopHook   = "FailedPreStopHook"
	reasonPostStartHookError  = "PostStartHookError"
)

var (
	// hookHandlerRe matches the handler runner's failure messages
	// "Exec lifecycle hook (%v) for Container %q in Pod %q failed - error: %v,
	// message: %q", "HTTP lifecycle hook (%s) ..." and "Sleep lifecycle hook
	// (%d) ..." (pkg/kubelet/lifecycle/handlers.go).
	hookHandlerRe = regexp.MustCompile(`(?s)^(Exec|HTTP|Sleep) lifecycle hook \((.*?)\) for Container "([^"\s]*)" in Pod "[^"]*" failed - error: (.*)$`)
	// hookExitRe matches the CRI client's "command '%s' exited with %d: %s".
	hookExitRe = regexp.MustCompile(`exited with (-?\d+)`)
)

// Hook decodes FailedPostStartHook / FailedPreStopHook events, the
// PostStartHookError waiting message that carries the handler's error, and the
// Killing event that follows a failed postStart hook.
func Hook(reason, message string) (d Decoded, ok bool) {
	k := hookCauses[0]
	switch {
	case reason == reasonFailedPostStartHook, reason == reasonPostStartHookError,
		reason == reasonKilling && message == reasonFailedPostStartHook:
	case reason == reasonFailedPreStopHook:
		k = hookCauses[1]
	default:
		return Decoded{}, false
	}
	hook := "postStart"
	if k.ID == PreStopHookFailed {
		hook = "preStop"
	}
	m := hookHandlerRe.FindStringSubmatch(message)
	if m == nil {
		// The 1.37 events carry no detail ("PostStartHook failed"): the
		// kubelet keeps the handler's output out of events so secrets do not
		// leak; the waiting message has it.
		return Decoded{Cause: k.ID, Summary: hook + " hook failed"}, true
	}
	// A multi-line sh -c script prints over several lines: keep the first.
	kind, handler, container, why := strings.ToLower(m[1]), kubeletHead(m[2]), m[3], m[4]
	details := []chain.Detail{
		{Key: "container", Value: container},
		{Key: "hook", Value: hook},
		{Key: "handler", Value: kind},
		{Key: "action", Value: handler},
	}
	if x := hookExitRe.FindStringSubmatch(why); x != nil {
		details = append(details, chain.Detail{Key: "exitCode", Value: x[1]})
	}
	if kind == "exec" {
		// The exec form ends with ", message: %q": the command's output.
		if i := strings.LastIndex(why, ", message: "); i >= 0 {
			if out, rest, ok := kubeletQuoted(why[i+len(", message: "):]); ok && rest == "" {
				why = strings.TrimRight(why[:i], ": \n")
				if out = kubeletHead(out); out != "" {
					details = append(details, chain.Detail{Key: "output", Value: out})
					// stderr is in the error already; stdout is not.
					if !strings.Contains(why, out) {
						why += ": " + out
					}
				}
			}
		}
	}
	what := map[string]string{"exec": "command", "http": "HTTP path", "sleep": "sleep"}[kind]
	return Decoded{
		Cause:    k.ID,
		Summary:  fmt.Sprintf("%s hook of container %q failed: %s", hook, container, kubeletHead(why)),
		NextStep: fmt.Sprintf("fix spec.template.spec.containers[%s].lifecycle.%s (%s %s)", container, hook, what, handler),
		Details:  details,
	}, true
}

// podLocal drops the pod IP from a probe target ("10.244.1.7:5432" becomes
// "port 5432", "http://10.244.1.7:8080/healthz" becomes "port 8080
// /healthz"), so the same failure on every pod is one finding, not one per
// pod. The full target stays in the details.
func podLocal(target string) string {
	if u, err := url.Parse(target); err == nil && u.Host != "" {
		return strings.TrimSpace("port " + u.Port() + " " + u.Path)
	}
	if _, port, err := net.SplitHostPort(target); err == nil {
		return "port " + port
	}
	return target
}
