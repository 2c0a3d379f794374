package decode

import (
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// decoder is one entry of the decoders' registry: what one component
// writes, turned into causes of one family.
type decoder struct {
	// name says which decoder it is, for tests.
	name string
	// family is the catalogue's family of the causes it names.
	family string
	// fallbacks are the family's catch-alls (its Generic causes): what it
	// names when it claims a reason but knows none of the wording.
	fallbacks []chain.CauseID
	// reasons, when set, are the reasons whose messages it decodes, and
	// explain decodes them (several causes at once for a scheduler's
	// message); an entry without reasons claims its own, by decode.
	reasons []string
	explain func(reason, message string) []Decoded
	// thenKubelet: when explain says nothing, the kubelet's decoders are
	// asked (a terminated state's words may be the runtime's).
	thenKubelet bool
	decode      func(reason, message string) (Decoded, bool)
	// Where the walk asks it besides explain: about a container's
	// waiting state and its Warning events (waiting), and about a pod's
	// events before its containers exist (creating).
	waiting, creating bool
}

// registry is every decoder, in the order a reason and message are
// offered to them: first those that name the reasons they decode
// (controllers, the scheduler, the autoscaler, terminated states), then
// the kubelet's and the runtime's, each of which claims only its own.
// The walk, explain and a pasted message all go through it.
var registry = []decoder{
	{name: "Scheduling", family: "scheduler", reasons: []string{"FailedScheduling", "Unschedulable", "SchedulingGated"},
		explain: func(reason, message string) []Decoded { return Scheduling(reason, message).Reasons }},
	{name: "FailedCreate", family: "controller", fallbacks: []chain.CauseID{PodCreateFailed}, reasons: []string{"FailedCreate", "ReplicaFailure"},
		explain: func(_, message string) []Decoded {
			if strings.HasPrefix(strings.TrimSpace(message), cronJobCreatePrefix) {
				return []Decoded{CronJobCreateFailed(message)} // the cronjob controller's, about a Job
			}
			return []Decoded{FailedCreate(message)}
		}},
	{name: "DeploymentCondition", family: "controller", reasons: []string{"ProgressDeadlineExceeded", "ReplicaSetCreateError"},
		explain: func(reason, message string) []Decoded {
			if d, ok := RolloutWords(reason, message); ok {
				return []Decoded{d} // an Argo Rollout's Progressing condition
			}
			d, ok := DeploymentCondition(appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: reason, Message: message})
			if !ok {
				return nil
			}
			return []Decoded{d}
		}},
	{name: "Autoscaler", family: "autoscaler", reasons: []string{"NotTriggerScaleUp"},
		explain: func(reason, message string) []Decoded {
			d, _ := Autoscaler(reason, message)
			return []Decoded{d}
		}},
	{name: "Serving", family: "serving", reasons: servingReasons, explain: explainServing},
	{name: "Gateway", family: "gateway", reasons: gatewayReasonNames, explain: explainGateway},
	{name: "Producer", family: "producer", reasons: producerReasons, explain: explainProducer},
	{name: "Rollout", family: "rollout", reasons: rolloutReasons, explain: explainRollout},
	{name: "Autoscaling", family: "autoscaling", reasons: autoscalingReasons, explain: explainAutoscaling},
	{name: "Resize", family: "resize", reasons: resizeReasons, explain: explainResize},
	{name: "Job", family: "workload", reasons: jobReasons, explain: explainJob, thenKubelet: true},
	{name: "Workload", family: "workload", reasons: workloadReasons, explain: explainWorkload, thenKubelet: true},
	{name: "Termination", family: "crash", reasons: []string{"OOMKilled", "Error", "Completed", "ContainerCannotRun", "StartError"},
		explain: explainTermination, thenKubelet: true},
	{name: "ImagePull", family: "image", fallbacks: []chain.CauseID{ImagePullFailed}, decode: ImagePull, waiting: true},
	{name: "ContainerConfig", family: "config", fallbacks: []chain.CauseID{ContainerConfigError}, decode: ContainerConfig, waiting: true},
	{name: "ContainerStart", family: "start", fallbacks: []chain.CauseID{CreateContainerError, ContainerStartFailed}, decode: ContainerStart, waiting: true},
	{name: "Sandbox", family: "sandbox", fallbacks: []chain.CauseID{SandboxCreationFailed}, decode: Sandbox, waiting: true, creating: true},
	{name: "Mount", family: "volume", fallbacks: []chain.CauseID{VolumeMountFailed}, decode: Mount, waiting: true, creating: true},
	{name: "BackOff", family: "crash", decode: BackOff},
	{name: "Probe", family: "probe", decode: Probe},
	{name: "Hook", family: "hook", decode: Hook},
	{name: "Eviction", family: "eviction", fallbacks: []chain.CauseID{PodEvicted}, decode: Eviction},
}

// decoders are the registry's entries that claim their own reasons and
// that keep says the caller asks, in the registry's order.
func decoders(keep func(decoder) bool) []func(string, string) (Decoded, bool) {
	var out []func(string, string) (Decoded, bool)
	for _, d := range registry {
		if d.decode != nil && keep(d) {
			out = append(out, d.decode)
		}
	}
	return out
}

// Each caller's decoders, in the registry's order.
var (
	kubeletDecoders  = decoders(func(decoder) bool { return true })
	waitingDecoders  = decoders(func(d decoder) bool { return d.waiting })
	creatingDecoders = decoders(func(d decoder) bool { return d.creating })
)

// firstClaim is the first decoder's answer that claims the reason.
func firstClaim(decs []func(string, string) (Decoded, bool), reason, message string) (Decoded, bool) {
	for _, dec := range decs {
		if d, ok := dec(reason, message); ok {
			return d, true
		}
	}
	return Decoded{}, false
}

// CreatingDecoders are the registry's entries marked creating, in its
// order: the walk asks them about a pod's Warning events before its
// containers exist, and counts an event's repeats with the decoder that
// claimed it.
func CreatingDecoders() []func(reason, message string) (Decoded, bool) {
	return slices.Clone(creatingDecoders)
}

// explainReasoned decodes a message with the decoders its reason selects:
// the entry that names the reason, else the first that claims it.
func explainReasoned(reason, message string) []Decoded {
	for _, d := range registry {
		if d.explain != nil && slices.Contains(d.reasons, reason) {
			if ds := d.explain(reason, message); len(ds) > 0 {
				return ds
			}
			if !d.thenKubelet {
				return nil
			}
			break
		}
	}
	if d, ok := explainKubelet(reason, message); ok {
		return []Decoded{d}
	}
	return nil
}

func explainKubelet(reason, message string) (Decoded, bool) {
	return firstClaim(kubeletDecoders, reason, message)
}

// Waiting decodes a container's waiting state or one of its Warning
// events, with the registry's entries marked waiting: the walk's
// containers link asks it, so the walk and explain agree on the causes.
func Waiting(reason, message string) (Decoded, bool) {
	return firstClaim(waitingDecoders, reason, message)
}
