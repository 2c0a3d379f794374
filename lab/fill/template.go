package fill

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/internal/capture"
)

// Template is one captured Deployment, what it owned and the events about
// them, as a lab scenario left them.
type Template struct {
	Name       string
	Deployment appsv1.Deployment
	ReplicaSet appsv1.ReplicaSet
	Pods       []corev1.Pod
	Events     []chain.Event
	Node       corev1.Node
	// CapturedAt is the capture's time, which the copies' times are
	// shifted from.
	CapturedAt time.Time
}

// LoadTemplates reads the captures names from fsys (NAME.yaml each).
func LoadTemplates(fsys fs.FS, names []string) (map[string]*Template, error) {
	out := map[string]*Template{}
	for _, name := range names {
		f, err := fsys.Open(name + ".yaml")
		if err != nil {
			return nil, fmt.Errorf("template %s: %w", name, err)
		}
		b, err := capture.Load(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("template %s: %w", name, err)
		}
		t, err := templateOf(name, b)
		if err != nil {
			return nil, err
		}
		out[name] = t
	}
	return out, nil
}

func templateOf(name string, b *capture.Bundle) (*Template, error) {
	if len(b.Deployments) != 1 || len(b.ReplicaSets) == 0 || (name == Healthy && len(b.Nodes) == 0) {
		return nil, fmt.Errorf("template %s: want one Deployment and its ReplicaSet (and a node for %s); the capture has %d, %d and %d",
			name, Healthy, len(b.Deployments), len(b.ReplicaSets), len(b.Nodes))
	}
	var node corev1.Node
	if len(b.Nodes) > 0 {
		node = b.Nodes[0]
	}
	d := b.Deployments[0]
	// The ReplicaSet of the Deployment's template: the newest revision.
	rs := slices.MaxFunc(b.ReplicaSets, func(a, b appsv1.ReplicaSet) int {
		return strings.Compare(a.Annotations["deployment.kubernetes.io/revision"], b.Annotations["deployment.kubernetes.io/revision"])
	})
	return &Template{Name: name, Deployment: d, ReplicaSet: rs, Pods: b.Pods, Events: b.Events, Node: node, CapturedAt: b.CapturedAt}, nil
}

// stamp matches the times of a JSON document: metav1.Time's RFC 3339
// seconds and MicroTime's microseconds.
var stamp = regexp.MustCompile(`"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?Z"`)

// rewrite copies obj through JSON with names replaced (longest first, so
// a pod's name goes before its ReplicaSet's, its prefix) and every time
// moved by shift.
func rewrite[T any](obj *T, names *strings.Replacer, shift time.Duration) (*T, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	text := names.Replace(string(data))
	text = stamp.ReplaceAllStringFunc(text, func(s string) string {
		layout := time.RFC3339
		if strings.Contains(s, ".") {
			layout = "2006-01-02T15:04:05.000000Z07:00"
		}
		t, err := time.Parse(time.RFC3339Nano, strings.Trim(s, `"`))
		if err != nil {
			return s
		}
		return `"` + t.Add(shift).UTC().Format(layout) + `"`
	})
	out := new(T)
	if err := json.Unmarshal([]byte(text), out); err != nil {
		return nil, err
	}
	return out, nil
}

// replacer replaces each old string of pairs (old, new, ...) with its new
// one, longest first.
func replacer(pairs map[string]string) *strings.Replacer {
	olds := make([]string, 0, len(pairs))
	for o := range pairs {
		if o != "" {
			olds = append(olds, o)
		}
	}
	slices.SortFunc(olds, func(a, b string) int { return len(b) - len(a) })
	args := make([]string, 0, 2*len(olds))
	for _, o := range olds {
		args = append(args, o, pairs[o])
	}
	return strings.NewReplacer(args...)
}

// fresh clears what the API server sets on create.
func fresh(m *metav1.ObjectMeta, namespace, name string) {
	m.Namespace, m.Name = namespace, name
	m.UID, m.ResourceVersion, m.CreationTimestamp, m.Generation = "", "", metav1.Time{}, 0
	m.ManagedFields, m.OwnerReferences = nil, nil
	delete(m.Labels, "lab.kubectl-chain.io/scenario")
}
