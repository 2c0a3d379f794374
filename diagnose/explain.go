package diagnose

import (
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Explain decodes one raw message, as pasted from an event, a condition or a
// container's waiting state, into causes. reason narrows the decoders when
// known (the event or condition reason, the waiting reason); without it the
// message's own wording chooses. It returns nothing for a message no
// decoder knows.
func Explain(reason, message string) []Decoded {
	message = strings.TrimSpace(message)
	if reason == "" {
		return explainUnreasoned(message)
	}
	switch reason {
	case "FailedScheduling", "Unschedulable", "SchedulingGated":
		return Scheduling(reason, message).Reasons
	case "FailedCreate", "ReplicaFailure":
		return []Decoded{FailedCreate(message)}
	case "ProgressDeadlineExceeded", "ReplicaSetCreateError":
		d, ok := DeploymentCondition(appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: reason, Message: message})
		if ok {
			return []Decoded{d}
		}
		return nil
	}
	if d, ok := explainKubelet(reason, message); ok {
		return []Decoded{d}
	}
	return nil
}

// kubeletDecoders are tried in order; each claims only its own reasons.
var kubeletDecoders = []func(string, string) (Decoded, bool){
	ImagePull, ContainerConfig, ContainerStart, Sandbox, Mount, BackOff, Probe, Hook, Eviction,
}

func explainKubelet(reason, message string) (Decoded, bool) {
	for _, dec := range kubeletDecoders {
		if d, ok := dec(reason, message); ok {
			return d, true
		}
	}
	return Decoded{}, false
}

// guessReasons are the event reasons a kubelet message may have come with,
// tried when the user gave none. Only event reasons: their decoders check
// the message's wording, while a waiting reason (InvalidImageName, say)
// would claim any text.
var guessReasons = []string{
	"Failed", "FailedMount", "FailedAttachVolume", "FailedMapVolume", "FailedCreatePodSandBox",
	"BackOff", "Unhealthy", "Killing", "FailedPostStartHook", "FailedPreStopHook", "Evicted",
}

func explainUnreasoned(message string) []Decoded {
	switch {
	case strings.Contains(message, "nodes are available") || strings.Contains(message, "no nodes available to schedule pods"):
		return Scheduling("FailedScheduling", message).Reasons
	case strings.HasPrefix(message, "Error creating:") || strings.Contains(message, " is forbidden: ") || strings.Contains(message, "admission webhook"):
		return []Decoded{FailedCreate(message)}
	case strings.Contains(message, "has timed out progressing"):
		return Explain("ProgressDeadlineExceeded", message)
	}
	// A waiting state's message is the kubelet's Failed event without its
	// "Error: " prefix: try both forms.
	candidates := []string{message}
	if !strings.HasPrefix(message, "Error: ") {
		candidates = append(candidates, "Error: "+message)
	}
	for _, m := range candidates {
		for _, r := range guessReasons {
			d, ok := explainKubelet(r, m)
			// A guessed reason proves nothing when its decoder gives the
			// same cause for any text at all (its catch-all).
			if ok && !isGeneric(d.Cause) && d.Cause != catchAll(r) {
				return []Decoded{d}
			}
		}
	}
	return nil
}

// catchAll is the cause a reason's decoder gives a message it cannot read.
func catchAll(reason string) chain.CauseID {
	d, _ := explainKubelet(reason, "\x00")
	return d.Cause
}
