package diagnose

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// quotaBroken is Deployment shop/web (pods app=web) whose ReplicaSet the
// quota refuses: its chain is broken at pods.
func quotaBroken() *chain.Snapshot {
	msg := `Error creating: pods "web-5d8f9c7b6-k2m9x" is forbidden: exceeded quota: compute, requested: requests.cpu=250m, used: requests.cpu=3900m, limited: requests.cpu=4`
	s := walkSnapshot(failedCreateEvent(msg, 0, 2*time.Minute, 5))
	return s
}

// ingress is Ingress shop/web of class nginx sending / to service:port.
func ingress(class, svc string, port networkingv1.ServiceBackendPort) *networkingv1.Ingress {
	ing := &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "ing-uid", CreationTimestamp: metav1.NewTime(walkT0)},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: "shop.example.com",
			IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{
				Path: "/", PathType: ptr.To(networkingv1.PathTypePrefix),
				Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: svc, Port: port}}}}}}}}},
	}
	if class != "" {
		ing.Spec.IngressClassName = ptr.To(class)
	}
	return ing
}

func ingressClass(name, controller string, isDefault bool) networkingv1.IngressClass {
	ic := networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: networkingv1.IngressClassSpec{Controller: controller}}
	if isDefault {
		ic.Annotations = map[string]string{chain.DefaultIngressClassAnnotation: "true"}
	}
	return ic
}

// TestWalkTraffic walks svc/web and ing/web through each link's failure,
// and the healthy chain.
func TestWalkTraffic(t *testing.T) {
	byName := intstr.FromString("http")
	web := service("web", map[string]string{"app": "web"}, byName)
	pod := servedPod() // ready, app=web,tier=front, port http
	ready := []discoveryv1.EndpointSlice{slice("web", true, pod.Name)}
	tmplOf := func(s *chain.Snapshot) chain.Template {
		tp, ok := chain.TemplateOf(chain.KindDeployment, s.Deployment)
		if !ok {
			t.Fatal("no template")
		}
		return tp
	}
	addressed := func(ing *networkingv1.Ingress) *networkingv1.Ingress {
		ing.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "192.0.2.10"}}
		return ing
	}
	nginx := []networkingv1.IngressClass{ingressClass("nginx", "k8s.io/ingress-nginx", false)}
	port80 := networkingv1.ServiceBackendPort{Number: 80}
	for _, tt := range []struct {
		name     string
		svc      *corev1.Service
		ing      *networkingv1.Ingress
		classes  []networkingv1.IngressClass
		services []corev1.Service
		pods     []corev1.Pod
		slices   []discoveryv1.EndpointSlice
		behind   []*chain.Snapshot
		events   []chain.Event
		after    time.Duration
		health   chain.Health
		link     chain.LinkID
		cause    chain.CauseID
		summary  string
		note     string
	}{
		{name: "service healthy", svc: &web, pods: []corev1.Pod{pod}, slices: ready, health: chain.Healthy, summary: "web: 1 ready endpoint"},
		{name: "service not found", health: chain.Broken, link: chain.LinkStored, cause: decode.TrafficObjectNotFound},
		{name: "service selects nothing", svc: ptr.To(service("web", map[string]string{"app": "nope"}, byName)), pods: []corev1.Pod{pod},
			after: time.Minute, health: chain.Broken, link: chain.LinkSelector, cause: decode.ServiceSelectsNoPods, summary: "nothing in namespace shop carries app=nope"},
		{name: "service through a broken deployment", svc: ptr.To(service("web", map[string]string{"app": "web"}, intstr.FromInt32(8080))), behind: []*chain.Snapshot{quotaBroken()},
			after: 3 * time.Minute, health: chain.Broken, link: chain.LinkWorkloads, cause: decode.QuotaExceeded,
			summary: "Service web has no ready endpoint: deployment/web is broken at pods"},
		{name: "bare pods not ready", svc: &web, pods: func() []corev1.Pod {
			p := servedPod()
			p.Status.Conditions[0].Status = corev1.ConditionFalse
			return []corev1.Pod{p}
		}(), health: chain.Progressing, link: chain.LinkWorkloads, cause: decode.NoReadyEndpoint},
		{name: "endpoints missing", svc: &web, pods: []corev1.Pod{pod}, after: time.Minute,
			health: chain.Broken, link: chain.LinkEndpoints, cause: decode.EndpointsMissing},
		{name: "ingress healthy", ing: addressed(ingress("nginx", "web", port80)), classes: nginx, services: []corev1.Service{web},
			pods: []corev1.Pod{pod}, slices: ready, health: chain.Healthy},
		{name: "ingress class missing", ing: ingress("traefik", "web", port80), classes: nginx, services: []corev1.Service{web},
			pods: []corev1.Pod{pod}, slices: ready, after: time.Minute, health: chain.Broken, link: chain.LinkClass, cause: decode.IngressClassNotFound,
			summary: "spec.ingressClassName traefik names no IngressClass (the cluster has nginx)"},
		{name: "ingress default class", ing: addressed(ingress("", "web", port80)), classes: []networkingv1.IngressClass{ingressClass("nginx", "k8s.io/ingress-nginx", true)},
			services: []corev1.Service{web}, pods: []corev1.Pod{pod}, slices: ready, health: chain.Healthy},
		// rancher/rancher#16052 (kubernetes#69563): an Ingress of 2018, no
		// class, addressed by the controller that took it.
		{name: "ingress without class, addressed", ing: addressed(ingress("", "web", port80)), classes: nginx,
			services: []corev1.Service{web}, pods: []corev1.Pod{pod}, slices: ready, after: time.Minute, health: chain.Healthy,
			note: "serves Ingresses without a class"},
		{name: "ingress without class, no address", ing: ingress("", "web", port80), classes: nginx,
			services: []corev1.Service{web}, pods: []corev1.Pod{pod}, slices: ready, after: time.Minute,
			health: chain.Broken, link: chain.LinkClass, cause: decode.IngressClassNotFound},
		{name: "ingress class not read, addressed", ing: addressed(ingress("nginx", "web", port80)),
			services: []corev1.Service{web}, pods: []corev1.Pod{pod}, slices: ready, after: time.Minute, health: chain.Healthy,
			note: "no IngressClass was read"},
		{name: "ingress class not read, no address", ing: ingress("nginx", "web", port80),
			services: []corev1.Service{web}, pods: []corev1.Pod{pod}, slices: ready, after: time.Minute,
			health: chain.Broken, link: chain.LinkClass, cause: decode.IngressClassNotFound},
		{name: "ingress no controller, within grace", ing: ingress("nginx", "web", port80), classes: nginx, services: []corev1.Service{web},
			pods: []corev1.Pod{pod}, slices: ready, health: chain.Progressing, link: chain.LinkClass, cause: decode.IngressClassNoController},
		{name: "ingress no controller, past grace", ing: ingress("nginx", "web", port80), classes: nginx, services: []corev1.Service{web},
			pods: []corev1.Pod{pod}, slices: ready, after: time.Minute, health: chain.Broken, link: chain.LinkClass, cause: decode.IngressClassNoController},
		{name: "ingress controller acted, no address yet", ing: ingress("nginx", "web", port80), classes: nginx, services: []corev1.Service{web},
			pods: []corev1.Pod{pod}, slices: ready, after: time.Minute, health: chain.Healthy, note: "a controller has acted",
			events: []chain.Event{{Type: "Normal", Reason: "Sync", Message: "Scheduled for sync", Object: chain.ObjectRef{Kind: "Ingress", Name: "web", UID: "ing-uid"}, First: walkT0, Last: walkT0, Count: 1}}},
		{name: "ingress load balancer failed", ing: ingress("alb", "web", port80), classes: []networkingv1.IngressClass{ingressClass("alb", "ingress.k8s.aws/alb", false)},
			services: []corev1.Service{web}, pods: []corev1.Pod{pod}, slices: ready, after: time.Minute,
			// kubernetes-sigs/aws-load-balancer-controller#3051 (clusterName left empty).
			events: []chain.Event{{Type: "Warning", Reason: "FailedBuildModel", Message: "Failed build model due to couldn't auto-discover subnets: unable to discover at least one subnet.",
				Object: chain.ObjectRef{Kind: "Ingress", Name: "web", UID: "ing-uid"}, First: walkT0, Last: walkT0, Count: 3}},
			health: chain.Broken, link: chain.LinkClass, cause: decode.IngressLoadBalancerFailed, summary: "could not build its load balancer: Failed build model due to couldn't auto-discover subnets"},
		{name: "ingress backend missing", ing: addressed(ingress("nginx", "api", port80)), classes: nginx, services: []corev1.Service{web},
			after: time.Minute, health: chain.Broken, link: chain.LinkBackends, cause: decode.IngressBackendNotFound, summary: "sends to Service api, which does not exist"},
		{name: "ingress backend port missing", ing: addressed(ingress("nginx", "web", networkingv1.ServiceBackendPort{Name: "https"})), classes: nginx,
			services: []corev1.Service{web}, pods: []corev1.Pod{pod}, slices: ready, after: time.Minute,
			health: chain.Broken, link: chain.LinkBackends, cause: decode.IngressBackendPortNotFound, summary: "port https of Service web"},
		{name: "ingress TLS secret reported missing", ing: func() *networkingv1.Ingress {
			ing := addressed(ingress("nginx", "web", port80))
			ing.Spec.TLS = []networkingv1.IngressTLS{{SecretName: "web-tls"}}
			return ing
		}(), classes: nginx, services: []corev1.Service{web}, pods: []corev1.Pod{pod}, slices: ready, after: time.Minute,
			// ingress-nginx's store: "Error getting SSL certificate %q: %v" (see the corpus).
			events: []chain.Event{{Type: "Warning", Reason: "Sync", Message: `Error getting SSL certificate "shop/web-tls": local SSL certificate shop/web-tls was not found`,
				Object: chain.ObjectRef{Kind: "Ingress", Name: "web", UID: "ing-uid"}, First: walkT0, Last: walkT0, Count: 1}},
			health: chain.Broken, link: chain.LinkBackends, cause: decode.IngressTLSSecretMissing},
		{name: "ingress TLS entry without a secret, reported missing", ing: func() *networkingv1.Ingress {
			ing := ingress("", "web", port80)
			ing.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{"example.com"}}}
			return ing
		}(), services: []corev1.Service{web}, pods: []corev1.Pod{pod}, slices: ready, after: time.Minute,
			// GKE's controller, no class, no address (ingress-gce#1334).
			events: []chain.Event{{Type: "Warning", Reason: "Sync", Count: 221, Message: `Error syncing to GCP: error running load balancer syncing routine: error getting secrets for Ingress: secret "" does not exist`,
				Object: chain.ObjectRef{Kind: "Ingress", Name: "web", UID: "ing-uid"}, First: walkT0, Last: walkT0.Add(time.Minute)}},
			health: chain.Broken, link: chain.LinkBackends, cause: decode.IngressTLSSecretMissing},
		{name: "ingress TLS entry without a secret, no event", ing: func() *networkingv1.Ingress {
			ing := addressed(ingress("nginx", "web", port80))
			ing.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{"example.com"}}}
			return ing
		}(), classes: nginx, services: []corev1.Service{web}, pods: []corev1.Pod{pod}, slices: ready, health: chain.Healthy},
		{name: "ingress TLS secret not checked", ing: func() *networkingv1.Ingress {
			ing := addressed(ingress("nginx", "web", port80))
			ing.Spec.TLS = []networkingv1.IngressTLS{{SecretName: "web-tls"}}
			return ing
		}(), classes: nginx, services: []corev1.Service{web}, pods: []corev1.Pod{pod}, slices: ready, health: chain.Healthy, note: "TLS secret web-tls not checked"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &chain.Snapshot{Namespace: "shop", Name: "web", Now: walkT0.Add(tt.after), Service: tt.svc, Ingress: tt.ing,
				IngressClasses: tt.classes, Pods: tt.pods, EndpointSlices: tt.slices, Events: tt.events, ServicesRead: true, Behind: tt.behind}
			s.Kind = chain.KindService
			s.Services = tt.services
			if tt.svc != nil {
				s.Services = []corev1.Service{*tt.svc}
			}
			if tt.ing != nil {
				s.Kind = chain.KindIngress
			}
			for _, b := range tt.behind {
				s.Templates = append(s.Templates, tmplOf(b))
			}
			checkTrafficWalk(t, s, tt.health, tt.link, tt.cause, tt.summary, tt.note)
		})
	}
}

// checkTrafficWalk walks s and checks its verdict, that every link of its
// kind's chain is reported, and that the summary and notes say what they
// should ("" for no check).
func checkTrafficWalk(t *testing.T, s *chain.Snapshot, health chain.Health, link chain.LinkID, cause chain.CauseID, summary, note string) {
	t.Helper()
	r := Walk(s, Options{})
	v := r.Verdict
	if v.Health != health || v.Link != link || v.Cause != cause {
		t.Fatalf("verdict %s at %q cause %q (%s), want %s at %q cause %q", v.Health, v.Link, v.Cause, v.Summary, health, link, cause)
	}
	if len(r.Links) != len(chain.ChainOf(s.Kind)) {
		t.Errorf("%d links, want the chain's %d", len(r.Links), len(chain.ChainOf(s.Kind)))
	}
	if summary != "" && !strings.Contains(v.Summary, summary) {
		t.Errorf("summary %q, want it to contain %q", v.Summary, summary)
	}
	if note != "" {
		var all []string
		for _, l := range r.Links {
			all = append(all, l.Notes...)
		}
		if !strings.Contains(strings.Join(all, "\n"), note) {
			t.Errorf("notes %q, want one containing %q", all, note)
		}
	}
}
