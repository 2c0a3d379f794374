package corpus

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Incident is one real incident, as a public thread showed it, in a compact
// spec that Build turns into the List `kubectl get deploy,rs,pods,events -o
// yaml` would have printed.
type Incident struct {
	Name       string `json:"name"`
	Provenance `json:",inline"`
	Want       Want  `json:"want"`
	Replicas   int32 `json:"replicas,omitempty"`
	// Image is the containers' image when the thread names it.
	Image      string          `json:"image,omitempty"`
	Pods       []PodSpec       `json:"pods,omitempty"`
	Events     []EventSpec     `json:"events,omitempty"`
	Deployment *DeploymentSpec `json:"deployment,omitempty"`
	// The other kinds' objects (kind: picks which): see build_kinds.go.
	StatefulSet *StatefulSetSpec `json:"statefulset,omitempty"`
	DaemonSet   *DaemonSetSpec   `json:"daemonset,omitempty"`
	Job         *JobSpec         `json:"job,omitempty"`
	CronJob     *CronJobSpec     `json:"cronjob,omitempty"`
	// Labels are the pods' labels and the workload's selector (app: web
	// when absent); Ports the ports the pod template declares, by
	// container name: what a Service's selector and targetPort are
	// matched against (see build_objects.go).
	Labels map[string]string                 `json:"labels,omitempty"`
	Ports  map[string][]corev1.ContainerPort `json:"ports,omitempty"`
	// Objects are the further objects the thread shows (a Service, an
	// Ingress, an autoscaler, a Certificate ...), each as kubectl get -o
	// yaml prints it, trimmed to what the thread shows.
	Objects []map[string]any `json:"objects,omitempty"`
	// Target is what the incident is walked as, KIND/NAME as kubectl
	// chain -f LIST KIND/NAME reads it ("service/web", "hpa/web"); the
	// workload when absent.
	Target string `json:"target,omitempty"`

	Family string `json:"-"`
}

// PodSpec is one pod of the current ReplicaSet as the thread showed it.
type PodSpec struct {
	Phase corev1.PodPhase `json:"phase,omitempty"`
	// Node says the pod is scheduled (spec.nodeName set).
	Node bool `json:"node,omitempty"`
	// Pinned is, for a DaemonSet's pod, the node its node affinity pins it
	// to when that is not node i: a surge pod beside the old one.
	Pinned         string                   `json:"pinned,omitempty"`
	Reason         string                   `json:"reason,omitempty"`
	Message        string                   `json:"message,omitempty"`
	Conditions     []corev1.PodCondition    `json:"conditions,omitempty"`
	InitContainers []corev1.ContainerStatus `json:"initContainers,omitempty"`
	Containers     []corev1.ContainerStatus `json:"containers,omitempty"`
}

// EventSpec is one event as the thread quoted it.
type EventSpec struct {
	// On is pod (the first pod, or Pod's index), replicaset or deployment;
	// for the other kinds statefulset, daemonset, job (a CronJob's Job too)
	// or cronjob; one of the objects: as its kind lower-cased and name
	// ("service/web", "horizontalpodautoscaler/web").
	On   string `json:"on"`
	Pod  int    `json:"pod,omitempty"`
	Type string `json:"type,omitempty"`
	// Container is the container the event is about (its fieldPath); the
	// first container by default for the kubelet's container events.
	Container string `json:"container,omitempty"`
	Reason    string `json:"reason"`
	Source    string `json:"source,omitempty"`
	Count     int32  `json:"count,omitempty"`
	Message   string `json:"message"`
}

// DeploymentSpec holds the Deployment's telling conditions.
type DeploymentSpec struct {
	Conditions []appsv1.DeploymentCondition `json:"conditions,omitempty"`
}

func (in Incident) check() error {
	if in.Name == "" {
		return fmt.Errorf("no name")
	}
	if err := in.Provenance.check(); err != nil {
		return err
	}
	switch {
	case in.Want.Health == chain.Healthy:
		if in.Want.Link != "" || in.Want.Cause != "" {
			return fmt.Errorf("want: a healthy incident has no link or cause")
		}
	case in.Want.Health != "":
		return fmt.Errorf("want.health: only healthy is named; a failure names its link and cause")
	case in.Want.Link == "" || in.Want.Cause == "":
		return fmt.Errorf("want needs link and cause")
	}
	if len(in.Pods) == 0 && len(in.Events) == 0 && in.Deployment == nil && in.Job == nil && in.CronJob == nil && in.DaemonSet == nil && len(in.Objects) == 0 {
		return fmt.Errorf("no pods, events or deployment conditions: nothing to walk")
	}
	if err := in.checkKind(); err != nil {
		return err
	}
	for i, p := range in.Pods {
		if p.Pinned != "" && in.WorkloadKind() != "DaemonSet" {
			return fmt.Errorf("pod %d: pinned is a DaemonSet pod's node", i)
		}
	}
	objects, err := in.checkObjects()
	if err != nil {
		return err
	}
	for i, e := range in.Events {
		switch e.On {
		case "pod":
			if e.Pod < 0 || e.Pod >= len(in.Pods) {
				return fmt.Errorf("event %d is on pod %d, but there are %d pods", i, e.Pod, len(in.Pods))
			}
		default:
			if strings.Contains(e.On, "/") {
				if !objects[e.On] {
					return fmt.Errorf("event %d: on %q names none of the objects", i, e.On)
				}
				break
			}
			if !eventOwners[in.WorkloadKind()][e.On] {
				return fmt.Errorf("event %d: on %q is not pod or one of a %s's objects", i, e.On, in.WorkloadKind())
			}
		}
		if e.Reason == "" || e.Message == "" {
			return fmt.Errorf("event %d: no reason or message", i)
		}
	}
	return nil
}
