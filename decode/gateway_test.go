package decode

import (
	"testing"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// TestGatewayWords decodes Gateway API controllers' real wordings (each
// from testdata/real/messages/gateway.yaml, with its source there), with
// and without the condition's reason.
func TestGatewayWords(t *testing.T) {
	for _, tt := range []struct {
		reason, message string
		want            chain.CauseID
	}{
		// nginx/nginx-gateway-fabric#135: describe of a class no controller reconciles
		{"NotReconciled", "Status:\n  Conditions:\n    Last Transition Time:  1970-01-01T00:00:00Z\n    Message:               Waiting for controller\n    Reason:                NotReconciled\n    Status:                Unknown\n    Type:                  Scheduled", GatewayClassNoController},
		// aws/aws-application-networking-k8s#539
		{"", `{"level":"info","ts":"2023-11-22T12:50:01.228Z","logger":"controller.gateway","caller":"controllers/gateway_controller.go:153","msg":"GatewayClass is not found","name":"app-services-gw","gwclass":"default/amazon-vpc-lattice"}`, GatewayClassNotFound},
		// istio/istio#33478: "any" as well as "all" requested addresses
		{"", `failed to assign to any requested addresses: no instances found for hostname "istio-ingressgateway.ingress.svc.cluster.local"`, GatewayNotProgrammed},
		// istio/istio#43103
		{"", `Failed to assign to any requested addresses: hostname "httpbin-gateway.default.svc.cluster.local" not found`, GatewayNotProgrammed},
		// kubernetes-sigs/gateway-api#799: Istio refuses the address itself
		{"", "failed to assign to any requested addresses: Only NamedAddress is supported, ignoring [192.168.198.194]", GatewayNotAccepted},
		// kgateway-dev/kgateway#11768
		{"InvalidCertificateRef", "Secret default/missing-cert not found.", GatewayListenerCertificateInvalid},
		// envoyproxy/gateway#5730
		{"InvalidCertificateRef", "Secret app/ccc-secret must contain valid tls.crt and tls.key, unable to validate certificate in tls.crt: certificate is expired.", GatewayListenerCertificateInvalid},
		// kgateway-dev/kgateway#11888
		{"InvalidCertificateRef", "invalid TLS secret default/example-tls-cert: tls: failed to find any PEM data in key input", GatewayListenerCertificateInvalid},
		// aws/aws-application-networking-k8s#493 (quotes as the issue shows them)
		{"", "failed at BuildModel: {“logger”:“controller.route”,“msg”:“buildAndDeployModel, Failed build model for salmo-5-ok4zh8ytnj due to failed to build rules due to buildTargetGroupSpec err error finding backend service e2e-test/bugmu-2-tfbytur05o due to Service \\“bugmu-2-tfbytur05o\\” not found”}", RouteBackendNotFound},
	} {
		for _, reason := range []string{tt.reason, ""} {
			if got := Explain(reason, tt.message); len(got) == 0 || got[0].Cause != tt.want {
				t.Errorf("Explain(%q, %q) = %+v, want %s", reason, tt.message, got, tt.want)
			}
		}
	}
	// A pod's missing secret is still the kubelet's, not a listener's.
	if got := Explain("FailedMount", `MountVolume.SetUp failed for volume "tls" : secret "web-tls" not found`); len(got) > 0 && got[0].Cause == GatewayListenerCertificateInvalid {
		t.Errorf("a pod's missing secret decodes as %s", got[0].Cause)
	}
}
