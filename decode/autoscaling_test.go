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
	} {
		if d, ok := HPAWords("", msg); !ok || d.Cause != want {
			t.Errorf("HPAWords(%q) = %s, want %s", msg, d.Cause, want)
		}
	}
}
