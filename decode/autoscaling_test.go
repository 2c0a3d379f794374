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
	} {
		if d, ok := HPAWords("", msg); !ok || d.Cause != want {
			t.Errorf("HPAWords(%q) = %s, want %s", msg, d.Cause, want)
		}
	}
}
