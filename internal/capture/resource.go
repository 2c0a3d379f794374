package capture

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// APIComment is a line of a capture of a resource kind: where its object
// is served ("# api: " and chain.APIResource as JSON), which an offline
// read cannot ask discovery.
const APIComment = "# api: "

// parseAPI reads the API comment's JSON.
func parseAPI(line string) (*chain.APIResource, bool) {
	var a chain.APIResource
	if json.Unmarshal([]byte(strings.TrimSpace(line)), &a) != nil || a.Kind == "" {
		return nil, false
	}
	return &a, true
}

// ResourceAPI resolves a type as typed against the bundle's objects of
// other kinds, as discovery would on the cluster they came from: the
// kind, its plural from the capture's API comment or by kubectl's rule
// of the kind lower-cased with an s, each alone or with the group.
func (b *Bundle) ResourceAPI(typ string) (*chain.APIResource, bool) {
	typ = strings.ToLower(typ)
	short, rest, _ := strings.Cut(typ, ".")
	if long, ok := shortNames[short]; ok {
		typ = strings.TrimSuffix(long+"."+rest, ".")
	}
	for _, o := range b.whole() {
		gvk := o.GroupVersionKind()
		api := b.apiOf(gvk, o.GetNamespace() != "")
		for _, name := range []string{strings.ToLower(gvk.Kind), api.Resource} {
			if typ == name || typ == name+"."+gvk.Group || typ == name+"."+gvk.Version+"."+gvk.Group {
				return &api, true
			}
		}
	}
	return nil, false
}

// apiOf is where an object of gvk is served: the capture's API comment
// when it is of that kind, else the kind's plural by kubectl's rule.
func (b *Bundle) apiOf(gvk schema.GroupVersionKind, namespaced bool) chain.APIResource {
	if b.API != nil && b.API.Kind == gvk.Kind && b.API.Group == gvk.Group {
		return *b.API
	}
	return chain.APIResource{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind, Namespaced: namespaced || gvk.Group == "" && coreNamespaced[gvk.Kind],
		Resource: chain.Kind(gvk.Kind).Plural()}
}

// coreNamespaced are core kinds an input can hold without their
// namespace (a pasted kubectl get table without -A) that are namespaced
// all the same.
var coreNamespaced = map[string]bool{"PersistentVolumeClaim": true, "ResourceQuota": true, "LimitRange": true,
	"ConfigMap": true, "Secret": true, "ServiceAccount": true}

// maxOwnedPods bounds the pods an object controls itself whose chains
// are walked, as the live read's maxOwned does.
const maxOwnedPods = 5

// shortNames are the short names the API server gives its own kinds
// (kubectl api-resources), which an offline read cannot ask discovery.
var shortNames = map[string]string{
	"hpa": "horizontalpodautoscaler", "pvc": "persistentvolumeclaim", "pv": "persistentvolume",
	"cm": "configmap", "sa": "serviceaccount", "ns": "namespace", "no": "node", "ep": "endpoints",
	"netpol": "networkpolicy", "pdb": "poddisruptionbudget", "sc": "storageclass", "quota": "resourcequota",
	"limits": "limitrange", "crd": "customresourcedefinition", "csr": "certificatesigningrequest",
	"rc": "replicationcontroller", "ev": "event", "pc": "priorityclass",
}

// HasObjects says the input holds an object a KIND/NAME of any other kind
// can name (whole), without making them whole, or a pasted pod its
// Target names.
func (b *Bundle) HasObjects() bool {
	return len(b.Objects) > 0 || b.Lone != nil || len(b.Claims) > 0 || len(b.Autoscalers) > 0 ||
		len(b.IngressClasses) > 0 || len(b.GatewayClasses) > 0 || len(b.Nodes) > 0 || len(b.Policies) > 0 ||
		b.Target.Kind == chain.KindPod && len(b.Pods) > 0 || chain.IsTraffic(b.Target.Kind) && b.Target.Name != ""
}

// whole is every object a KIND/NAME of any other kind can name: those of
// other kinds, the input's only object whatever its kind, and the kinds
// decoded into lists of their own that no chain of kubectl chain's walks
// from (claims, autoscalers, classes, nodes, policies), whole again.
func (b *Bundle) whole() []*unstructured.Unstructured {
	out := slices.Clip(b.Objects)
	if b.Lone != nil && !slices.Contains(b.Objects, b.Lone) {
		out = append(out, b.Lone)
	}
	add := func(apiVersion, kind string, obj any) {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return
		}
		u := &unstructured.Unstructured{Object: m}
		u.SetAPIVersion(apiVersion)
		u.SetKind(kind)
		if b.Lone == nil || u.GroupVersionKind() != b.Lone.GroupVersionKind() || u.GetName() != b.Lone.GetName() || u.GetNamespace() != b.Lone.GetNamespace() {
			out = append(out, u)
		}
	}
	for i := range b.Claims {
		add("v1", "PersistentVolumeClaim", &b.Claims[i])
	}
	for i := range b.Autoscalers {
		add("autoscaling/v2", "HorizontalPodAutoscaler", &b.Autoscalers[i])
	}
	for i := range b.IngressClasses {
		add("networking.k8s.io/v1", "IngressClass", &b.IngressClasses[i])
	}
	for i := range b.GatewayClasses {
		add(chain.GatewayGroup+"/v1", "GatewayClass", &b.GatewayClasses[i])
	}
	for i := range b.Nodes {
		add("v1", "Node", &b.Nodes[i])
	}
	for i := range b.Policies {
		add("networking.k8s.io/v1", "NetworkPolicy", &b.Policies[i])
	}
	return out
}

// object is the object of the kind (its group, when the ref has one) and
// name that ref names, in namespace or naming none ("" matches any).
func (b *Bundle) object(namespace string, ref chain.Ref) *unstructured.Unstructured {
	for _, o := range b.whole() {
		gvk := o.GroupVersionKind()
		if strings.EqualFold(gvk.Kind, string(ref.Kind)) && o.GetName() == ref.Name && (ref.Group == "" || ref.Group == gvk.Group) &&
			(namespace == "" || o.GetNamespace() == namespace || o.GetNamespace() == "") {
			return o
		}
	}
	return nil
}

// resource is the snapshot of an object of a resource kind: the object,
// its events, and the workloads of the bundle it controls, each read as
// its own chain.
func (b *Bundle) resource(namespace string, ref chain.Ref) (*chain.Snapshot, error) {
	obj := b.object(namespace, ref)
	if obj == nil {
		return nil, fmt.Errorf("no %s %q in the input", ref.Kind, ref.Name)
	}
	api := b.apiOf(obj.GroupVersionKind(), obj.GetNamespace() != "")
	s := &chain.Snapshot{Kind: chain.Kind(api.Kind), Namespace: obj.GetNamespace(), Name: obj.GetName(), Object: obj, API: &api}
	if s.Namespace == "" {
		s.Namespace = namespace // as kubectl apply -n would create it
	}
	s.Alone = obj == b.Lone
	for _, e := range b.Events {
		if e.Object.Kind == api.Kind && e.Object.Name == obj.GetName() {
			s.Events = append(s.Events, e)
		}
	}
	chain.SortEvents(s.Events)
	b.attempts(s, obj, api)
	for _, w := range b.Workloads(obj.GetNamespace()) {
		if metav1.IsControlledBy(w.Object, obj) {
			owned, err := b.Read(w.Namespace, w.Ref)
			if err != nil {
				return nil, err
			}
			s.Behind = append(s.Behind, owned)
		}
	}
	if uid := obj.GetUID(); uid != "" {
		// The pods it controls itself (an OpenKruise CloneSet's), each
		// walked as a pod's chain, as the live read bounds them.
		pods := chain.PodsControlledBy(b.podsIn(s.Namespace), uid)
		for _, ref := range pods[:min(len(pods), maxOwnedPods)] {
			owned, err := b.Read(s.Namespace, ref)
			if err != nil {
				return nil, err
			}
			s.Behind = append(s.Behind, owned)
		}
	}
	b.clock(s)
	return s, nil
}

// rollout is an Argo Rollout's snapshot, as a Deployment's.
func (b *Bundle) rollout(namespace, name string) (*chain.Snapshot, error) {
	ro := find(b.Rollouts, namespace, name)
	if ro == nil {
		return nil, fmt.Errorf("no Rollout %q in the input", name)
	}
	if ref := ro.Spec.WorkloadRef; ref != nil && ref.Kind == "Deployment" {
		// Its template and, without its own, selector are the
		// Deployment's it names, as the live read takes them; else the
		// selector its status records.
		if d := find(b.Deployments, ro.Namespace, ref.Name); d != nil {
			ro.Spec.Template = *d.Spec.Template.DeepCopy()
			if ro.Spec.Selector == nil {
				ro.Spec.Selector = d.Spec.Selector.DeepCopy()
			}
		}
	}
	if ro.Spec.Selector == nil && ro.Status.Selector != "" {
		if ls, err := metav1.ParseToLabelSelector(ro.Status.Selector); err == nil {
			ro.Spec.Selector = ls
		}
	}
	return b.replicaSetOwner(&chain.Snapshot{Kind: chain.KindRollout, Namespace: ro.Namespace, Name: ro.Name, Rollout: ro}, ro.Spec.Selector)
}

// produced gives the snapshot the bundle's objects of producer kinds in
// its namespace (chain.Producers) with their attempts, as the live read
// gives those that write a Secret its pods wait for (the walk keeps only
// those).
func (b *Bundle) produced(s *chain.Snapshot) {
	for i := range chain.Producers {
		p := chain.Producers[i]
		var found []chain.Produced
		var attempts, steps []*unstructured.Unstructured
		for _, o := range b.Objects {
			gvk := o.GroupVersionKind()
			if o.GetNamespace() != s.Namespace {
				continue
			}
			switch {
			case gvk.Group == p.Group && gvk.Kind == p.Kind:
				found = append(found, chain.Produced{API: b.apiOf(gvk, true), Object: o, Secret: p.Writes(o)})
			case gvk.Group == p.Group && p.Attempts != nil && gvk.Kind == p.Attempts.Kind:
				attempts = append(attempts, o)
			case slices.ContainsFunc(p.Steps, func(st chain.APIResource) bool { return st.Group == gvk.Group && st.Kind == gvk.Kind }):
				steps = append(steps, o)
			}
		}
		chain.AttachAttempts(found, attempts)
		chain.AttachSteps(found, steps)
		s.Produced = append(s.Produced, found...)
	}
}

// attempts gives the snapshot of a producer whose tries are objects of
// their own (a Certificate's CertificateRequests) that object with the
// tries it controls, newest first, as the walk of a workload whose pods
// wait on its Secret gets them (produced).
func (b *Bundle) attempts(s *chain.Snapshot, obj *unstructured.Unstructured, api chain.APIResource) {
	p := chain.ProducerOf(api)
	if p == nil || p.Attempts == nil {
		return
	}
	var candidates []*unstructured.Unstructured
	for _, o := range b.Objects {
		if gvk := o.GroupVersionKind(); gvk.Group == p.Group && gvk.Kind == p.Attempts.Kind && o.GetNamespace() == obj.GetNamespace() {
			candidates = append(candidates, o)
		}
	}
	found := []chain.Produced{{API: api, Object: obj, Secret: p.Writes(obj)}}
	chain.AttachAttempts(found, candidates)
	s.Produced = found
}
