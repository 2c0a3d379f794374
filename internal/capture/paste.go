package capture

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

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
	if rebuilt(r) > r.Generic {
		// An object of the YAML (or of a generic describe) beside
		// objects the text rebuilt (described or listed, not only
		// events) is not read alone: its chain may be in the paste.
		b.Lone = nil
	}
	b.Deployments = append(b.Deployments, r.Deployments...)
	b.ReplicaSets = append(b.ReplicaSets, r.ReplicaSets...)
	b.Pods = append(b.Pods, r.Pods...)
	b.Nodes = append(b.Nodes, r.Nodes...)
	b.StatefulSets = append(b.StatefulSets, r.StatefulSets...)
	b.DaemonSets = append(b.DaemonSets, r.DaemonSets...)
	b.Jobs = append(b.Jobs, r.Jobs...)
	b.CronJobs = append(b.CronJobs, r.CronJobs...)
	b.Claims = append(b.Claims, r.Claims...)
	b.Services = append(b.Services, r.Services...)
	b.ServicesRead = b.ServicesRead || len(r.Services) > 0
	b.EndpointSlices = append(b.EndpointSlices, r.EndpointSlices...)
	b.Ingresses = append(b.Ingresses, r.Ingresses...)
	b.IngressClasses = append(b.IngressClasses, r.IngressClasses...)
	for _, obj := range pastedOthers(r) {
		b.addOther(obj)
	}
	for i := range r.Events {
		b.Events = append(b.Events, chain.EventFromCore(&r.Events[i]))
	}
	if len(r.Forms) > 0 && b.CapturedAt.IsZero() {
		b.CapturedAt = r.Now
	}
	b.Undecoded = append(b.Undecoded, r.Notes...)
	for _, svc := range r.Services {
		if slicesPasted(r, svc) {
			continue // the slices say whether the name resolved
		}
		for _, port := range svc.Spec.Ports {
			if port.TargetPort.Type == intstr.String && port.TargetPort.StrVal != "" {
				b.Undecoded = append(b.Undecoded, fmt.Sprintf("service/%s targets port %q by name, and kubectl describe prints no container port's name: that it names a port of the pods is not checked; paste kubectl describe endpointslices -n %s -l %s=%s (or kubectl get pods -n %s -o yaml) too to check it", svc.Name, port.TargetPort.StrVal, svc.Namespace, discoveryv1.LabelServiceName, svc.Name, svc.Namespace))
				break
			}
		}
	}
	b.pasted = len(r.Forms) > 0
	b.described = rebuilt(r) > 0
	b.nodesListed = slices.Contains(r.Forms, "kubectl get nodes")
	b.servicesNotFound = append(b.servicesNotFound, r.ServicesNotFound...)
	if len(b.Workloads("")) == 0 && b.Target.Name == "" {
		switch claim := loneClaim(r); {
		case claim != "":
			// A claim that waits, beside pods that are well and do not
			// use it (the provisioner's, say): the claim is the question.
			b.Target = chain.Ref{Kind: "PersistentVolumeClaim", Name: claim}
			if len(r.Pods) > 0 {
				b.Undecoded = append(b.Undecoded, fmt.Sprintf("the paste shows claim %s not bound, no workload, and no pod that uses the claim: pvc/%s is walked; name a pod (pod/NAME) to walk it instead", claim, claim))
			}
		case len(r.Pods) > 0:
			pod := pickPod(r)
			b.Target = chain.Ref{Kind: chain.KindPod, Name: pod}
			if len(r.Pods) > 1 {
				b.Undecoded = append(b.Undecoded, fmt.Sprintf("the paste shows %d pods and no workload: pod/%s is walked; name another (pod/NAME) to walk it, or pass --all to judge each owner's pods", len(r.Pods), pod))
			}
		// Traffic alone: walked from the Ingress, else the Service.
		case len(r.Ingresses) > 0:
			b.Target = chain.Ref{Kind: chain.KindIngress, Name: r.Ingresses[0].Name}
		case len(r.Services) > 0:
			b.Target = chain.Ref{Kind: chain.KindService, Name: r.Services[0].Name}
		}
	}
	if r.Empty() {
		return nil, errNothing
	}
	return b, nil
}

// rebuilt counts the forms of a paste that rebuilt objects: describes
// read and get tables, not events.
func rebuilt(r *paste.Result) int {
	n := 0
	for _, f := range r.Forms {
		if !strings.Contains(strings.ToLower(f), "events") && !strings.HasSuffix(f, "(not read)") {
			n++
		}
	}
	return n
}

// pastedOthers are the pasted objects of kinds the bundle keeps whole
// (its Objects): quotas and namespaces, which the walk of a kind by its
// own status reads (kubectl chain quota/NAME -f FILE).
func pastedOthers(r *paste.Result) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	add := func(obj any) {
		if m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj); err == nil {
			out = append(out, &unstructured.Unstructured{Object: m})
		}
	}
	for i := range r.Quotas {
		add(&r.Quotas[i])
	}
	for i := range r.Namespaces {
		add(&r.Namespaces[i])
	}
	return out
}

// loneClaim is the first pasted claim that is not bound when no pasted
// pod uses it and every pasted pod is ready: the paste's question, not
// one of the pods. "" when there is none.
func loneClaim(r *paste.Result) string {
	used := map[string]bool{}
	for _, p := range r.Pods {
		if !chain.PodReady(&p) {
			return ""
		}
		for _, v := range p.Spec.Volumes {
			if v.PersistentVolumeClaim != nil {
				used[v.PersistentVolumeClaim.ClaimName] = true
			}
		}
	}
	for _, c := range r.Claims {
		if c.Status.Phase != corev1.ClaimBound && !used[c.Name] {
			return c.Name
		}
	}
	return ""
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
		if !chain.PodReady(&p) {
			return p.Name
		}
	}
	return r.Pods[0].Name
}

// Described says the bundle holds objects rebuilt from a kubectl
// describe or a kubectl get table, not only events: explain walks it.
func (b *Bundle) Described() bool { return b.described }

// pasteGaps keeps the walk of a pasted workload from reading as missing
// what the paste left out. With none of its pods pasted while its status
// counts some, it is walked as an object read alone (chain.Snapshot.Alone:
// its own status judges it past its stored link), unless a ReplicaSet of
// the paste shows it created none of the pods it wants (the pods are
// missing, not left out: a refused create). A Deployment with pods but
// none of its ReplicaSets has that link unknown, naming the text to add,
// and its pods are judged by their pod-template-hash. A DaemonSet's
// eligible nodes are unknown unless kubectl get nodes was pasted: a
// describe shows one node, not all. An Ingress's class is unknown unless
// pasted.
func (b *Bundle) pasteGaps(s *chain.Snapshot) {
	if r := s.Route; b.pasted && r != nil && strings.HasPrefix(string(r.UID), "paste:") {
		routeGaps(s, r)
	}
	obj := s.Workload()
	if !b.pasted || obj == nil || !strings.HasPrefix(string(obj.GetUID()), "paste:") {
		return
	}
	if s.DaemonSet != nil && !b.nodesListed {
		s.Gaps = append(s.Gaps, chain.Gap{Resource: chain.ResourceNodes, Verb: "list",
			Message: "the paste shows no kubectl get nodes", Check: "paste kubectl get nodes too"})
	}
	if (s.Ingress != nil || s.Service != nil) && len(b.podsIn(s.Namespace)) == 0 && len(b.Workloads(s.Namespace)) == 0 {
		s.Gaps = append(s.Gaps, chain.Gap{Resource: chain.ResourcePods, Verb: "list",
			Message: "the paste shows no pod or workload of namespace " + s.Namespace, Check: "paste kubectl get pods -n " + s.Namespace + " --show-labels too"})
	}
	if in := s.Ingress; in != nil {
		for _, name := range backendServices(in) {
			// A backend describe ingress printed "<error: services
			// "NAME" not found>" after is missing, not left out.
			if find(b.Services, in.Namespace, name) == nil && !slices.Contains(b.servicesNotFound, in.Namespace+"/"+name) {
				s.Gaps = append(s.Gaps, chain.Gap{Resource: chain.ResourceServices, Verb: "get",
					Message: "the paste shows no Service " + name, Check: "paste kubectl describe svc " + name + " -n " + in.Namespace + " too"})
				break
			}
		}
	}
	if s.Ingress != nil && len(b.IngressClasses) == 0 {
		s.Gaps = append(s.Gaps, chain.Gap{Resource: chain.ResourceIngressClasses, Verb: "list",
			Message: "describe ingress does not show the IngressClass", Check: "paste kubectl get ingressclass too"})
	}
	if len(s.Pods) == 0 && podsCounted(s) > 0 && !createdNone(s) {
		if u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj); err == nil {
			s.Alone, s.Object = true, &unstructured.Unstructured{Object: u}
		}
		return
	}
	if d := s.Deployment; d != nil && len(s.Pods) > 0 && len(s.ReplicaSets) == 0 {
		s.Gaps = append(s.Gaps, chain.Gap{Resource: chain.ResourceReplicaSets, Verb: "read",
			Message: "the paste shows no ReplicaSet of deployment/" + d.Name,
			Check:   "paste kubectl describe rs -l " + metav1.FormatLabelSelector(d.Spec.Selector) + " -n " + d.Namespace + " too"})
	}
}

// routeGaps: a pasted route's parent Gateway that the paste does not
// show, while the route's status shows a controller wrote for it (so it
// exists, or did), was left out of the paste, not found missing: the
// parents link is unknown, naming the text to add. A parent no status
// names is judged missing, as kubectl describe of the namespace's
// Gateways would have shown it.
func routeGaps(s *chain.Snapshot, r *chain.Route) {
	for _, p := range r.ParentRefs {
		key := chain.ParentKeyOf(r.Namespace, p)
		if !chain.IsGatewayParent(p) || s.GatewayNamed(key) != nil {
			continue
		}
		for _, st := range r.Status.Parents {
			if chain.ParentKeyOf(r.Namespace, st.ParentRef) == key && len(st.Conditions) > 0 {
				s.Gaps = append(s.Gaps, chain.Gap{Resource: chain.ResourceGateways, Verb: "get",
					Message: fmt.Sprintf("the paste shows no Gateway %s, whose controller %s wrote the route's status", key.Name, st.ControllerName),
					Check:   fmt.Sprintf("paste kubectl describe gateways.gateway.networking.k8s.io %s -n %s and kubectl describe gatewayclasses.gateway.networking.k8s.io too", key.Name, key.Namespace)})
				return
			}
		}
	}
}

// backendServices are the Services an Ingress sends to.
func backendServices(in *networkingv1.Ingress) []string {
	var out []string
	if d := in.Spec.DefaultBackend; d != nil && d.Service != nil {
		out = append(out, d.Service.Name)
	}
	for _, r := range in.Spec.Rules {
		if r.HTTP == nil {
			continue
		}
		for _, p := range r.HTTP.Paths {
			if p.Backend.Service != nil {
				out = append(out, p.Backend.Service.Name)
			}
		}
	}
	return out
}

// podsCounted is how many pods a pasted workload's status says exist.
func podsCounted(s *chain.Snapshot) int32 {
	switch {
	case s.Deployment != nil:
		return max(s.Deployment.Status.Replicas, 1) // describe deployment counts old pods too
	case s.StatefulSet != nil:
		return s.StatefulSet.Status.Replicas
	case s.DaemonSet != nil:
		return s.DaemonSet.Status.CurrentNumberScheduled
	case s.Job != nil:
		return s.Job.Status.Active
	}
	return 0
}

// createdNone says a pasted ReplicaSet of the snapshot shows it created
// none of the pods it wants ("0 current / 1 desired").
func createdNone(s *chain.Snapshot) bool {
	for _, rs := range s.ReplicaSets {
		if rs.Spec.Replicas != nil && *rs.Spec.Replicas > 0 && rs.Status.Replicas == 0 {
			return true
		}
	}
	return false
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

// slicesPasted says the paste shows an EndpointSlice of svc that holds
// endpoints: which ports the EndpointSlice controller resolved on them.
func slicesPasted(r *paste.Result, svc corev1.Service) bool {
	for _, sl := range r.EndpointSlices {
		if sl.Namespace == svc.Namespace && sl.Labels[discoveryv1.LabelServiceName] == svc.Name && len(sl.Endpoints) > 0 {
			return true
		}
	}
	return false
}
