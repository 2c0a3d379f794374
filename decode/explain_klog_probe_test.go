package decode

import "testing"

// TestKlogProbe: a probe's failure as the kubelet's journal says it
// (VijayRod/demo container-storage/logs/k8s-pod.md, an AKS node running
// the docs' liveness-exec pod in 2025).
func TestKlogProbe(t *testing.T) {
	for _, tc := range []struct {
		line string
		want string
	}{
		{`May 16 18:34:49 aks-nodepool1-29985679-vmss00000A kubelet[4052]: I0516 18:34:49.885576    4052 kuberuntime_manager.go:1027] "Message for Container of pod" containerName="liveness" containerStatusID={"Type":"containerd","ID":"05657a9c673d612aedd955a65136ccca36b82ba987831de7844cdc0238f1d707"} pod="default/liveness-exec" containerMessage="Container liveness failed liveness probe, will be restarted"`, "LivenessProbeFailed"},
		{`May 16 18:34:49 aks-nodepool1-29985679-vmss00000A kubelet[4052]: I0516 18:34:49.885197    4052 prober.go:107] "Probe failed" probeType="Liveness" pod="default/liveness-exec" podUID="93e17ecc-ab55-461a-b526-29248d2554ad" containerName="liveness" probeResult="failure" output=<`, "LivenessProbeFailed"},
		{`May 16 18:34:49 aks-nodepool1-29985679-vmss00000A kubelet[4052]: I0516 18:34:49.885264    4052 kubelet.go:2528] "SyncLoop (probe)" probe="liveness" status="unhealthy" pod="default/liveness-exec"`, "LivenessProbeFailed"},
		// Not a failure: the sync loop also logs a probe turning ready.
		{`I0516 18:35:31.000000    4052 kubelet.go:2528] "SyncLoop (probe)" probe="readiness" status="ready" pod="default/web"`, ""},
	} {
		got := Explain("", tc.line)
		cause := ""
		if len(got) > 0 {
			cause = string(got[0].Cause)
		}
		if cause != tc.want {
			t.Errorf("Explain(%q) = %q, want %q", tc.line, cause, tc.want)
		}
	}
}
