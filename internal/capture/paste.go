package capture

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/internal/paste"
)

// errNothing is what input that holds no kubectl output at all gets.
var errNothing = errors.New("nothing kubectl chain can read: expected kubectl describe, kubectl get or YAML")

// loadPaste reads kubectl's human output (package paste) and the YAML
// or JSON mixed with it into a bundle. What the text cannot show is
// named in Undecoded, which the command prints on standard error; a
// Deployment whose pods or ReplicaSets the text lacks is walked with
// those links unknown (pasteGaps). A paste of pods without their
// workload is walked from a pod (Target).
func loadPaste(data []byte) (*Bundle, error) {
	r := paste.Parse(string(data))
	b := &Bundle{Skipped: map[string]int{}}
	for i, doc := range r.YAML {
		y, err := Load(strings.NewReader(doc))
		if err != nil {
			return nil, fmt.Errorf("the YAML after kubectl's output (part %d): %w", i+1, err)
		}
		b.Merge(y)
	}
	b.Deployments = append(b.Deployments, r.Deployments...)
	b.ReplicaSets = append(b.ReplicaSets, r.ReplicaSets...)
	b.Pods = append(b.Pods, r.Pods...)
	b.Nodes = append(b.Nodes, r.Nodes...)
	for i := range r.Events {
		b.Events = append(b.Events, chain.EventFromCore(&r.Events[i]))
	}
	if len(r.Forms) > 0 && b.CapturedAt.IsZero() {
		b.CapturedAt = r.Now
	}
	b.Undecoded = append(b.Undecoded, r.Notes...)
	b.pasted = len(r.Forms) > 0
	b.described = slices.ContainsFunc(r.Forms, func(f string) bool {
		return !strings.Contains(strings.ToLower(f), "events") && !strings.HasSuffix(f, "(not read)")
	})
	if len(b.Workloads("")) == 0 && b.Target.Name == "" && len(r.Pods) > 0 {
		pod := pickPod(r)
		b.Target = chain.Ref{Kind: chain.KindPod, Name: pod}
		if len(r.Pods) > 1 {
			b.Undecoded = append(b.Undecoded, fmt.Sprintf("the paste shows %d pods and no workload: pod/%s is walked; name another (pod/NAME) to walk it", len(r.Pods), pod))
		}
	}
	if r.Empty() {
		return nil, errNothing
	}
	return b, nil
}

// pickPod is the pod a paste of pods is walked from: the first
// described, else the first listed that is not running ready.
func pickPod(r *paste.Result) string {
	for _, p := range r.Forms {
		if name, ok := strings.CutPrefix(p, "kubectl describe pod "); ok {
			_, n, found := strings.Cut(name, "/")
			if !found {
				n = name
			}
			return n
		}
	}
	for _, p := range r.Pods {
		for _, c := range p.Status.Conditions {
			if c.Type == "Ready" && c.Status == "True" {
				goto next
			}
		}
		return p.Name
	next:
	}
	return r.Pods[0].Name
}

// Described says the bundle holds objects rebuilt from a kubectl
// describe or a kubectl get table, not only events: explain walks it.
func (b *Bundle) Described() bool { return b.described }

// pasteGaps keeps the walk of a pasted Deployment from reading as
// missing what the paste left out. With none of its pods pasted, it is
// walked as an object read alone (chain.Snapshot.Alone: its own status
// judges it past its stored link); with pods but none of its
// ReplicaSets, that link is unknown, naming the text to add, and its
// pods are judged by their pod-template-hash.
func (b *Bundle) pasteGaps(s *chain.Snapshot) {
	d := s.Deployment
	if !b.pasted || d == nil || !strings.HasPrefix(string(d.UID), "paste:") {
		return
	}
	if len(s.Pods) == 0 {
		if obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(d); err == nil {
			s.Alone, s.Object = true, &unstructured.Unstructured{Object: obj}
		}
		return
	}
	if len(s.ReplicaSets) == 0 {
		s.Gaps = append(s.Gaps, chain.Gap{Resource: chain.ResourceReplicaSets, Verb: "read",
			Message: "the paste shows no ReplicaSet of deployment/" + d.Name,
			Check:   "paste kubectl describe rs -l " + metav1.FormatLabelSelector(d.Spec.Selector) + " -n " + d.Namespace + " too"})
	}
}

// objectsRe finds what says the input meant to be YAML or JSON objects.
var objectsRe = regexp.MustCompile(`(?m)^\s*[\[{]|^\s*"?(?:apiVersion|kind|items)"?\s*:`)

// unreadable turns a decoding error into errNothing when the input does
// not look like objects at all (prose, a log).
func unreadable(data []byte, err error) error {
	if objectsRe.Match(data) {
		return err
	}
	return errNothing
}
