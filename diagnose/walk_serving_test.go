package diagnose

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// servedPod is the ready bare pod shop/web, labelled app=web,tier=front,
// declaring the container port http 8080/TCP.
func servedPod() corev1.Pod {
	p := kindPod("web", &metav1.ObjectMeta{Name: "none"}, "", corev1.PodRunning, true, map[string]string{"app": "web", "tier": "front"})
	p.OwnerReferences = nil
	p.Status.PodIP = "10.0.0.5"
	p.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}
	return p
}

// service is Service shop/NAME selecting selector, port 80 to targetPort.
func service(name string, selector map[string]string, target intstr.IntOrString) corev1.Service {
	return corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, UID: k8stypes.UID("svc-uid-" + name), CreationTimestamp: metav1.NewTime(walkT0)},
		Spec: corev1.ServiceSpec{Selector: selector, Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.96.0.10",
			Ports: []corev1.ServicePort{{Name: "web", Port: 80, Protocol: corev1.ProtocolTCP, TargetPort: target}}},
	}
}

// slice is an EndpointSlice of service svc with the pods as endpoints of
// that readiness.
func slice(svc string, ready bool, pods ...string) discoveryv1.EndpointSlice {
	sl := discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: svc + "-abcde",
		Labels: map[string]string{discoveryv1.LabelServiceName: svc}}}
	for _, p := range pods {
		sl.Endpoints = append(sl.Endpoints, discoveryv1.Endpoint{Addresses: []string{"10.0.0.5"},
			Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(ready)},
			TargetRef:  &corev1.ObjectReference{Kind: "Pod", Name: p, Namespace: "shop"}})
	}
	return sl
}

// TestWalkServing: the serving link of a ready bare pod, for each way a
// Service can fail to send it traffic, and the ways it must not blame.
func TestWalkServing(t *testing.T) {
	byName := intstr.FromString("http")
	lb := service("web", map[string]string{"app": "web"}, byName)
	lb.Spec.Type = corev1.ServiceTypeLoadBalancer
	udp := service("web", map[string]string{"app": "web"}, byName)
	udp.Spec.Ports[0].Protocol = corev1.ProtocolUDP
	lbEvent := func(typ, reason, msg string) chain.Event {
		return chain.Event{Type: typ, Reason: reason, Message: msg, Count: 3, First: walkT0, Last: walkT0.Add(time.Minute),
			Object: chain.ObjectRef{Kind: "Service", Name: "web", UID: lb.UID}, Source: "service-controller"}
	}
	for _, tt := range []struct {
		name     string
		services []corev1.Service
		slices   []discoveryv1.EndpointSlice
		others   []corev1.Pod
		events   []chain.Event
		after    time.Duration // since walkT0
		unread   bool
		probe    *corev1.Probe // the container's readiness probe
		status   chain.Status
		cause    chain.CauseID
		terminal bool
		summary  string // a part of the first finding's summary, or of the link's
		note     string // a part of a note
	}{
		{name: "no service", status: chain.StatusOK, summary: "no Service selects the pods", note: "not every workload serves"},
		{name: "not captured", unread: true, status: chain.StatusNotReached, summary: "not judged"},
		{name: "selected and endpoint ready", services: []corev1.Service{service("web", map[string]string{"app": "web"}, byName)},
			slices: []discoveryv1.EndpointSlice{slice("web", true, "web")}, status: chain.StatusOK, summary: "1 Service selects the pods", note: "1/1 ready pods are ready endpoints"},
		{name: "selector mismatch by name", services: []corev1.Service{service("web", map[string]string{"app": "webapp"}, byName)},
			slices: []discoveryv1.EndpointSlice{slice("web", true)}, after: time.Minute,
			status: chain.StatusBroken, cause: decode.ServiceSelectorMismatch, terminal: true, summary: "selector app=webapp; the pods carry app=web"},
		{name: "selector mismatch within grace", services: []corev1.Service{service("web", map[string]string{"app": "webapp"}, byName)},
			after: 5 * time.Second, status: chain.StatusBroken, cause: decode.ServiceSelectorMismatch},
		{name: "selector mismatch by one label", services: []corev1.Service{service("front", map[string]string{"app": "web", "tier": "frnt"}, byName)},
			after: time.Minute, status: chain.StatusBroken, cause: decode.ServiceSelectorMismatch, terminal: true, summary: "selector app=web,tier=frnt; the pods carry app=web,tier=front"},
		{name: "another tier's service", services: []corev1.Service{service("db", map[string]string{"app": "web", "tier": "db"}, byName)},
			slices: []discoveryv1.EndpointSlice{slice("db", true, "db-0")}, status: chain.StatusOK, summary: "no Service selects the pods"},
		// The lab operator's Shop: a headless db Service beside the web
		// pods, sharing the shop label; its only pod is Pending, so it
		// has no endpoint, but it is the Service's.
		{name: "another tier's service, its pod pending", services: []corev1.Service{service("db", map[string]string{"app": "web", "tier": "db"}, byName)},
			others: []corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "db-0", Labels: map[string]string{"app": "web", "tier": "db"}},
				Status: corev1.PodStatus{Phase: corev1.PodPending}}},
			after: time.Minute, status: chain.StatusOK, summary: "no Service selects the pods"},
		{name: "unrelated single label", services: []corev1.Service{service("cache", map[string]string{"app": "redis"}, byName)},
			status: chain.StatusOK, summary: "no Service selects the pods"},
		{name: "target port name not declared", services: []corev1.Service{service("web", map[string]string{"app": "web"}, intstr.FromString("https"))},
			slices: []discoveryv1.EndpointSlice{slice("web", true, "web")}, after: time.Minute,
			status: chain.StatusBroken, cause: decode.ServiceTargetPortNotFound, terminal: true, summary: `targetPort "https" is no TCP port of the pods (they declare http 8080/TCP)`},
		{name: "target port of another protocol", services: []corev1.Service{udp}, after: time.Minute, terminal: true,
			slices: []discoveryv1.EndpointSlice{slice("web", true, "web")}, status: chain.StatusBroken, cause: decode.ServiceTargetPortNotFound},
		{name: "target port number not declared", services: []corev1.Service{service("web", map[string]string{"app": "web"}, intstr.FromInt32(9090))},
			slices: []discoveryv1.EndpointSlice{slice("web", true, "web")}, status: chain.StatusOK, note: "sends to 9090/TCP, which no container declares"},
		// The guestbook case of issue 34: the Service sends to 80, the
		// pods declare and probe 8080.
		{name: "target port number not declared, probe on the declared port", services: []corev1.Service{service("web", map[string]string{"app": "web"}, intstr.FromInt32(80))},
			slices: []discoveryv1.EndpointSlice{slice("web", true, "web")}, probe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromString("http")}}},
			after: time.Minute, status: chain.StatusBroken, cause: decode.ServiceTargetPortNotListening, terminal: true,
			summary: "container web declares http 8080/TCP and its readiness probe checks 8080: the program answers there, not on 80"},
		{name: "target port number declared, probe elsewhere", services: []corev1.Service{service("web", map[string]string{"app": "web"}, intstr.FromInt32(8080))},
			slices: []discoveryv1.EndpointSlice{slice("web", true, "web")}, probe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8181)}}},
			after: time.Minute, status: chain.StatusOK},
		// CoreDNS: serves 53, probes 8181, which it does not declare.
		{name: "probe on an undeclared admin port", services: []corev1.Service{service("web", map[string]string{"app": "web"}, intstr.FromInt32(53))},
			slices: []discoveryv1.EndpointSlice{slice("web", true, "web")}, probe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt32(8181)}}},
			after: time.Minute, status: chain.StatusOK, note: "sends to 53/TCP, which no container declares"},
		{name: "exec probe says nothing of ports", services: []corev1.Service{service("web", map[string]string{"app": "web"}, intstr.FromInt32(80))},
			slices: []discoveryv1.EndpointSlice{slice("web", true, "web")}, probe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"true"}}}},
			after: time.Minute, status: chain.StatusOK, note: "sends to 80/TCP, which no container declares"},
		{name: "endpoint not written yet", services: []corev1.Service{service("web", map[string]string{"app": "web"}, byName)},
			after: 5 * time.Second, status: chain.StatusProgressing, cause: decode.EndpointsMissing, summary: "1/1 ready pods are not ready endpoints (no EndpointSlice)"},
		{name: "endpoint never written", services: []corev1.Service{service("web", map[string]string{"app": "web"}, byName)},
			slices: []discoveryv1.EndpointSlice{slice("web", false, "web")}, after: time.Minute,
			status: chain.StatusBroken, cause: decode.EndpointsMissing, terminal: true, summary: "(1 of its EndpointSlices)"},
		{name: "load balancer without controller, within grace", services: []corev1.Service{lb}, slices: []discoveryv1.EndpointSlice{slice("web", true, "web")},
			after: 5 * time.Second, status: chain.StatusProgressing, cause: decode.LoadBalancerNoController},
		{name: "load balancer without controller", services: []corev1.Service{lb}, slices: []discoveryv1.EndpointSlice{slice("web", true, "web")},
			after: 2 * time.Minute, status: chain.StatusBroken, cause: decode.LoadBalancerNoController, terminal: true},
		{name: "load balancer ensuring", services: []corev1.Service{lb}, slices: []discoveryv1.EndpointSlice{slice("web", true, "web")},
			events: []chain.Event{lbEvent("Normal", "EnsuringLoadBalancer", "Ensuring load balancer")},
			after:  2 * time.Minute, status: chain.StatusProgressing, cause: decode.LoadBalancerPending},
		{name: "load balancer failed", services: []corev1.Service{lb}, slices: []discoveryv1.EndpointSlice{slice("web", true, "web")},
			// As quoted in https://github.com/chanzuckerberg/happy/issues/637
			// (AWS, subnets not tagged), the format of k8s.io/cloud-provider
			// v0.37.2 controllers/service/controller.go:342.
			events: []chain.Event{lbEvent("Normal", "EnsuringLoadBalancer", "Ensuring load balancer"),
				lbEvent("Warning", "SyncLoadBalancerFailed", "Error syncing load balancer: failed to ensure load balancer: could not find any suitable subnets for creating the ELB")},
			after: 2 * time.Minute, status: chain.StatusBroken, cause: decode.LoadBalancerFailed, terminal: true, summary: "could not find any suitable subnets"},
		{name: "load balancer of MetalLB failed", services: []corev1.Service{lb}, slices: []discoveryv1.EndpointSlice{slice("web", true, "web")},
			// metallb/metallb#2553: no service controller event, MetalLB's own.
			events: []chain.Event{lbEvent("Warning", "AllocationFailed", `Failed to allocate IP for "shop/web": no available IPs`)},
			after:  2 * time.Minute, status: chain.StatusBroken, cause: decode.LoadBalancerFailed, terminal: true, summary: "no available IPs"},
		{name: "load balancer of the AWS controller failed", services: []corev1.Service{lb}, slices: []discoveryv1.EndpointSlice{slice("web", true, "web")},
			// kubernetes-sigs/aws-load-balancer-controller#3021, as its
			// service reconciler's FailedBuildModel event words it.
			events: []chain.Event{lbEvent("Warning", "FailedBuildModel", "Failed build model due to unable to discover at least one subnet")},
			after:  2 * time.Minute, status: chain.StatusBroken, cause: decode.LoadBalancerFailed, terminal: true},
		{name: "load balancer failed, before 1.9", services: []corev1.Service{lb}, slices: []discoveryv1.EndpointSlice{slice("web", true, "web")},
			// kubernetes#20855 (1.2, GCE): the controller's reasons before
			// they were renamed Ensuring/SyncLoadBalancerFailed.
			events: []chain.Event{lbEvent("Normal", "CreatingLoadBalancer", "Creating load balancer"),
				lbEvent("Warning", "CreatingLoadBalancerFailed", "Error creating load balancer (will retry): Failed to create load balancer for service default/test: requested ip 8.8.8.8 is neither static nor assigned to LB acdb2b00aceb011e5857642010af0001: <nil>")},
			after: 2 * time.Minute, status: chain.StatusBroken, cause: decode.LoadBalancerFailed, terminal: true, summary: "requested ip 8.8.8.8"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pod := servedPod()
			pod.Spec.Containers[0].ReadinessProbe = tt.probe
			s := &chain.Snapshot{Kind: chain.KindPod, Namespace: "shop", Name: "web", Now: walkT0.Add(tt.after),
				Pods: []corev1.Pod{pod}, ServicesRead: !tt.unread}
			s.Services, s.EndpointSlices, s.OtherPods = tt.services, tt.slices, tt.others
			s.Assemble(nil, s.Pods, tt.events)
			l := Walk(s, Options{}).Link(chain.LinkServing)
			if l == nil {
				t.Fatal("no serving link")
			}
			if l.Status != tt.status {
				t.Errorf("status %s, want %s: %+v", l.Status, tt.status, l)
			}
			var got chain.CauseID
			text := l.Summary
			if len(l.Findings) > 0 {
				got, text = l.Findings[0].Cause, l.Findings[0].Summary
				if l.Findings[0].Terminal != tt.terminal {
					t.Errorf("terminal %v, want %v", l.Findings[0].Terminal, tt.terminal)
				}
				if strings.Contains(l.Findings[0].NextStep, "SERVICE") || strings.Contains(l.Findings[0].NextStep, "NAMESPACE") {
					t.Errorf("next step keeps a placeholder: %s", l.Findings[0].NextStep)
				}
			}
			if got != tt.cause {
				t.Errorf("cause %q, want %q: %+v", got, tt.cause, l)
			}
			if !strings.Contains(text, tt.summary) {
				t.Errorf("summary %q, want it to hold %q", text, tt.summary)
			}
			if tt.note != "" && !strings.Contains(strings.Join(l.Notes, "\n"), tt.note) {
				t.Errorf("notes %q, want one holding %q", l.Notes, tt.note)
			}
		})
	}
}

// TestWalkServingGaps: Services or EndpointSlices that could not be read
// leave the link unknown, with the check to run, never ok.
func TestWalkServingGaps(t *testing.T) {
	for _, res := range []chain.Resource{chain.ResourceServices, chain.ResourceEndpointSlices} {
		s := &chain.Snapshot{Kind: chain.KindPod, Namespace: "shop", Name: "web", Now: walkT0, Pods: []corev1.Pod{servedPod()}, ServicesRead: true,
			Services: []corev1.Service{service("web", map[string]string{"app": "web"}, intstr.FromString("http"))},
			Gaps:     []chain.Gap{{Resource: res, Verb: "list", Forbidden: true, Message: "forbidden", Check: "kubectl auth can-i list " + string(res) + " -n shop"}}}
		s.Assemble(nil, s.Pods, nil)
		l := Walk(s, Options{}).Link(chain.LinkServing)
		if l.Status != chain.StatusUnknown || len(l.Findings) != 1 || l.Findings[0].Cause != decode.EvidenceForbidden {
			t.Errorf("%s forbidden: %+v, want unknown with EvidenceForbidden", res, l)
		}
	}
}

// TestWalkHeadlessService: a StatefulSet's serviceName must name a
// headless Service; an empty one asks for none.
func TestWalkHeadlessService(t *testing.T) {
	headless := service("web-hl", map[string]string{"app": "web"}, intstr.FromInt32(8080))
	headless.Spec.ClusterIP = corev1.ClusterIPNone
	for _, tt := range []struct {
		name, serviceName string
		services          []corev1.Service
		want              chain.CauseID
		summary           string
	}{
		{"missing", "web-hl", nil, decode.HeadlessServiceMissing, "spec.serviceName web-hl names no Service"},
		{"not headless", "web", []corev1.Service{service("web", map[string]string{"app": "other"}, intstr.FromInt32(80))}, decode.HeadlessServiceMissing, "not headless (clusterIP 10.96.0.10)"},
		{"headless", "web-hl", []corev1.Service{headless}, "", ""},
		{"none asked", "", nil, "", ""},
	} {
		set := statefulSet(0, appsv1.ParallelPodManagement)
		set.Spec.ServiceName = tt.serviceName
		set.Spec.Template.Labels = map[string]string{"app": "web"}
		s := &chain.Snapshot{Kind: chain.KindStatefulSet, Namespace: "shop", Name: "web", StatefulSet: set, Now: walkT0.Add(time.Minute),
			ServicesRead: true, Services: tt.services}
		s.Assemble(nil, nil, nil)
		l := Walk(s, Options{}).Link(chain.LinkServing)
		var got chain.CauseID
		var summary string
		for _, f := range l.Findings {
			if f.Cause == decode.HeadlessServiceMissing {
				got, summary = f.Cause, f.Summary
			}
		}
		if got != tt.want || !strings.Contains(summary, tt.summary) {
			t.Errorf("%s: %q %q, want %q holding %q", tt.name, got, summary, tt.want, tt.summary)
		}
	}
}

// TestServingChains: every kind whose pods keep running ends at serving;
// Jobs and CronJobs do not.
func TestServingChains(t *testing.T) {
	for _, k := range []chain.Kind{chain.KindDeployment, chain.KindStatefulSet, chain.KindDaemonSet, chain.KindPod} {
		if ids := chain.ChainOf(k); ids[len(ids)-1] != chain.LinkServing {
			t.Errorf("%s: chain %v does not end at serving", k, ids)
		}
	}
	for _, k := range []chain.Kind{chain.KindJob, chain.KindCronJob} {
		if chain.Serves(k) {
			t.Errorf("%s serves", k)
		}
	}
}

// TestPolicyNotes: each NetworkPolicy that selects the pods is one note
// saying what it lets through; a deny-all is named as one.
func TestPolicyNotes(t *testing.T) {
	tcp := corev1.ProtocolTCP
	port := intstr.FromInt32(8080)
	for _, tt := range []struct {
		spec networkingv1.NetworkPolicySpec
		want string
	}{
		{networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}},
			"NetworkPolicy p selects the pods (a deny-all): denies all ingress"},
		{networkingv1.NetworkPolicySpec{Ingress: []networkingv1.NetworkPolicyIngressRule{{
			From:  []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "front"}}}},
			Ports: []networkingv1.NetworkPolicyPort{{Protocol: &tcp, Port: &port}}}}},
			"NetworkPolicy p selects the pods: ingress only from pods app=front of this namespace to 8080/TCP"},
		{networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress},
			Ingress: []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{{NamespaceSelector: &metav1.LabelSelector{}}}}}},
			"NetworkPolicy p selects the pods (a deny-all): ingress only from in namespaces any, any port; denies all egress"},
		{networkingv1.NetworkPolicySpec{Ingress: []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "10.0.0.0/8", Except: []string{"10.1.0.0/16"}}}}}}},
			"NetworkPolicy p selects the pods: ingress only from addresses 10.0.0.0/8 except 10.1.0.0/16, any port"},
	} {
		if got := policyNote(&networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: tt.spec}); got != tt.want {
			t.Errorf("got  %q\nwant %q", got, tt.want)
		}
	}
	// On the serving link, only for pods a Service selects.
	s := &chain.Snapshot{Kind: chain.KindPod, Namespace: "shop", Name: "web", Now: walkT0, ServicesRead: true,
		Pods:            []corev1.Pod{servedPod()},
		Services:        []corev1.Service{service("web", map[string]string{"app": "web"}, intstr.FromString("http"))},
		EndpointSlices:  []discoveryv1.EndpointSlice{slice("web", true, "web")},
		NetworkPolicies: []networkingv1.NetworkPolicy{{ObjectMeta: metav1.ObjectMeta{Name: "deny"}, Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}}}}}
	r := Walk(s, Options{})
	if l := r.Link(chain.LinkServing); l == nil || !strings.Contains(strings.Join(l.Notes, "\n"), "NetworkPolicy deny selects the pods (a deny-all)") || r.Verdict.Health != chain.Healthy {
		t.Errorf("serving link %+v, verdict %s", l, r.Verdict.Health)
	}
}
