package chain

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// An Argo Rollout (argoproj.io/v1alpha1) is walked as a Deployment is: it
// owns ReplicaSets, which own the pods. Its own link, after stored, is the
// Rollouts controller's: the spec valid, not aborted, not paused, within
// its progress deadline.
const (
	KindRollout Kind = "Rollout"
	// LinkRollout is the Argo Rollouts controller's own state of the
	// rollout: its steps, pauses, analysis and aborts.
	LinkRollout LinkID = "rollout"
	// RolloutGroup is Argo Rollouts' API group.
	RolloutGroup = "argoproj.io"
	// RolloutHashLabel is the label the Rollouts controller puts on its
	// ReplicaSets and pods (pkg/apis/rollouts/v1alpha1
	// DefaultRolloutUniqueLabelKey).
	RolloutHashLabel = "rollouts-pod-template-hash"
)

// RolloutAPI is where Rollouts are served.
var RolloutAPI = APIResource{Group: RolloutGroup, Version: "v1alpha1", Resource: "rollouts", Kind: string(KindRollout), Namespaced: true}

var rolloutChain = []LinkID{LinkStored, LinkRollout, LinkReplicaSet, LinkPods, LinkNodeAssignment, LinkContainers, LinkReady, LinkServing}

// Rollout is the part of an Argo Rollout the walk reads, with the field
// names of argo-rollouts' pkg/apis/rollouts/v1alpha1 types.go (v1.10).
// A module of its own would pull the controller's dependencies into the
// diagnosis binary.
type Rollout struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              RolloutSpec   `json:"spec"`
	Status            RolloutStatus `json:"status,omitempty"`
	// Undecoded are the fields left out because they did not fit their
	// type (DecodeRollout).
	Undecoded []string `json:"-"`
}

// RolloutSpec is the Rollout's spec.
type RolloutSpec struct {
	Replicas    *int32                 `json:"replicas,omitempty"`
	Selector    *metav1.LabelSelector  `json:"selector,omitempty"`
	Template    corev1.PodTemplateSpec `json:"template,omitempty"`
	WorkloadRef *RolloutWorkloadRef    `json:"workloadRef,omitempty"`
	// MinReadySeconds, Paused and ProgressDeadlineSeconds mean what a
	// Deployment's do.
	MinReadySeconds         int32           `json:"minReadySeconds,omitempty"`
	Paused                  bool            `json:"paused,omitempty"`
	ProgressDeadlineSeconds *int32          `json:"progressDeadlineSeconds,omitempty"`
	Strategy                RolloutStrategy `json:"strategy"`
}

// RolloutWorkloadRef names the Deployment whose pod template a Rollout
// uses instead of its own.
type RolloutWorkloadRef struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Name       string `json:"name,omitempty"`
}

// RolloutStrategy is canary or blue-green.
type RolloutStrategy struct {
	Canary    *CanaryStrategy    `json:"canary,omitempty"`
	BlueGreen *BlueGreenStrategy `json:"blueGreen,omitempty"`
}

// CanaryStrategy is the canary's steps.
type CanaryStrategy struct {
	Steps []CanaryStep `json:"steps,omitempty"`
}

// CanaryStep is one step; one of its fields is set.
type CanaryStep struct {
	SetWeight  *int32                `json:"setWeight,omitempty"`
	Pause      *RolloutPause         `json:"pause,omitempty"`
	Analysis   *RolloutAnalysis      `json:"analysis,omitempty"`
	Experiment *runtime.RawExtension `json:"experiment,omitempty"`
	// SetCanaryScale and Plugin are only named.
	SetCanaryScale *runtime.RawExtension `json:"setCanaryScale,omitempty"`
	Plugin         *struct {
		Name string `json:"name"`
	} `json:"plugin,omitempty"`
}

// RolloutPause is a pause step; no duration waits for a promotion.
type RolloutPause struct {
	Duration *intstr.IntOrString `json:"duration,omitempty"`
}

// RolloutAnalysis names the analysis templates of a step.
type RolloutAnalysis struct {
	Templates []struct {
		TemplateName string `json:"templateName"`
	} `json:"templates,omitempty"`
}

// BlueGreenStrategy is the blue-green strategy.
type BlueGreenStrategy struct {
	ActiveService        string `json:"activeService,omitempty"`
	PreviewService       string `json:"previewService,omitempty"`
	AutoPromotionEnabled *bool  `json:"autoPromotionEnabled,omitempty"`
}

// RolloutStatus is the Rollout's status.
type RolloutStatus struct {
	// Selector is the selector the controller uses, as a string; with
	// a workloadRef it is the only one the Rollout itself holds.
	Selector         string             `json:"selector,omitempty"`
	Abort            bool               `json:"abort,omitempty"`
	PauseConditions  []RolloutPauseCond `json:"pauseConditions,omitempty"`
	ControllerPause  bool               `json:"controllerPause,omitempty"`
	AbortedAt        *metav1.Time       `json:"abortedAt,omitempty"`
	CurrentPodHash   string             `json:"currentPodHash,omitempty"`
	StableRS         string             `json:"stableRS,omitempty"`
	CurrentStepIndex *int32             `json:"currentStepIndex,omitempty"`
	// ObservedGeneration is a string: a number since v0.10, a hash before.
	ObservedGeneration string             `json:"observedGeneration,omitempty"`
	Replicas           int32              `json:"replicas,omitempty"`
	UpdatedReplicas    int32              `json:"updatedReplicas,omitempty"`
	ReadyReplicas      int32              `json:"readyReplicas,omitempty"`
	AvailableReplicas  int32              `json:"availableReplicas,omitempty"`
	Conditions         []RolloutCondition `json:"conditions,omitempty"`
	Canary             struct {
		CurrentStepAnalysisRunStatus       *RolloutAnalysisRunStatus `json:"currentStepAnalysisRunStatus,omitempty"`
		CurrentBackgroundAnalysisRunStatus *RolloutAnalysisRunStatus `json:"currentBackgroundAnalysisRunStatus,omitempty"`
	} `json:"canary,omitempty"`
	BlueGreen struct {
		PrePromotionAnalysisRunStatus  *RolloutAnalysisRunStatus `json:"prePromotionAnalysisRunStatus,omitempty"`
		PostPromotionAnalysisRunStatus *RolloutAnalysisRunStatus `json:"postPromotionAnalysisRunStatus,omitempty"`
		ActiveSelector                 string                    `json:"activeSelector,omitempty"`
	} `json:"blueGreen,omitempty"`
	// Phase and Message are computed by the controller (v1.0 and later).
	Phase   string `json:"phase,omitempty"`
	Message string `json:"message,omitempty"`
}

// RolloutPauseCond is why the controller paused the rollout.
type RolloutPauseCond struct {
	Reason    string      `json:"reason"`
	StartTime metav1.Time `json:"startTime"`
}

// RolloutCondition is one of the Rollout's conditions.
type RolloutCondition struct {
	Type               string      `json:"type"`
	Status             string      `json:"status"`
	LastUpdateTime     metav1.Time `json:"lastUpdateTime,omitempty"`
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty"`
	Reason             string      `json:"reason,omitempty"`
	Message            string      `json:"message,omitempty"`
}

// RolloutAnalysisRunStatus is an AnalysisRun's outcome as the Rollout
// records it.
type RolloutAnalysisRunStatus struct {
	Name    string `json:"name"`
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
}

// DecodeRollout reads a Rollout the API returned. A field that does not
// fit its type is left out and named in Undecoded (Lenient).
func DecodeRollout(u *unstructured.Unstructured) (*Rollout, error) {
	var ro Rollout
	dropped, err := Lenient(u.Object, func(m map[string]any) error {
		var try Rollout
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &try); err != nil {
			return err
		}
		ro = try
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("decoding rollout %s/%s: %w", u.GetNamespace(), u.GetName(), err)
	}
	ro.Undecoded = dropped
	return &ro, nil
}

// Condition is the Rollout's condition of type t, nil when absent.
func (ro *Rollout) Condition(t string) *RolloutCondition {
	for i := range ro.Status.Conditions {
		if ro.Status.Conditions[i].Type == t {
			return &ro.Status.Conditions[i]
		}
	}
	return nil
}

// StepString names a canary step as the Rollouts plugin's CanaryStepString
// does ("setWeight: 20", "pause", "pause: 30s", "analysis").
func StepString(c CanaryStep) string {
	switch {
	case c.SetWeight != nil:
		return fmt.Sprintf("setWeight: %d", *c.SetWeight)
	case c.Pause != nil && c.Pause.Duration != nil:
		return "pause: " + c.Pause.Duration.String()
	case c.Pause != nil:
		return "pause"
	case c.Experiment != nil:
		return "experiment"
	case c.Analysis != nil:
		return "analysis"
	case c.SetCanaryScale != nil:
		return "setCanaryScale"
	case c.Plugin != nil:
		return "plugin: " + c.Plugin.Name
	}
	return "step"
}

// rolloutReplicaSet is the Rollout's ReplicaSet of pod template hash h,
// nil when none.
func (s *Snapshot) rolloutReplicaSet(h string) *appsv1.ReplicaSet {
	if h == "" {
		return nil
	}
	for _, rs := range s.OwnedReplicaSets() {
		if rs.Labels[RolloutHashLabel] == h {
			return rs
		}
	}
	return nil
}

// StableReplicaSet is a Rollout's stable ReplicaSet (status.stableRS),
// nil when none.
func (s *Snapshot) StableReplicaSet() *appsv1.ReplicaSet {
	if s.Rollout == nil {
		return nil
	}
	return s.rolloutReplicaSet(s.Rollout.Status.StableRS)
}
