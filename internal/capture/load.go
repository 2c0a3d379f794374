// Package capture is the capture format, writer and reader side by side:
// Encode writes a snapshot the live reader built as a kubectl chain capture
// file, and Load reads captured cluster state (that file, or kubectl get
// -o yaml/json output) into the same chain.Snapshot the live reader builds,
// so the walk runs unchanged without a cluster.
package capture

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/internal/paste"
)

// Bundle is every object a file held that the walk can use.
type Bundle struct {
	Deployments  []appsv1.Deployment
	StatefulSets []appsv1.StatefulSet
	DaemonSets   []appsv1.DaemonSet
	Jobs         []batchv1.Job
	CronJobs     []batchv1.CronJob
	ReplicaSets  []appsv1.ReplicaSet
	Revisions    []appsv1.ControllerRevision
	Claims       []corev1.PersistentVolumeClaim
	Nodes        []corev1.Node
	Pods         []corev1.Pod
	// Packed, when set, holds the pods instead of Pods: a mirror's
	// bundle, whose pods are decoded for the snapshot that needs them.
	Packed []PackedPod
	Events []chain.Event
	// Services and EndpointSlices are the serving link's evidence.
	// ServicesRead says the input holds Services or is a capture whose
	// reader read them (ServicesComment): without either, "no Service"
	// cannot be told from "not captured".
	Services       []corev1.Service
	EndpointSlices []discoveryv1.EndpointSlice
	ServicesRead   bool
	// Policies are NetworkPolicies, noted on the serving link.
	Policies []networkingv1.NetworkPolicy
	// Autoscalers are autoscaling/v2 HorizontalPodAutoscalers, noted on a
	// scalable workload's stored link; a release's are also in Others,
	// each judged as its own object.
	Autoscalers []autoscalingv2.HorizontalPodAutoscaler
	// Ingresses and IngressClasses are the traffic kinds' evidence.
	Ingresses      []networkingv1.Ingress
	IngressClasses []networkingv1.IngressClass
	// The Gateway API's objects.
	Gateways       []gatewayv1.Gateway
	GatewayClasses []gatewayv1.GatewayClass
	Routes         []*chain.Route
	// Target is what a kubectl chain capture was taken of (TargetComment).
	Target chain.Ref
	// Skipped counts objects of other kinds, by kind; Others names them
	// (a release's objects of any kind, for --manifests).
	Skipped map[string]int
	Others  []Other
	// Objects are the objects of other kinds, whole: a resource kind's
	// capture (chain.IsResource) is read from them. API is where the
	// captured one is served (APIComment).
	Objects []*unstructured.Unstructured
	API     *chain.APIResource
	// Lone is the input's only object, whole, when it held one (kubectl
	// get KIND NAME -o yaml): a kind decoded into its own list above (a
	// Gateway, an HPA, a Service) is then walkable by its own status,
	// as any resource, since nothing else it leads to is in the input.
	Lone *unstructured.Unstructured
	// Undecoded name the fields left out of an object because they did
	// not fit their type: the object is walked without them. For pasted
	// text, they name what the text could not show and the text to add.
	Undecoded []string
	// objects counts the objects read (Lone is kept while it is one).
	objects int
	// seen is the resourceVersion of each object read, by group, kind,
	// namespace and name (once).
	seen map[string]string
	// Rollouts are Argo Rollouts (also in Others: a release judges them).
	Rollouts []chain.Rollout
	// CloneSets are OpenKruise CloneSets, as the file holds them (also
	// in Objects and Others).
	CloneSets []*unstructured.Unstructured
	// CapturedAt is the capture time `kubectl chain capture` recorded; zero
	// for plain kubectl output, which is judged at its newest timestamp.
	CapturedAt time.Time
	// EventsTargeted says the events are only those of each workload's
	// chain.EventTargets: the scope held too many to read them all.
	EventsTargeted bool
	// pasted says objects were rebuilt from kubectl's human output
	// (loadPaste).
	pasted bool
	// described says the paste showed objects, not only events: a
	// kubectl describe or a kubectl get table of them.
	described bool
	// nodesListed says the paste holds kubectl get nodes: its nodes are
	// all there are.
	nodesListed bool
	// servicesNotFound are the Services ("namespace/name") the paste
	// says kubectl found missing: absent, not left out.
	servicesNotFound []string

	ix *index
}

// Other is an object of a kind the bundle does not decode, by name.
type Other struct {
	APIVersion, Kind, Namespace, Name string
}

// TimeComment heads a kubectl chain capture, followed by its RFC 3339 time.
const TimeComment = "# kubectl-chain capture at "

// ServicesComment is a line of a capture whose reader listed the
// namespace's Services: the Services it holds are all that concern the
// workload, none included.
const ServicesComment = "# services: read"

// TargetComment is a line of a capture naming what was captured
// ("# target: service/web"): a traffic object's capture holds the
// workloads it selects too, and -f without a name walks the target.
const TargetComment = "# target: "

type typeMeta struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Items      []json.RawMessage `json:"items"`
	Metadata   struct {
		Name, Namespace, ResourceVersion string
	} `json:"metadata"`
}

// Load reads YAML or JSON: single objects, v1 Lists (what kubectl get -o
// yaml prints for several kinds) and several documents in one stream; and
// kubectl's human output (describe, get tables, events), alone or mixed
// with YAML (loadPaste).
func Load(r io.Reader) (*Bundle, error) {
	b := &Bundle{Skipped: map[string]int{}}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if paste.Looks(data) {
		return loadPaste(data) // kubectl describe, kubectl get tables, events
	}
	if rest, ok := bytes.CutPrefix(data, []byte(TimeComment)); ok {
		line, _, _ := bytes.Cut(rest, []byte("\n"))
		if t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(string(line))); err == nil {
			b.CapturedAt = t
		}
	}
	if bytes.Contains(data, []byte("\n"+ServicesComment+"\n")) {
		b.ServicesRead = true
	}
	if _, rest, ok := bytes.Cut(data, []byte("\n"+APIComment)); ok {
		line, _, _ := bytes.Cut(rest, []byte("\n"))
		b.API, _ = parseAPI(string(line))
	}
	if _, rest, ok := bytes.Cut(data, []byte("\n"+TargetComment)); ok {
		line, _, _ := bytes.Cut(rest, []byte("\n"))
		target := strings.TrimSpace(string(line))
		if ref, ok := chain.ParseRef(target); ok {
			b.Target = ref
		} else if _, name, ok := strings.Cut(target, "/"); ok && b.API != nil {
			b.Target = chain.ResourceRef(*b.API, name)
		}
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	docs := 0
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, unreadable(data, fmt.Errorf("not YAML or JSON: %w", err))
		}
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || string(raw) == "null" {
			continue
		}
		docs++
		if err := b.add(raw); err != nil {
			err = fmt.Errorf("document %d: %w", docs, err)
			if raw[0] != '{' {
				err = unreadable(data, err) // a word, a sentence: no object at all
			}
			return nil, err
		}
	}
	if docs == 0 {
		return nil, errors.New("empty input: expected the output of kubectl get deploy,rs,pods,events -o yaml or a kubectl chain capture")
	}
	if b.objects != 1 || !b.CapturedAt.IsZero() {
		// One of several, or a capture, whose reader read all there
		// was: what it lacks does not exist.
		b.Lone = nil
	}
	return b, nil
}

func (b *Bundle) add(raw json.RawMessage) error {
	var tm typeMeta
	if err := json.Unmarshal(raw, &tm); err != nil {
		return fmt.Errorf("not a Kubernetes object: %w", err)
	}
	if tm.Kind == "" {
		return errors.New("not a Kubernetes object: no kind")
	}
	if strings.HasSuffix(tm.Kind, "List") {
		for i, item := range tm.Items {
			if err := b.add(item); err != nil {
				return fmt.Errorf("item %d: %w", i, err)
			}
		}
		return nil
	}
	group, _, _ := strings.Cut(tm.APIVersion, "/")
	if !strings.Contains(tm.APIVersion, "/") {
		group = ""
	}
	if err := b.once(group, tm); err != nil {
		return err
	}
	if b.objects++; b.objects == 1 {
		var u unstructured.Unstructured
		if u.UnmarshalJSON(raw) == nil {
			b.Lone = &u
		}
	}
	var err error
	if decode, ok := decoders[groupKind{group, tm.Kind}]; ok {
		err = decode(b, raw)
	} else if tm.Kind == "HorizontalPodAutoscaler" && tm.APIVersion == "autoscaling/v2" {
		err = decodeInto(b, raw, &b.Autoscalers)
		if err == nil {
			h := b.Autoscalers[len(b.Autoscalers)-1]
			b.Others = append(b.Others, Other{APIVersion: tm.APIVersion, Kind: tm.Kind, Namespace: h.Namespace, Name: h.Name})
		}
	} else {
		b.Skipped[tm.Kind]++
		var u unstructured.Unstructured
		// UnmarshalJSON keeps integers as int64, as the API's client
		// gives them (kstatus reads metadata.generation as one).
		if u.UnmarshalJSON(raw) == nil && u.GetName() != "" {
			b.addOther(&u)
			if b.objects == 1 {
				b.Lone = &u // one object, not two copies
			}
			if tm.Kind == string(chain.KindCloneSet) && group == chain.CloneSetGroup {
				b.CloneSets = append(b.CloneSets, &u)
			}
			if tm.Kind == string(chain.KindRollout) && group == chain.RolloutGroup {
				var ro *chain.Rollout
				if ro, err = chain.DecodeRollout(&u); err == nil {
					b.undecoded(&u, ro.Undecoded)
					b.Rollouts = append(b.Rollouts, *ro)
				}
			}
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", tm.Kind, err)
	}
	return nil
}

// addOther keeps an object of a kind the bundle does not decode, whole.
func (b *Bundle) addOther(u *unstructured.Unstructured) {
	b.Others = append(b.Others, Other{APIVersion: u.GetAPIVersion(), Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName()})
	b.Objects = append(b.Objects, u)
}

// lenient decodes one object of type T. A field that does not fit its
// type is left out (chain.Lenient) and named in b.Undecoded.
func lenient[T any](b *Bundle, raw json.RawMessage) (T, error) {
	var out T
	err := json.Unmarshal(raw, &out)
	if err == nil {
		return out, nil
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return out, err
	}
	dropped, err := chain.Lenient(m, func(m map[string]any) error {
		js, err := json.Marshal(m)
		if err != nil {
			return err
		}
		var try T
		if err := json.Unmarshal(js, &try); err != nil {
			return err
		}
		out = try // the last call, on success, is the whole object's
		return nil
	})
	b.undecoded(&unstructured.Unstructured{Object: m}, dropped)
	return out, err
}

// undecoded notes the fields of obj left out of its decoding.
func (b *Bundle) undecoded(obj *unstructured.Unstructured, fields []string) {
	for _, f := range fields {
		b.Undecoded = append(b.Undecoded, fmt.Sprintf("%s %s: %s does not have the type its API gives it, so it was left out", obj.GetKind(), objectKey(obj), f))
	}
}

// objectKey is "namespace/name", or the name alone.
func objectKey(obj *unstructured.Unstructured) string {
	if obj.GetNamespace() == "" {
		return obj.GetName()
	}
	return obj.GetNamespace() + "/" + obj.GetName()
}

// once refuses a second object of the same kind, namespace and name in
// one input, unless it is the same version of it: kubectl apply would
// keep only the last, and which one the walk judged would be a guess.
func (b *Bundle) once(group string, tm typeMeta) error {
	m := tm.Metadata
	if m.Name == "" || tm.Kind == "Event" {
		return nil // events are records, several under one name
	}
	key := strings.Join([]string{group, tm.Kind, m.Namespace, m.Name}, "/")
	if b.seen == nil {
		b.seen = map[string]string{}
	}
	rv, dup := b.seen[key]
	if dup && (rv == "" || rv != m.ResourceVersion) {
		name := m.Name
		if m.Namespace != "" {
			name = m.Namespace + "/" + name
		}
		return fmt.Errorf("%s %s appears twice (kubectl apply would keep only the last): keep one", tm.Kind, name)
	}
	b.seen[key] = m.ResourceVersion
	return nil
}

// decodeInto appends one object of a list's type, leniently.
func decodeInto[T any](b *Bundle, raw json.RawMessage, list *[]T) error {
	obj, err := lenient[T](b, raw)
	if err == nil {
		*list = append(*list, obj)
	}
	return err
}
