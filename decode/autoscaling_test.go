package decode

import (
	"testing"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

func TestHPAWords(t *testing.T) {
	for msg, want := range map[string]chain.CauseID{
		"the HPA was unable to compute the replica count: missing request for cpu":                                                                                                            HPAMissingRequest,
		"the HPA was unable to compute the replica count: unable to get metrics for resource cpu: no metrics returned from resource metrics API":                                              HPAMetricsUnavailable,
		"failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from API: the server could not find the requested resource (get pods.metrics.k8s.io)": HPAMetricsUnavailable,
		// The controller's wrapper (kubernetes v1.37.2
		// pkg/controller/podautoscaler/horizontal.go#L413), cut short as
		// metrics-server#1528 quotes it, and around k3s#8287's missing
		// request (its own cause wins).
		"invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: failed to get cpu utilization:":                                                HPAMetricsUnavailable,
		"invalid metrics (1 invalid out of 2), first error is: failed to get cpu utilization: missing request for cpu in container owncloud of Pod my-cloud-owncloud-5cdb678c48-8bgbm": HPAMissingRequest,
		// aws-app-mesh-inject#12: the wording before 1.20 names the
		// container too.
		"the HPA was unable to compute the replica count: missing request for cpu on container envoy in pod test/frontend-primary-7c45b75c87-t58bg": HPAMissingRequest,
		// splunk-connect-for-syslog#1289 and knative/serving#59: AbleToScale
		// False, whatever reason came with it.
		`the HPA controller was unable to get the target's current scale: deployments/scale.apps "sc4s-splunk-connect-for-syslog" not found`: HPACannotScale,
		"the HPA controller was unable to get the target's current scale: no matches for /, Kind=Deployment":                                 HPACannotScale,
		// stackset-controller#232: an Object metric whose describedObject
		// has no version.
		`the HPA was unable to compute the replica count: unable to get metric requests-per-second,x: Ingress on default x/unable to fetch metrics from custom metrics API: unable to map kind Ingress.networking to resource: no matches for kind "Ingress" in group "networking"`: HPACannotScale,
		// helm/charts#11688: an Object metric the adapter does not serve.
		"unable to get metric http_requests_total: Service on default sample-metrics-app/unable to fetch metrics from custom metrics API: the server could not find the metric http_requests_total for services": HPAMetricsUnavailable,
		// keda#6895 and keda/http-add-on#1421: a ScaledObject's Ready.
		"Triggers defined in ScaledObject are not working correctly": HPAMetricsUnavailable,
		// keda#5118: the operator's log of a Prometheus query that times out.
		`ERROR    scalers_cache    error getting scale decision    {"scaledobject.Name": "api", "scaledObject.Namespace": "mcss", "scaleTarget.Name": "api", "error": "Get \"http://prometheus.monitoring.svc.cluster.local:9090/api/v1/query?query=sum%28rate%28http_requests_received_total%7Bapp%3D%22api%22%7D%5B2m%5D%29%29&time=2023-10-23T13:25:52Z\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)"}`: HPAMetricsUnavailable,
		"ScaledObject doesn't have correct scaleTargetRef specification: ScaledObject.spec.scaleTargetRef.name is missing": HPACannotScale,
		// autoscaler#5296 and #3539: the VPA recommender's conditions.
		"Cannot read targetRef. Reason: Deployment kube-system/my-app does not exist":                              VPATargetInvalid,
		"No pods match this VPA object":                                                                            VPATargetInvalid,
		"The targetRef controller has a parent but it should point to a topmost well-known or scalable controller": VPATargetInvalid,
	} {
		if d, ok := HPAWords("", msg); !ok || d.Cause != want {
			t.Errorf("HPAWords(%q) = %s, want %s", msg, d.Cause, want)
		}
	}
}

// TestHPAWordsDetails: the container of a missing request, in both
// wordings (linkerd2#1480; k3s#8287).
func TestHPAWordsDetails(t *testing.T) {
	for msg, container := range map[string]string{
		"missing request for cpu on container linkerd-proxy in pod ms/gql-7d485bd799-dnf66":                                      "linkerd-proxy",
		"failed to get cpu utilization: missing request for cpu in container owncloud of Pod my-cloud-owncloud-5cdb678c48-8bgbm": "owncloud",
	} {
		d, _ := HPAWords("FailedGetResourceMetric", msg)
		var got string
		for _, det := range d.Details {
			if det.Key == "container" {
				got = det.Value
			}
		}
		if d.Cause != HPAMissingRequest || got != container {
			t.Errorf("HPAWords(%q) = %s, container %q; want %s, %q", msg, d.Cause, got, HPAMissingRequest, container)
		}
	}
}
