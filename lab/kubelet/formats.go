package kubelet

import "fmt"

// EventFormat is one kind of event the simulated kubelet writes about pods:
// its type, reason and message format (fmt verbs as in the kubelet source).
type EventFormat struct {
	Type, Reason, Format string
}

// PodEventFormats is every pod and container event the simulated kubelet
// writes, so that tests against a running lab can check each event it wrote
// against the formats formats_test.go checks against the kubelet source.
func PodEventFormats() []EventFormat {
	const normal, warning = "Normal", "Warning"
	return []EventFormat{
		{normal, reasonPulling, msgPulling},
		{normal, reasonPulled, msgPulled},
		{normal, reasonPulled, msgAlreadyPresent},
		{normal, reasonCreated, msgCreated},
		{normal, reasonStarted, msgStarted},
		{normal, reasonKilling, msgKilling},
		{normal, reasonKilling, fmt.Sprintf(msgWillBeRestarted, msgFailedLiveness)},
		{normal, reasonKilling, reasonFailedPostStartHook},
		{warning, reasonFailedPostStartHook, msgPostStartHookFailed},
		{normal, reasonBackOff, msgBackOffPull},
		{warning, reasonFailed, msgFailedToPull},
		{warning, reasonFailed, msgError},
		{warning, reasonInspectFailed, msgDefaultTag},
		{warning, reasonBackOff, msgBackOffRestart},
		{warning, reasonFailedMount, msgMountSetUp},
		{warning, reasonUnhealthy, msgProbeFailed},
		{warning, reasonUnhealthy, msgProbeErrored},
		{warning, reasonFailedCreatePodSandBox, msgFailedCreateSandbox},
		{warning, reasonFailedPullSecret, msgFailedPullSecret},
		{warning, reasonErrImageNeverPull, msgNeverPull},
		{warning, reasonEvicted, msgEmptyDirLimit},
		{warning, reasonEvicted, msgPodEphemeralLimit},
		{warning, reasonEvicted, msgContainerEphemeralLimit},
		{warning, reasonAppArmor, msgAppArmorEnforce},
	}
}
