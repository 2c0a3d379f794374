package capture

import (
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Snapshot selects one Deployment from the bundle with what its selector
// matches, as the live reader would have listed it. An empty namespace
// matches any; an empty name picks the only Deployment.
func (b *Bundle) Snapshot(namespace, name string) (*chain.Snapshot, error) {
	d, err := b.pick(namespace, name)
	if err != nil {
		return nil, err
	}
	s := &chain.Snapshot{Namespace: d.Namespace, Name: d.Name, Deployment: d}
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil || d.Spec.Selector == nil || sel.Empty() {
		return nil, fmt.Errorf("deployment %s/%s has no usable spec.selector", d.Namespace, d.Name)
	}
	var rss []appsv1.ReplicaSet
	for _, rs := range b.ReplicaSets {
		if rs.Namespace == d.Namespace && sel.Matches(labels.Set(rs.Labels)) {
			rss = append(rss, rs)
		}
	}
	var pods []corev1.Pod
	for _, p := range b.Pods {
		if p.Namespace == d.Namespace && sel.Matches(labels.Set(p.Labels)) {
			pods = append(pods, p)
		}
	}
	s.Assemble(rss, pods, b.Events)
	s.Now = b.CapturedAt
	if s.Now.IsZero() {
		s.Now = newest(s)
	}
	return s, nil
}

func (b *Bundle) pick(namespace, name string) (*appsv1.Deployment, error) {
	var found []*appsv1.Deployment
	for i := range b.Deployments {
		d := &b.Deployments[i]
		if (namespace == "" || d.Namespace == namespace) && (name == "" || d.Name == name) {
			found = append(found, d)
		}
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) == 0 && name == "":
		return nil, fmt.Errorf("no Deployment in the input")
	case len(found) == 0:
		return nil, fmt.Errorf("no Deployment %q in the input (it has %s)", name, b.names())
	}
	return nil, fmt.Errorf("the input has several Deployments (%s): name one", b.names())
}

func (b *Bundle) names() string {
	var n []string
	for _, d := range b.Deployments {
		n = append(n, d.Namespace+"/"+d.Name)
	}
	if len(n) == 0 {
		return "none"
	}
	return strings.Join(n, ", ")
}

// newest is the latest time the objects mention: a capture is judged at the
// moment it was taken, never against the clock of whoever reads it.
func newest(s *chain.Snapshot) time.Time {
	var t time.Time
	see := func(x time.Time) {
		if x.After(t) {
			t = x
		}
	}
	d := s.Deployment
	see(d.CreationTimestamp.Time)
	for _, c := range d.Status.Conditions {
		see(c.LastUpdateTime.Time)
		see(c.LastTransitionTime.Time)
	}
	for _, rs := range s.ReplicaSets {
		see(rs.CreationTimestamp.Time)
	}
	for _, p := range s.Pods {
		see(p.CreationTimestamp.Time)
		for _, c := range p.Status.Conditions {
			see(c.LastTransitionTime.Time)
		}
		for _, sts := range [][]corev1.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses} {
			for _, st := range sts {
				if r := st.State.Running; r != nil {
					see(r.StartedAt.Time)
				}
				if tm := st.State.Terminated; tm != nil {
					see(tm.FinishedAt.Time)
				}
				if tm := st.LastTerminationState.Terminated; tm != nil {
					see(tm.FinishedAt.Time)
				}
			}
		}
	}
	for _, e := range s.Events {
		see(e.Last)
	}
	return t
}

// Pod finds a pod by name, in namespace (any namespace when empty).
func (b *Bundle) Pod(namespace, name string) (*corev1.Pod, bool) {
	for i := range b.Pods {
		if p := &b.Pods[i]; p.Name == name && (namespace == "" || p.Namespace == namespace) {
			return p, true
		}
	}
	return nil, false
}

// ReplicaSet finds a ReplicaSet by name, in namespace (any when empty).
func (b *Bundle) ReplicaSet(namespace, name string) (*appsv1.ReplicaSet, bool) {
	for i := range b.ReplicaSets {
		if rs := &b.ReplicaSets[i]; rs.Name == name && (namespace == "" || rs.Namespace == namespace) {
			return rs, true
		}
	}
	return nil, false
}
