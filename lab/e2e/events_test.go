package e2e

import (
	"context"
	"regexp"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/lab/kubelet"
)

// kubeletFormats are the simulated kubelet's pod event formats as anchored
// regular expressions, keyed by type and reason.
var kubeletFormats = func() map[string][]*regexp.Regexp {
	out := map[string][]*regexp.Regexp{}
	for _, f := range kubelet.PodEventFormats() {
		k := f.Type + "/" + f.Reason
		out[k] = append(out[k], formatRegexp(f.Format))
	}
	return out
}()

// verb matches a fmt verb of the formats: %q, %s, %v, %d.
var verb = regexp.MustCompile(`%[qsvd]`)

// formatRegexp turns a fmt format into a regexp matching what it prints.
func formatRegexp(format string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	last := 0
	for _, m := range verb.FindAllStringIndex(format, -1) {
		b.WriteString(regexp.QuoteMeta(format[last:m[0]]))
		if format[m[0]+1] == 'q' {
			b.WriteString(`"(?:[^"\\]|\\.)*"`)
		} else {
			b.WriteString(`(?s:.*)`)
		}
		last = m[1]
	}
	b.WriteString(regexp.QuoteMeta(format[last:]))
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// checkKubeletEvents fails for every event from the kubelet in ns whose
// type, reason and message match none of the kubelet's formats: the proof
// that what the lab writes reads like a real node.
func checkKubeletEvents(ctx context.Context, t *testing.T, ns string) {
	t.Helper()
	evs, err := client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing events: %v", err)
	}
	for _, e := range evs.Items {
		if e.Source.Component != "kubelet" {
			continue
		}
		ok := false
		for _, re := range kubeletFormats[e.Type+"/"+e.Reason] {
			if re.MatchString(e.Message) {
				ok = true
				break
			}
		}
		if !ok {
			t.Errorf("kubelet event %s %s %q matches no kubelet format", e.Type, e.Reason, e.Message)
		}
	}
}
