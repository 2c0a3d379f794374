package decode

import (
	"testing"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// TestServing decodes real messages of the serving link (each from
// testdata/real/messages/serving.yaml, with its source there).
func TestServing(t *testing.T) {
	for _, tt := range []struct {
		reason, message string
		want            chain.CauseID
		summary         string
	}{
		// kubernetes/kubernetes#108185 (EKS)
		{"", "Error syncing load balancer: failed to ensure load balancer: could not find any suitable subnets for creating the ELB", LoadBalancerFailed,
			"the load balancer failed: could not find any suitable subnets for creating the ELB"},
		// digitalocean/digitalocean-cloud-controller-manager#62 (before 1.10)
		{"CreatingLoadBalancerFailed", "Error creating load balancer (will retry): Failed to ensure load balancer for service default/tesla-proxy-loadbalancer: GET https://api.digitalocean.com/v2/load_balancers: 401 Unable to authenticate you.", LoadBalancerFailed, ""},
		// hetznercloud/hcloud-cloud-controller-manager#69 (MetalLB)
		{"AllocationFailed", `Failed to allocate IP for "default/my-service": no available IPs`, LoadBalancerFailed, ""},
		// kubernetes/cloud-provider v0.37.2 controllers/service/controller.go
		{"EnsuringLoadBalancer", "Ensuring load balancer", LoadBalancerPending, ""},
		// kubernetes-sigs/kind#411
		{"", "supervisor-service   LoadBalancer   10.111.158.50   <pending>     9090:31054/TCP   16m", LoadBalancerNoController, ""},
		// kubernetes/ingress-nginx#6135
		{"", `W0408 16:38:40.185591       7 controller.go:909] Service "ci/jenkinsci" does not have any active Endpoint.`, EndpointsMissing, ""},
		// traefik/traefik#10119
		{"", `time="2023-09-08T13:26:56Z" level=error msg="Skipping service: no endpoints found" providerName=kubernetes ingress=grafana namespace=monitoring serviceName=grafana`, EndpointsMissing, ""},
		// k8sgpt-ai/k8sgpt v0.4.36 pkg/analyzer/service.go
		{"", "Service has no endpoints, expected label app=web", ServiceSelectorMismatch, ""},
		// kubernetes/kubernetes#109627
		{"", "NAME                                       ADDRESSTYPE   PORTS     ENDPOINTS                 AGE\nendpointslice.discovery.k8s.io/svc-hqt89   IPv4          <unset>   10.244.0.73,10.244.0.72   20s", ServiceTargetPortNotFound, ""},
		// zegl/kube-score v1.20.0 score/apps/apps.go
		{"", "StatefulSet does not have a valid serviceName", HeadlessServiceMissing, ""},
		// kubernetes/kubernetes#68356
		{"", "# dig web-0.nginx.test.svc.cluster.local\n<nxdomain>", HeadlessServiceMissing, ""},
		// Ingress controllers (testdata/real/messages/ingress.yaml).
		// kubernetes/ingress-nginx#5973
		{"", `W0805 05:22:35.968846       7 controller.go:829] Error obtaining Endpoints for Service "ingress-nginx/webapp": no object matching key "ingress-nginx/webapp" in local store`, IngressBackendNotFound, ""},
		// kubernetes/kubectl v0.35.0 pkg/describe/describe_test.go
		{"", `/foo   default-backend:80 (<error: services "default-backend" not found>)`, IngressBackendNotFound, ""},
		// kubernetes-sigs/aws-load-balancer-controller (FailedBuildModel)
		{"FailedBuildModel", `Failed build model due to ingress: bugbash/echo: Service "echo-sew" not found`, IngressBackendNotFound, ""},
		// Azure/application-gateway-kubernetes-ingress (PortResolutionError)
		{"PortResolutionError", `Code="ErrorServiceResolvedToInvalidPort" Message="service keycloak/keycloak and service port http was resolved to an invalid service-backend port 65536, defaulting to port 80"`, IngressBackendPortNotFound, ""},
		// ingress-nginx controller.go (Error getting SSL certificate)
		{"", `W1128 17:33:46.879345       6 controller.go:1166] Error getting SSL certificate "ingress-basic/aks-ingress-tls": local SSL certificate ingress-basic/aks-ingress-tls was not found. Using default certificate`, IngressTLSSecretMissing, ""},
		// traefik (Error configuring TLS)
		{"", `time="2018-11-24T04:57:18Z" level=error msg="Error configuring TLS for ingress kube-system/traefik-web-ui: secret kube-system/traefik-ui-tls-cert does not exist"`, IngressTLSSecretMissing, ""},
		// ingress-nginx store.go
		{"", `"Ignoring ingress because of error while validating ingress class" ingress="localhost-gcp-httpd/web" error="no object matching key \"convox\" in local store"`, IngressClassNotFound, ""},
		{"", "ingress class annotation is not equal to the expected by Ingress Controller", IngressClassNoController, ""},
		// kubernetes/ingress-nginx#1125: kubectl get ingress, no ADDRESS
		{"", "NAME                  HOSTS     ADDRESS   PORTS     AGE\nsparkdingtest-webui   *                          80        7m", IngressClassNoController, ""},
		// Azure/AKS#2332: the service controller's UpdateLoadBalancerFailed
		{"UpdateLoadBalancerFailed", "Error updating load balancer with new hosts map[aks-nodepool7-89578836-vmss000000:{}]: instance not found", LoadBalancerFailed, ""},
		// kubernetes/kubernetes#113562: the GCE provider's own log
		{"", "E1101 17:03:45.329024       9 gce_loadbalancer.go:174] Failed to EnsureLoadBalancer(bootstrap-e2e, esipp-7190, external-local-update, a966e0e50f726482a91a69dca3b8e1a2, us-west1), err: failed to create forwarding rule for load balancer (a966e0e50f726482a91a69dca3b8e1a2(esipp-7190/external-local-update)): googleapi: Error 400: Invalid value for field 'resource.IPAddress': '34.168.75.161'. Invalid IP address specified., invalid", LoadBalancerFailed, ""},
		// canonical/k8s-operator#457: MetalLB's controller log
		{"", `{"caller":"service.go:143","error":"no available IPs","level":"error","msg":"IP allocation failed","op":"allocateIPs","ts":"2025-04-28T14:11:38Z"}`, LoadBalancerFailed, ""},
		// kubernetes-sigs/aws-load-balancer-controller#3399: its service
		// reconciler (From: service) is the Service's load balancer
		{"FailedDeployModel", "service  (combined from similar events): Failed deploy model due to AccessDenied:  is not authorized to perform: elasticloadbalancing:AddTags", LoadBalancerFailed, ""},
		// kubernetes-sigs/aws-load-balancer-controller#3021
		{"", `{"level":"error","ts":1675413608.3014076,"logger":"controller.service","msg":"Reconciler error","name":"sample","namespace":"sample","error":"unable to discover at least one subnet"}`, LoadBalancerFailed, ""},
		// kubicorn/kubicorn#477: kube-controller-manager without a cloud provider
		{"", "E1106 22:45:48.491273       1 core.go:67] Failed to start service controller: WARNING: no cloud provider provided, services of type LoadBalancer will fail.", LoadBalancerNoController, ""},
		// The same AWS controller about an Ingress: its ALB failed.
		// kubernetes-sigs/aws-load-balancer-controller#3051
		{"FailedBuildModel", "Failed build model due to couldn't auto-discover subnets: unable to discover at least one subnet.", IngressLoadBalancerFailed, ""},
		// kubernetes-sigs/aws-load-balancer-controller#2552
		{"", `{"level":"error","ts":1647361971.0844,"logger":"controller-runtime.manager.controller.ingress","msg":"Reconciler error","name":"test-app","namespace":"test-app","error":"ValidationError: Certificate ARN 'arn:aws:acm:eu-west-1:********:certificate/ee2c420e-d744-465d-8789-90ad5ec1115d' is not valid"}`, IngressLoadBalancerFailed, ""},
		// kubernetes-sigs/aws-load-balancer-controller#1656: a ClusterIP
		// backend with instance targets gives a target group port 0
		{"", `{"level":"error","ts":1605392191.2028766,"logger":"controller","msg":"Reconciler error","controller":"ingress","name":"podinfo","namespace":"default","error":"InvalidParameter: 1 validation error(s) found.\n- minimum field value of 1, CreateTargetGroupInput.Port.\n"}`, IngressLoadBalancerFailed, ""},
		// kubernetes/ingress-gce#1478
		{"Sync", "Error syncing to GCP: error running load balancer syncing routine: loadbalancer ax0jpqse-api-zil17xhm does not exist: invalid ingress frontend configuration, please check your usage of the 'kubernetes.io/ingress.allow-http' annotation.", IngressLoadBalancerFailed, ""},
		// kubernetes/k8s.io#1915: GCE's controller cannot use a ClusterIP backend
		{"Translate", `Translation failed: invalid ingress spec: service "sippy/sippy" is type "ClusterIP", expected "NodePort" or "LoadBalancer"`, IngressLoadBalancerFailed, ""},
		// kubernetes/ingress-gce#1334: a missing TLS secret says more than the sync
		{"Sync", `Error syncing to GCP: error running load balancer syncing routine: error getting secrets for Ingress: secret "" does not exist`, IngressTLSSecretMissing, ""},
	} {
		d, ok := Serving(tt.reason, tt.message)
		if !ok || d.Cause != tt.want || (tt.summary != "" && d.Summary != tt.summary) {
			t.Errorf("Serving(%q, %q) = %v %q, want %s %q", tt.reason, tt.message, ok, d.Summary, tt.want, tt.summary)
		}
		if got := Explain("", tt.message); len(got) == 0 || got[0].Cause != tt.want {
			t.Errorf("Explain(%q) = %+v, want %s", tt.message, got, tt.want)
		}
	}
	// Other families' words are not the serving link's.
	for _, msg := range []string{`Back-off pulling image "web:v2"`, "0/3 nodes are available: 3 Insufficient cpu.", `secret "web-tls" not found`} {
		if d, ok := Serving("", msg); ok {
			t.Errorf("Serving(%q) claims it as %s", msg, d.Cause)
		}
	}
}

func FuzzServing(f *testing.F) {
	f.Add("SyncLoadBalancerFailed", "Error syncing load balancer: failed to ensure load balancer: x")
	f.Add("", "web   LoadBalancer   10.0.0.1   <pending>   80:30000/TCP   1m")
	f.Add("", "Endpoints:  <none>")
	f.Add("", `Error getting SSL certificate "a/b": local SSL certificate a/b was not found. Using default certificate`)
	f.Add("", "NAME   HOSTS   ADDRESS   PORTS   AGE\nweb   *      80   1m")
	f.Fuzz(func(t *testing.T, reason, message string) {
		if d, ok := Serving(reason, message); ok {
			c, found := Lookup(d.Cause)
			if !found || c.Family != "serving" && c.Family != "traffic" {
				t.Errorf("Serving(%q, %q) names %s, not a serving or traffic cause", reason, message, d.Cause)
			}
		}
	})
}
