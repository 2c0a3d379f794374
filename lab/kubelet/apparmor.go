package kubelet

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
)

// The kubelet's AppArmor admission on a host without AppArmor (the lab's
// hosts, and so its simulated nodes, have none): k8s.io/kubernetes v1.37.2
// pkg/security/apparmor/validate.go's host error, wrapped by
// pkg/kubelet/lifecycle/handlers.go ("Cannot enforce AppArmor: %v", reason
// AppArmor), and kubelet.go's rejectPod: a Warning event with the message
// and the pod Failed with "Pod was rejected: " before it.
const (
	reasonAppArmor      = "AppArmor"
	msgAppArmorEnforce  = "Cannot enforce AppArmor: %v"
	msgAppArmorNoHost   = "AppArmor is not enabled on the host"
	msgPodRejected      = "Pod was rejected: "
	appArmorRejectedMsg = "Cannot enforce AppArmor: " + msgAppArmorNoHost
)

// appArmorRequired is pkg/security/apparmor/helpers.go's isRequired: a
// profile other than Unconfined on the pod or one of its containers (or the
// deprecated annotation).
func appArmorRequired(pod *corev1.Pod) bool {
	confined := func(p *corev1.AppArmorProfile) bool {
		return p != nil && p.Type != corev1.AppArmorProfileTypeUnconfined
	}
	if sc := pod.Spec.SecurityContext; sc != nil && confined(sc.AppArmorProfile) {
		return true
	}
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range cs {
			if c.SecurityContext != nil && confined(c.SecurityContext.AppArmorProfile) {
				return true
			}
		}
	}
	for k, v := range pod.Annotations {
		if strings.HasPrefix(k, corev1.DeprecatedAppArmorBetaContainerAnnotationKeyPrefix) {
			return v != corev1.DeprecatedAppArmorBetaProfileNameUnconfined
		}
	}
	return false
}

// rejectPod is the kubelet's admission refusal of a pending pod: the event,
// then the pod Failed with the reason and message.
// Called with a.mu held; a pod is rejected once.
func (a *nodeAgent) rejectPod(ctx context.Context, pod *corev1.Pod, reason, message string) {
	if a.rejected == nil {
		a.rejected = map[types.UID]bool{}
	}
	if a.rejected[pod.UID] {
		return
	}
	a.rejected[pod.UID] = true
	warn(a.events, podRef(pod), reason, message)
	p := pod.DeepCopy()
	p.Status = corev1.PodStatus{QOSClass: pod.Status.QOSClass, Phase: corev1.PodFailed, Reason: reason, Message: msgPodRejected + message}
	go func() {
		if _, err := a.client.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
			klog.FromContext(ctx).Error(err, "rejecting the pod", "pod", klog.KObj(p))
		}
	}()
}
