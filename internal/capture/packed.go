package capture

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// PackedPod is a pod kept as its protobuf encoding, with what finds it
// (namespace, name, labels) beside: about a fifth of the memory of the
// decoded pod, whose Go type has a field for everything a pod can say.
// A mirror's bundle holds its pods so (Bundle.Packed); each is decoded
// only for the snapshot cut that needs it, and dropped after its walk.
type PackedPod struct {
	Namespace, Name string
	Labels          map[string]string
	raw             []byte
}

// Pack encodes a pod. Labels are shared with the pods packed before
// through the same Labels that hold the same set (a ReplicaSet's pods
// all do).
func Pack(p *corev1.Pod, shared *Labels) (PackedPod, error) {
	raw, err := p.Marshal()
	if err != nil {
		return PackedPod{}, fmt.Errorf("encoding pod %s/%s: %w", p.Namespace, p.Name, err)
	}
	return PackedPod{Namespace: p.Namespace, Name: p.Name, Labels: shared.of(p.Labels), raw: raw}, nil
}

// Pod decodes the pod.
func (p *PackedPod) Pod() corev1.Pod {
	var pod corev1.Pod
	if err := pod.Unmarshal(p.raw); err != nil {
		// Pack wrote it: a pod that does not decode is a bug, and the
		// walk must not judge half a pod.
		panic(fmt.Sprintf("decoding packed pod %s/%s: %v", p.Namespace, p.Name, err))
	}
	return pod
}

// Size is the encoding's length in bytes.
func (p *PackedPod) Size() int { return len(p.raw) }

// Labels shares equal label sets between the pods packed through it.
type Labels struct{ sets map[string]map[string]string }

func (l *Labels) of(set map[string]string) map[string]string {
	if len(set) == 0 {
		return nil
	}
	if l.sets == nil {
		l.sets = map[string]map[string]string{}
	}
	k := labels.Set(set).String()
	if s, ok := l.sets[k]; ok {
		return s
	}
	l.sets[k] = set
	return set
}

// podCount, podAt and pod read the bundle's pods whichever way it holds
// them: decoded (Pods) or packed (Packed).
func (b *Bundle) podCount() int {
	if b.Packed != nil {
		return len(b.Packed)
	}
	return len(b.Pods)
}

// podAt is where pod i is and what it is labelled, without decoding it.
func (b *Bundle) podAt(i int) (namespace, name string, labels map[string]string) {
	if b.Packed != nil {
		p := &b.Packed[i]
		return p.Namespace, p.Name, p.Labels
	}
	p := &b.Pods[i]
	return p.Namespace, p.Name, p.Labels
}

// pod is pod i, a copy the caller owns.
func (b *Bundle) pod(i int) corev1.Pod {
	if b.Packed != nil {
		return b.Packed[i].Pod()
	}
	return b.Pods[i]
}
