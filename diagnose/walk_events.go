package diagnose

import (
	"regexp"
	"strings"
	"time"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// combinedPrefix is what client-go's event correlator puts before the
// message of an event it aggregates from similar ones with different
// messages (tools/record/events_cache.go "(combined from similar events): ").
const combinedPrefix = "(combined from similar events): "

// fieldPathPrefix is the container's field path that 2026 events put
// before the kubelet's message ("spec.containers{kube-bench}: Failed to
// pull image ...", aquasecurity/kube-bench#2085,
// kubernetes-csi/external-resizer#585); the event's fieldPath says it too.
var fieldPathPrefix = regexp.MustCompile(`^spec\.(?:init|ephemeral)?[cC]ontainers\{[^}]*\}: `)

// eventMessage is an event's message as its component wrote it, for the
// decoders; evidence keeps the message verbatim.
func eventMessage(e chain.Event) string {
	return fieldPathPrefix.ReplaceAllString(strings.TrimPrefix(e.Message, combinedPrefix), "")
}

// oneLine keeps a message quoted in a detail on one line, as the decoders
// keep their summaries: the runtime joins registry errors with newlines.
func oneLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	kept := lines[:0]
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "; ")
}

// repeated is when the pod's events like newest (same reason, decoding to
// the same cause) began and last happened, and how often they happened. Failures whose message
// names a fresh object each time (a new sandbox ID per attempt) are
// separate events, not one with a count.
func (pc *podCtx) repeated(newest chain.Event, cause chain.CauseID, dec func(string, string) (decode.Decoded, bool)) (since, last time.Time, repeats int32) {
	since, last = newest.First, newest.Last
	for _, e := range pc.evs {
		if e.Reason != newest.Reason || e.Type != newest.Type {
			continue
		}
		if d, ok := dec(e.Reason, eventMessage(e)); ok && d.Cause == cause {
			repeats += e.Count
			if e.First.Before(since) {
				since = e.First
			}
			if e.Last.After(last) {
				last = e.Last
			}
		}
	}
	return since, last, repeats
}
